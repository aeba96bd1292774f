package route

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"sync/atomic"
)

// memoryFactor is what the router charges against MaxBufferedBytes for
// each byte of a message it holds: the heap its checks of a message take
// at their peak, per byte of the message. Measured on a 12 MB tools/call
// result (90,000 rows checked against db_query's outputSchema, and their
// JSON text block compared): 14x over the heap before it as JSON, 17x as
// SSE; the decoded instance the validator walks and the canonical forms
// the content check compares are most of it.
const memoryFactor = 16

// readChunk is how much of an answer is read (and charged) at a time.
const readChunk = 32 << 10

// errBusy: the router holds as much as it may; the client should retry.
var errBusy = errors.New("typeward route is at capacity")

// limiter bounds what the router holds at once: upstream exchanges (a
// slot each, from admission to the answer's last byte written) and the
// bytes of the messages it is checking (charged memoryFactor times).
// Neither queues: what does not fit is refused at once.
type limiter struct {
	slots   chan struct{}
	streams chan struct{} // GET streams, which may last: apart from the slots
	max     int64
	used    atomic.Int64
}

func newLimiter(slots, streams int, maxBytes int64) *limiter {
	return &limiter{slots: make(chan struct{}, slots), streams: make(chan struct{}, streams), max: maxBytes}
}

// ticket is one request's share of the limiter: its slot, if it has one,
// and the bytes charged to it.
type ticket struct {
	l       *limiter
	slot    chan struct{} // the channel its slot is in; nil: none
	charged int64
}

// admit takes a slot for a request whose body has n bytes, and charges
// them, or answers errBusy.
func (l *limiter) admit(n int) (*ticket, error) {
	select {
	case l.slots <- struct{}{}:
	default:
		return nil, fmt.Errorf("%w: %d upstream exchanges in flight (--max-in-flight)", errBusy, cap(l.slots))
	}
	t := &ticket{l: l, slot: l.slots}
	if err := t.charge(int64(n)); err != nil {
		t.done()
		return nil, err
	}
	return t, nil
}

// stream takes one of the GET streams' slots.
func (l *limiter) stream() (*ticket, error) {
	select {
	case l.streams <- struct{}{}:
		return &ticket{l: l, slot: l.streams}, nil
	default:
		return nil, fmt.Errorf("%w: %d streams open (--max-streams)", errBusy, cap(l.streams))
	}
}

// unslotted is a ticket without a slot: the router's own listing, which
// the calls waiting on it already hold slots for.
func (l *limiter) unslotted() *ticket { return &ticket{l: l} }

// charge counts n more bytes of messages held, or answers errBusy. A
// ticket is used by one goroutine at a time.
func (t *ticket) charge(n int64) error {
	n *= memoryFactor
	for {
		cur := t.l.used.Load()
		if cur+n > t.l.max {
			return fmt.Errorf("%w: the messages being checked would take more than %d bytes (--max-buffered-bytes)", errBusy, t.l.max)
		}
		if t.l.used.CompareAndSwap(cur, cur+n) {
			t.charged += n
			return nil
		}
	}
}

// uncharge gives back n bytes charged (counted as charge counts them).
func (t *ticket) uncharge(n int64) {
	n = min(n*memoryFactor, t.charged)
	t.l.used.Add(-n)
	t.charged -= n
}

// done gives back the ticket's bytes and slot.
func (t *ticket) done() {
	t.l.used.Add(-t.charged)
	t.charged = 0
	if t.slot != nil {
		<-t.slot
		t.slot = nil
	}
}

// read reads rd whole, at most limit bytes (one more tells a longer
// answer), charging the ticket as it goes.
func (t *ticket) read(rd io.Reader, limit int64) ([]byte, error) {
	var buf bytes.Buffer
	for int64(buf.Len()) <= limit {
		step := min(readChunk, limit+1-int64(buf.Len()))
		if err := t.charge(step); err != nil {
			return nil, err
		}
		if _, err := io.CopyN(&buf, rd, step); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			return nil, err
		}
	}
	return buf.Bytes(), nil
}
