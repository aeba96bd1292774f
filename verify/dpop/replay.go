package dpop

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"sync"
	"time"
)

// DefaultReplayEntries bounds a ReplayCache when NewReplayCache is given
// no bound: about 20 MB.
const DefaultReplayEntries = 1 << 18

// ErrReplayCacheFull is what a full ReplayCache answers: the proof is
// refused (fail closed), not let through unrecorded.
var ErrReplayCacheFull = errors.New("DPoP replay cache full")

// ReplayCache is a Replay in memory, bounded in entries and in time: a
// proof is remembered for the Checker's Window, in two generations of that
// length (the older dropped whole when the newer ends), and at most max
// proofs are held. It is safe for concurrent use; for one process only
// (replicas of a token endpoint share theirs through a database).
type ReplayCache struct {
	mu      sync.Mutex
	max     int
	period  time.Duration
	now     func() time.Time
	start   time.Time // of the current generation
	current map[[32]byte]int64
	prev    map[[32]byte]int64
}

// NewReplayCache remembers proofs for window (a Checker's Window) and at
// most max of them (DefaultReplayEntries when max <= 0); now is the clock,
// time.Now when nil.
func NewReplayCache(max int, window time.Duration, now func() time.Time) *ReplayCache {
	if max <= 0 {
		max = DefaultReplayEntries
	}
	if now == nil {
		now = time.Now
	}
	return &ReplayCache{max: max, period: window, now: now, start: now(),
		current: map[[32]byte]int64{}, prev: map[[32]byte]int64{}}
}

// Claim records (jkt, jti) until until.
func (c *ReplayCache) Claim(_ context.Context, jkt, jti string, until time.Time) error {
	// jkt (43 bytes) and a jti (at most MaxJTILength) fit the buffer, on
	// the stack; a longer pair only allocates.
	var buf [320]byte
	key := sha256.Sum256(append(append(append(buf[:0], jkt...), 0), jti...))
	now := c.now()
	c.mu.Lock()
	defer c.mu.Unlock()
	if elapsed := now.Sub(c.start); elapsed >= c.period {
		if elapsed >= 2*c.period {
			c.prev = map[[32]byte]int64{}
		} else {
			c.prev = c.current
		}
		c.current, c.start = map[[32]byte]int64{}, now
	}
	for _, gen := range []map[[32]byte]int64{c.current, c.prev} {
		if exp, ok := gen[key]; ok && exp > now.UnixNano() {
			return ErrReplayed
		}
	}
	if len(c.current)+len(c.prev) >= c.max {
		return fmt.Errorf("%w: %d proofs within %v", ErrReplayCacheFull, c.max, c.period)
	}
	c.current[key] = until.UnixNano()
	return nil
}

// Len is how many proofs the cache holds.
func (c *ReplayCache) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.current) + len(c.prev)
}
