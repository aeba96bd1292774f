// Package ratelimit is a per-key token bucket limiter (one bucket per
// client) with bounded memory: buckets that have refilled are forgotten,
// since a full bucket and an absent one behave the same.
//
// The bucket is kept as GCRA's theoretical arrival time (the instant the
// bucket would be full again), in integer time: waits are exact, with no
// floating-point drift, and "full" is one comparison.
package ratelimit

import (
	"container/list"
	"fmt"
	"math"
	"sync"
	"time"
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
	interval time.Duration // one token's worth of time: 1/rate
	capacity time.Duration // burst tokens' worth of time
	maxKeys  int
	now      func() time.Time

	mu      sync.Mutex
	buckets map[string]*list.Element // of *bucket
	lru     *list.List               // front: most recently used
}

type bucket struct {
	key string
	// full is when the bucket is full again (GCRA's theoretical arrival
	// time); the tokens available at now are (capacity - (full-now)) / interval.
	full time.Time
}

// New checks cfg and returns a Limiter.
func New(cfg Config) (*Limiter, error) {
	if !(cfg.Rate > 0) || cfg.Rate > 1e9 {
		return nil, fmt.Errorf("ratelimit: rate %v must be a positive number of at most 1e9 per second", cfg.Rate)
	}
	interval := time.Duration(math.Round(float64(time.Second) / cfg.Rate))
	if cfg.Burst < 1 || float64(interval)*float64(cfg.Burst) > float64(100*365*24*time.Hour) {
		return nil, fmt.Errorf("ratelimit: burst %d must be at least 1, with burst/rate under 100 years", cfg.Burst)
	}
	if cfg.MaxKeys < 0 {
		return nil, fmt.Errorf("ratelimit: max keys %d is negative", cfg.MaxKeys)
	}
	l := &Limiter{
		interval: interval,
		capacity: interval * time.Duration(cfg.Burst),
		maxKeys:  cfg.MaxKeys,
		now:      cfg.Now,
		buckets:  map[string]*list.Element{},
		lru:      list.New(),
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
// returns false and how long until a token is available (for Retry-After).
func (l *Limiter) Allow(key string) (ok bool, wait time.Duration) {
	now := l.now()
	l.mu.Lock()
	defer l.mu.Unlock()
	l.forgetRefilled(now)

	b := l.bucket(key, now)
	full := b.full
	if full.Before(now) {
		full = now
	}
	full = full.Add(l.interval) // after taking one token
	if debt := full.Sub(now); debt > l.capacity {
		return false, debt - l.capacity
	}
	b.full = full
	return true, 0
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
	b := &bucket{key: key, full: now}
	l.buckets[key] = l.lru.PushFront(b)
	return b
}

// forgetRefilled drops least recently used buckets that would be full by
// now. It stops at the first that would not, so its cost is amortised
// over the requests that created the buckets.
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
