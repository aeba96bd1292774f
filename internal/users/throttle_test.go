package users

import (
	"fmt"
	"testing"
	"time"
)

// TestThrottleMemoryIsBounded: failures from more addresses and names
// than the throttle holds keep it within its bounds (the oldest
// forgotten), whatever the names' lengths.
func TestThrottleMemoryIsBounded(t *testing.T) {
	th := NewThrottle()
	now := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	name := string(make([]byte, MaxNameLen))
	for i := range maxThrottled + 5000 {
		th.fail(newAttempt(name, fmt.Sprintf("10.%d.%d.%d:1", i>>16&255, i>>8&255, i&255)), now)
	}
	for _, c := range []interface {
		Len() int
		Bytes() int64
	}{th.pairs, th.addrs} {
		if c.Len() > maxThrottled || c.Bytes() > maxThrottleBytes {
			t.Errorf("%d entries, %d bytes; bounds %d, %d", c.Len(), c.Bytes(), maxThrottled, maxThrottleBytes)
		}
	}
	for i := range maxKnown + 500 {
		th.succeed(newAttempt(name, fmt.Sprintf("10.9.%d.%d", i>>8&255, i&255)))
	}
	if th.known.Len() > maxKnown || th.known.Bytes() > maxKnownBytes {
		t.Errorf("known pairs: %d entries, %d bytes", th.known.Len(), th.known.Bytes())
	}
}
