// Package ratelimit is a per-key token bucket limiter (one bucket per
// client, per address, …) with bounded memory: buckets that have refilled
// are forgotten, since a full bucket and an absent one behave the same,
// and at most MaxKeys are held.
//
// Each bucket is a golang.org/x/time/rate Limiter; this package adds the
// keys, the bound, and the answer a refusal needs (how long to wait).
package ratelimit

import (
	"container/list"
	"fmt"
	"math"
	"sync"
	"time"

	"golang.org/x/time/rate"
)

// Config of a Limiter.
type Config struct {
	// Rate is how many requests per second a key may sustain.
	Rate float64
	// Burst is how many requests a key may make at once (the bucket size).
	Burst int
	// MaxKeys caps the buckets held (default 100000). Beyond it, the least
	// recently used bucket is dropped, which at worst forgives its debt.
	MaxKeys int
	// Now is the clock (default time.Now).
	Now func() time.Time
}

// DefaultMaxKeys is the bucket cap when Config.MaxKeys is 0.
const DefaultMaxKeys = 100_000

// Limiter holds one token bucket per key. It is safe for concurrent use.
type Limiter struct {
	rate    rate.Limit
	burst   int
	refill  time.Duration // from empty to full
	maxKeys int
	now     func() time.Time

	mu      sync.Mutex
	buckets map[string]*list.Element // of *bucket
	lru     *list.List               // front: most recently used
}

type bucket struct {
	key  string
	lim  *rate.Limiter
	full time.Time // when the bucket is full again, as of its last use
}

// New checks cfg and returns a Limiter.
func New(cfg Config) (*Limiter, error) {
	if !(cfg.Rate > 0) || cfg.Rate > 1e9 {
		return nil, fmt.Errorf("ratelimit: rate %v must be a positive number of at most 1e9 per second", cfg.Rate)
	}
	refill := float64(cfg.Burst) / cfg.Rate * float64(time.Second)
	if cfg.Burst < 1 || refill > float64(100*365*24*time.Hour) {
		return nil, fmt.Errorf("ratelimit: burst %d must be at least 1, with burst/rate under 100 years", cfg.Burst)
	}
	if cfg.MaxKeys < 0 {
		return nil, fmt.Errorf("ratelimit: max keys %d is negative", cfg.MaxKeys)
	}
	l := &Limiter{
		rate:    rate.Limit(cfg.Rate),
		burst:   cfg.Burst,
		refill:  time.Duration(math.Ceil(refill)),
		maxKeys: cfg.MaxKeys,
		now:     cfg.Now,
		buckets: map[string]*list.Element{},
		lru:     list.New(),
	}
	if l.maxKeys == 0 {
		l.maxKeys = DefaultMaxKeys
	}
	if l.now == nil {
		l.now = time.Now
	}
	return l, nil
}

// Allow takes a token from key's bucket. When the bucket is empty it
// returns false and how long until a token is available (for Retry-After);
// a refusal takes nothing.
func (l *Limiter) Allow(key string) (ok bool, wait time.Duration) {
	now := l.now()
	l.mu.Lock()
	defer l.mu.Unlock()
	l.forgetRefilled(now)
	b := l.bucket(key, now)
	if wait := l.wait(b, now); wait > 0 {
		return false, wait
	}
	b.lim.AllowN(now, 1)
	b.full = now.Add(time.Duration(math.Ceil(float64(l.burst)-b.lim.TokensAt(now)) / float64(l.rate) * float64(time.Second)))
	return true, 0
}

// Blocked reports whether Allow would refuse key now, and the wait, taking
// nothing: a check before work that only a failure would count against.
func (l *Limiter) Blocked(key string) (blocked bool, wait time.Duration) {
	now := l.now()
	l.mu.Lock()
	defer l.mu.Unlock()
	e, ok := l.buckets[key]
	if !ok {
		return false, 0
	}
	wait = l.wait(e.Value.(*bucket), now)
	return wait > 0, wait
}

// wait is how long until b holds a whole token; 0 when it does.
func (l *Limiter) wait(b *bucket, now time.Time) time.Duration {
	missing := 1 - b.lim.TokensAt(now)
	if missing <= 1e-9 { // float tokens: a nanosecond's worth is a whole one
		return 0
	}
	// Float tokens: round to the microsecond, far below Retry-After's second.
	return max(time.Duration(math.Round(missing/float64(l.rate)*1e6))*time.Microsecond, time.Microsecond)
}

// Len returns how many buckets are held.
func (l *Limiter) Len() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.lru.Len()
}

// bucket returns key's bucket, most recently used now, creating a full one.
func (l *Limiter) bucket(key string, now time.Time) *bucket {
	if e, ok := l.buckets[key]; ok {
		l.lru.MoveToFront(e)
		return e.Value.(*bucket)
	}
	if l.lru.Len() >= l.maxKeys {
		oldest := l.lru.Back()
		l.lru.Remove(oldest)
		delete(l.buckets, oldest.Value.(*bucket).key)
	}
	lim := rate.NewLimiter(l.rate, l.burst)
	lim.SetLimitAt(now, l.rate) // start the bucket's clock (full) at now, not at the epoch
	b := &bucket{key: key, lim: lim, full: now}
	l.buckets[key] = l.lru.PushFront(b)
	return b
}

// forgetRefilled drops least recently used buckets that are full by now.
// It stops at the first that is not, so its cost is amortised over the
// requests that created the buckets.
func (l *Limiter) forgetRefilled(now time.Time) {
	for e := l.lru.Back(); e != nil; e = l.lru.Back() {
		b := e.Value.(*bucket)
		if b.full.After(now) {
			return
		}
		l.lru.Remove(e)
		delete(l.buckets, b.key)
	}
}

// RetryAfterSeconds rounds a wait up to whole seconds, at least 1, as the
// Retry-After header (RFC 9110 §10.2.3) needs.
func RetryAfterSeconds(wait time.Duration) int {
	s := int(math.Ceil(wait.Seconds()))
	return max(s, 1)
}
