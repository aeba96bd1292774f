// Package ratelimit is a per-key token bucket limiter (one bucket per
// client, per address, …) with bounded memory: the buckets are held in an
// internal/cache, at most MaxKeys of them within MaxBytes, the least
// recently used dropped first (a dropped bucket and a full one behave the
// same, so at worst a debt is forgiven).
//
// Each bucket is a golang.org/x/time/rate Limiter; this package adds the
// keys, the bound, and the answer a refusal needs (how long to wait).
package ratelimit

import (
	"fmt"
	"math"
	"sync"
	"time"
	"unsafe"

	"golang.org/x/time/rate"

	"github.com/typeward/typeward/internal/cache"
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
	// MaxBytes caps the memory the buckets and their keys account for
	// (default DefaultMaxBytes), whatever the keys' lengths.
	MaxBytes int64
	// Now is the clock (default time.Now).
	Now func() time.Time
}

// Defaults of Config.
const (
	DefaultMaxKeys = 100_000
	// DefaultMaxBytes holds DefaultMaxKeys buckets of keys up to a few
	// hundred bytes (a client id is at most 256).
	DefaultMaxBytes = 64 << 20
)

// bucketBytes is what a bucket costs beside its key.
const bucketBytes = int64(unsafe.Sizeof(rate.Limiter{}))

// Limiter holds one token bucket per key. It is safe for concurrent use.
type Limiter struct {
	rate  rate.Limit
	burst int
	now   func() time.Time

	// mu makes finding (or making) a bucket and taking from it one step.
	mu      sync.Mutex
	buckets *cache.Cache[string, *rate.Limiter]
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
	if cfg.MaxBytes < 0 {
		return nil, fmt.Errorf("ratelimit: max bytes %d is negative", cfg.MaxBytes)
	}
	if cfg.MaxKeys == 0 {
		cfg.MaxKeys = DefaultMaxKeys
	}
	if cfg.MaxBytes == 0 {
		cfg.MaxBytes = DefaultMaxBytes
	}
	l := &Limiter{rate: rate.Limit(cfg.Rate), burst: cfg.Burst, now: cfg.Now,
		buckets: cache.New(cache.Config[string, *rate.Limiter]{MaxBytes: cfg.MaxBytes, MaxEntries: cfg.MaxKeys,
			Size: func(key string, _ *rate.Limiter) int64 { return int64(len(key)) + bucketBytes }})}
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
	b, found := l.buckets.Get(key)
	if !found {
		b = rate.NewLimiter(l.rate, l.burst)
		b.SetLimitAt(now, l.rate) // start the bucket's clock (full) at now, not at the epoch
		l.buckets.Put(key, b)
	}
	if wait := l.wait(b, now); wait > 0 {
		return false, wait
	}
	b.AllowN(now, 1)
	return true, 0
}

// Blocked reports whether Allow would refuse key now, and the wait, taking
// nothing: a check before work that only a failure would count against.
func (l *Limiter) Blocked(key string) (blocked bool, wait time.Duration) {
	now := l.now()
	l.mu.Lock()
	defer l.mu.Unlock()
	b, ok := l.buckets.Get(key)
	if !ok {
		return false, 0
	}
	wait = l.wait(b, now)
	return wait > 0, wait
}

// wait is how long until b holds a whole token; 0 when it does.
func (l *Limiter) wait(b *rate.Limiter, now time.Time) time.Duration {
	missing := 1 - b.TokensAt(now)
	if missing <= 1e-9 { // float tokens: a nanosecond's worth is a whole one
		return 0
	}
	// Float tokens: round to the microsecond, far below Retry-After's second.
	return max(time.Duration(math.Round(missing/float64(l.rate)*1e6))*time.Microsecond, time.Microsecond)
}

// Stats are the bucket cache's: buckets held, their bytes, evictions.
func (l *Limiter) Stats() cache.Stats { return l.buckets.Stats() }

// Len returns how many buckets are held.
func (l *Limiter) Len() int { return l.buckets.Len() }

// RetryAfterSeconds rounds a wait up to whole seconds, at least 1, as the
// Retry-After header (RFC 9110 §10.2.3) needs.
func RetryAfterSeconds(wait time.Duration) int {
	s := int(math.Ceil(wait.Seconds()))
	return max(s, 1)
}
