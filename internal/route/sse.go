package route

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
)

// sseEvent is one server-sent event: its event, id and retry fields, in
// order, and its data.
type sseEvent struct {
	fields  []string
	data    string
	hasData bool
}

// splitEvents parses an SSE stream as the WHATWG algorithm clients use
// does: an optional leading BOM, lines ended by CRLF, LF or CR, "name:
// value" or a bare "name", comments and unknown fields ignored. The
// router must see the events a client will: reading bare CRs or a BOM
// differently would let an event through unchecked.
func splitEvents(body []byte) []sseEvent {
	return splitLines(strings.TrimPrefix(string(body), "\ufeff"))
}

// splitLines is splitEvents after the stream's start.
func splitLines(s string) []sseEvent {
	var events []sseEvent
	var cur sseEvent
	var data []string
	flush := func() {
		if len(cur.fields) > 0 || cur.hasData {
			cur.data = strings.Join(data, "\n")
			events = append(events, cur)
		}
		cur, data = sseEvent{}, nil
	}
	for len(s) > 0 {
		i := strings.IndexAny(s, "\r\n")
		line := s
		if i < 0 {
			s = ""
		} else {
			line = s[:i]
			if strings.HasPrefix(s[i:], "\r\n") {
				s = s[i+2:]
			} else {
				s = s[i+1:]
			}
		}
		if line == "" {
			flush()
			continue
		}
		name, value, found := strings.Cut(line, ":")
		if found {
			value = strings.TrimPrefix(value, " ")
		}
		switch name {
		case "data":
			data = append(data, value)
			cur.hasData = true
		case "event", "id", "retry":
			cur.fields = append(cur.fields, name+": "+value)
		}
	}
	flush()
	return events
}

// message reports an event a client dispatches: one with data, and not
// the empty string (WHATWG: an event whose data buffer is empty is not
// dispatched, as a stream's priming event).
func (ev sseEvent) message() bool { return ev.hasData && ev.data != "" }

func (ev sseEvent) write(out *bytes.Buffer) {
	for _, f := range ev.fields {
		out.WriteString(f + "\n")
	}
	if ev.hasData {
		for _, line := range strings.Split(ev.data, "\n") {
			out.WriteString("data: " + line + "\n")
		}
	}
	out.WriteString("\n")
}

// id is the event's id field ("" when it has none): the last one, as
// clients take it.
func (ev sseEvent) id() string {
	id := ""
	for _, f := range ev.fields {
		if v, ok := strings.CutPrefix(f, "id: "); ok {
			id = v
		}
	}
	return id
}

// eventReader reads an SSE stream one event block at a time, as it
// arrives, so that a stream whose server waits on the client (a
// sampling request inside a tool call) is relayed event by event. A block
// is the bytes up to and including the blank line ending an event, parsed
// by splitEvents exactly as a whole stream would be: lines end at CRLF, LF
// or CR, and a CR at the end of what has arrived waits for the next byte.
type eventReader struct {
	rd    io.Reader
	tk    *ticket
	limit int64 // the bytes one block may have
	total int64 // the bytes the stream may have; 0: no bound
	read  int64
	held  int64 // bytes charged to tk for the blocks not yet given out
	buf   []byte
	off   int // buf[:off] was given out
	scan  int // buf[off:scan] holds no line end still to look at
	line  int // where the current line starts
	first bool
	eof   bool
}

func newEventReader(rd io.Reader, tk *ticket, limit, total int64) *eventReader {
	return &eventReader{rd: rd, tk: tk, limit: limit, total: total, first: true}
}

// errStreamTooLarge: an event, or a bounded stream, outgrew its limit.
var errStreamTooLarge = errors.New("the upstream's stream outgrew --max-response-bytes")

// next returns the events of the next block (none for a block of comments
// only, such as a keep-alive) and io.EOF at the end of the stream; a last
// block without its blank line is parsed as clients parse it at the end.
// The block's bytes stay charged to the ticket until the next call.
func (er *eventReader) next() ([]sseEvent, error) {
	er.tk.uncharge(er.held)
	er.held = 0
	for {
		if block, ok := er.cut(); ok {
			return er.parse(block), nil
		}
		if er.eof {
			if er.off == len(er.buf) {
				return nil, io.EOF
			}
			block := er.buf[er.off:]
			er.off, er.scan, er.line = len(er.buf), len(er.buf), len(er.buf)
			return er.parse(block), nil
		}
		if int64(len(er.buf)-er.off) > er.limit {
			return nil, fmt.Errorf("%w: an event of more than %d bytes", errStreamTooLarge, er.limit)
		}
		step := int64(readChunk)
		if er.total > 0 {
			if er.read > er.total {
				return nil, fmt.Errorf("%w: more than %d bytes", errStreamTooLarge, er.total)
			}
			step = min(step, er.total+1-er.read)
		}
		if err := er.tk.charge(step); err != nil {
			return nil, err
		}
		er.compact()
		if cap(er.buf) == len(er.buf) {
			er.buf = slices.Grow(er.buf, int(step))
		}
		room := min(int(step), cap(er.buf)-len(er.buf))
		n, err := er.rd.Read(er.buf[len(er.buf) : len(er.buf)+room])
		er.tk.uncharge(step - int64(n))
		er.held += int64(n)
		er.buf = er.buf[:len(er.buf)+n]
		er.read += int64(n)
		if errors.Is(err, io.EOF) {
			er.eof = true
		} else if err != nil {
			return nil, err
		}
	}
}

// compact moves what is left of the buffer to its start, once blocks were
// taken off it: each byte is moved at most once per read.
func (er *eventReader) compact() {
	if er.off == 0 {
		return
	}
	n := copy(er.buf, er.buf[er.off:])
	er.buf = er.buf[:n]
	er.scan -= er.off
	er.line -= er.off
	er.off = 0
}

// cut takes the next complete block off the buffer.
func (er *eventReader) cut() ([]byte, bool) {
	for er.scan < len(er.buf) {
		i := bytes.IndexAny(er.buf[er.scan:], "\r\n")
		if i < 0 {
			er.scan = len(er.buf)
			return nil, false
		}
		i += er.scan
		end := i + 1
		if er.buf[i] == '\r' {
			if i+1 == len(er.buf) && !er.eof {
				er.scan = i // a CRLF may be arriving
				return nil, false
			}
			if i+1 < len(er.buf) && er.buf[i+1] == '\n' {
				end = i + 2
			}
		}
		empty := i == er.line
		er.scan, er.line = end, end
		if empty {
			block := er.buf[er.off:end]
			er.off = end
			return block, true
		}
	}
	return nil, false
}

// parse reads one block; a BOM counts only at the stream's start.
func (er *eventReader) parse(block []byte) []sseEvent {
	if er.first {
		er.first = false
		return splitEvents(block)
	}
	return splitLines(string(block)) // a BOM here is part of a field name
}
