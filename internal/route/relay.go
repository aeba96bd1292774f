package route

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"sync/atomic"
	"time"
)

// judge decides what of one upstream answer reaches the client: each
// message of it goes through each, which returns what to send instead
// (nil: the message as it is; dropped: nothing). A stream resumed with
// Last-Event-ID is judged by the judge of the stream it resumes, so its
// answer is checked as the original would have been.
type judge struct {
	r        *http.Request   // the request answered, for its log context
	id       json.RawMessage // the id a response must answer; nil on a GET stream, which answers none
	call     bool            // a tools/call's answer: the server may ask the client inside it
	progress json.RawMessage // the request's _meta.progressToken, nil when it set none
	peer     peer
	each     func(m []byte) []byte
	// responded: a response to id was judged (passed or replaced).
	responded atomic.Bool
	// retained is what the judge keeps alive of its request, in bytes:
	// the weight of each event id remembered for it (conversations).
	retained int64
}

// dropped is each's answer for a message not passed on at all.
var dropped = []byte{}

// forward sends req upstream and relays the answer to w, each message
// judged by j. A JSON answer (or a non-2xx one) is read whole, bounded by
// MaxResponseBytes; an SSE answer is relayed event by event as it arrives
// (the server may be waiting on the client), each event bounded by
// MaxResponseBytes, and a POST's stream as a whole too. A GET stream
// (idle > 0) has no total bound but ends after idle without a byte. An
// error before anything was written is returned for the caller to answer;
// after, the stream ends (with a JSON-RPC error to j.id if no response to
// it passed).
func (rt *Router) forward(w http.ResponseWriter, req *http.Request, tk *ticket, j *judge, idle time.Duration) (int, error) {
	ctx, cancel := context.WithCancel(req.Context())
	defer cancel()
	req = req.WithContext(ctx)
	start := rt.cfg.Now()
	observe := func() { rt.metrics.upstreamSeconds.Observe(rt.cfg.Now().Sub(start).Seconds()) }
	resp, err := rt.upClient.Do(req)
	if err != nil {
		observe()
		return 0, err
	}
	defer resp.Body.Close()
	mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	x := &exchange{status: resp.StatusCode, header: resp.Header, sse: mt == "text/event-stream"}
	if !x.ok() || !x.sse {
		body, err := tk.read(resp.Body, rt.cfg.MaxResponseBytes)
		observe()
		if err != nil {
			return 0, err
		}
		if int64(len(body)) > rt.cfg.MaxResponseBytes {
			return 0, fmt.Errorf("the upstream answered more than %d bytes", rt.cfg.MaxResponseBytes)
		}
		x.body = body
		x.rewrite(j.each)
		x.write(w)
		return x.status, nil
	}
	defer observe()
	var rd io.Reader = resp.Body
	total := rt.cfg.MaxResponseBytes
	if idle > 0 {
		total = 0
		t := time.AfterFunc(idle, cancel)
		defer t.Stop()
		rd = &idleReader{rd: resp.Body, t: t, idle: idle}
	}
	er := newEventReader(rd, tk, rt.cfg.MaxResponseBytes, total)
	rc := http.NewResponseController(w)
	started := false
	begin := func() {
		x.header.Del("Content-Length")
		x.writeHeader(w)
		started = true
	}
	var out bytes.Buffer
	for {
		evs, err := er.next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			if !started {
				return 0, err
			}
			rt.cfg.Log.WarnContext(j.r.Context(), "upstream stream broken", "err", err, "request_id", requestID(j.r.Context()))
			if j.id != nil && !j.responded.Load() {
				out.Reset()
				sseEvent{hasData: true, data: string(errorMessage(j.id, rpcError{Code: codeUnavailable,
					Message: fmt.Sprintf("typeward route could not relay the rest of the upstream's answer (it may have run): %v", err)}))}.write(&out)
				_, _ = w.Write(out.Bytes())
				_ = rc.Flush()
			}
			return x.status, nil
		}
		out.Reset()
		for _, ev := range evs {
			if ev.message() {
				if repl := j.each([]byte(ev.data)); repl != nil {
					ev.data, ev.hasData = string(repl), len(repl) > 0
				}
			}
			if id := ev.id(); id != "" {
				rt.talk.relayed(j.peer, id, j)
			}
			ev.write(&out)
		}
		if len(evs) == 0 {
			out.WriteString(":\n\n") // the upstream's keep-alive
		}
		if !started {
			begin()
		}
		if idle > 0 {
			_ = rc.SetWriteDeadline(time.Now().Add(idle))
		}
		if _, err := w.Write(out.Bytes()); err != nil {
			return x.status, nil // the client is gone
		}
		_ = rc.Flush()
	}
	if !started {
		begin()
	}
	return x.status, nil
}

// idleReader ends a stream (its timer cancels the request) when no byte
// arrived for idle.
type idleReader struct {
	rd   io.Reader
	t    *time.Timer
	idle time.Duration
}

func (ir *idleReader) Read(p []byte) (int, error) {
	n, err := ir.rd.Read(p)
	if n > 0 {
		ir.t.Reset(ir.idle)
	}
	return n, err
}
