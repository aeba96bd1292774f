package users

import (
	"sync"
	"time"

	"github.com/typeward/typeward/internal/addrkey"
	"github.com/typeward/typeward/internal/cache"
)

// Failed sign-ins are throttled per (user, remote address), per remote
// address and per user (docs/security.md, "Console"). The first two hold
// the guessing of one source; they never touch a person signing in from
// elsewhere. The third holds guessing spread over many addresses, and is
// only ever a short delay, so that it cannot keep a person out.
const (
	// PairFree failures of one user name from one address, then the
	// address waits 1 s, doubling up to PairMaxWait, before it may try
	// that name again. A success resets the pair.
	PairFree    = 5
	PairMaxWait = 15 * time.Minute
	// AddressFree failures from one address, whatever names it tried,
	// then the address waits 1 s, doubling up to AddressMaxWait, before
	// it may try any name (except a name it signed in as before).
	AddressFree    = 20
	AddressMaxWait = 15 * time.Minute
	// UserFree failures of one user since its last success, from any
	// addresses, then each further failure delays the user's sign-ins
	// from addresses it has not signed in from, 1 s doubling up to
	// UserMaxWait: never a long lockout.
	UserFree    = 50
	UserMaxWait = 30 * time.Second
	// ForgetAfter: a pair's or an address's failures are forgotten when
	// its last one is this old.
	ForgetAfter = time.Hour
)

// Bounds of the throttle's memory: each map is an internal/cache, least
// recently used dropped first (which at worst forgives a debt).
const (
	maxThrottled     = 100_000
	maxThrottleBytes = 32 << 20
	maxKnown         = 10_000
	maxKnownBytes    = 4 << 20
	failuresBytes    = 32 // a failures value
)

// Backoff is the wait after the n-th failure of a key that has free
// failures before any wait: 1 s after the free-th, doubling up to max.
func Backoff(n, free int, max time.Duration) time.Duration {
	if n < free {
		return 0
	}
	d := time.Second << min(n-free, 20)
	return min(d, max)
}

// failures of a pair or an address.
type failures struct {
	n    int
	last time.Time
}

// Throttle is the per-replica memory of failed sign-ins by (user,
// address) and by address, and of the pairs that signed in (a person's
// own address, which failures from elsewhere never hold back). The per
// user count is the store's, shared by replicas. Safe for concurrent
// use; make one per server.
type Throttle struct {
	mu    sync.Mutex // a read and its update are one step
	pairs *cache.Cache[string, failures]
	addrs *cache.Cache[string, failures]
	known *cache.Cache[string, struct{}]
	// unknown counts the failures of names no user has, with the delay
	// the store's per-user count gives a user that exists, so that the
	// delay does not tell which names exist.
	unknown *cache.Cache[string, failures]
}

// NewThrottle returns an empty throttle within its bounds.
func NewThrottle() *Throttle {
	size := func(k string, _ failures) int64 { return int64(len(k)) + failuresBytes }
	return &Throttle{
		pairs:   cache.New(cache.Config[string, failures]{MaxBytes: maxThrottleBytes, MaxEntries: maxThrottled, Size: size}),
		addrs:   cache.New(cache.Config[string, failures]{MaxBytes: maxThrottleBytes, MaxEntries: maxThrottled, Size: size}),
		unknown: cache.New(cache.Config[string, failures]{MaxBytes: maxThrottleBytes, MaxEntries: maxThrottled, Size: size}),
		known: cache.New(cache.Config[string, struct{}]{MaxBytes: maxKnownBytes, MaxEntries: maxKnown,
			Size: func(k string, _ struct{}) int64 { return int64(len(k)) }}),
	}
}

// attempt is one sign-in's keys.
type attempt struct{ pair, addr string }

func newAttempt(name, remote string) attempt {
	addr := addrkey.Of(remote)
	if len(name) > MaxNameLen { // never a user: the address alone counts it
		return attempt{addr: addr}
	}
	return attempt{pair: name + "\x00" + addr, addr: addr}
}

// until is when a key's failures let it try again (zero: now).
func until(f failures, ok bool, free int, max time.Duration, now time.Time) time.Time {
	if !ok || now.Sub(f.last) >= ForgetAfter {
		return time.Time{}
	}
	return f.last.Add(Backoff(f.n, free, max))
}

// check says until when this attempt is refused, and whether its pair
// signed in before (which the address's and the user's counts spare).
func (t *Throttle) check(a attempt, now time.Time) (retryAt time.Time, known bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if a.pair != "" {
		_, known = t.known.Get(a.pair)
		f, ok := t.pairs.Get(a.pair)
		retryAt = until(f, ok, PairFree, PairMaxWait, now)
	}
	if !known {
		f, ok := t.addrs.Get(a.addr)
		if u := until(f, ok, AddressFree, AddressMaxWait, now); u.After(retryAt) {
			retryAt = u
		}
	}
	if !now.Before(retryAt) {
		retryAt = time.Time{}
	}
	return retryAt, known
}

// fail counts a failed attempt against its pair and its address.
func (t *Throttle) fail(a attempt, now time.Time) {
	t.mu.Lock()
	defer t.mu.Unlock()
	count := func(c *cache.Cache[string, failures], key string) {
		f, ok := c.Get(key)
		if !ok || now.Sub(f.last) >= ForgetAfter {
			f = failures{}
		}
		f.n++
		f.last = now
		c.Put(key, f)
	}
	if a.pair != "" {
		count(t.pairs, a.pair)
	}
	count(t.addrs, a.addr)
}

// succeed resets the pair and remembers it signed in. The address keeps
// its count: signing in as oneself does not forgive guessing at others.
func (t *Throttle) succeed(a attempt) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.pairs.Delete(a.pair)
	t.known.Put(a.pair, struct{}{})
}

// unknownUntil is until when a name no user has is delayed, as a user
// with as many failures since its last success would be (zero: now).
func (t *Throttle) unknownUntil(name string, now time.Time) time.Time {
	t.mu.Lock()
	defer t.mu.Unlock()
	f, ok := t.unknown.Get(name)
	if !ok || !now.Before(f.last) {
		return time.Time{}
	}
	return f.last
}

// failUnknown counts a failure of a name no user has as the store counts
// a user's: its n-th failure delays the name Backoff(n, UserFree,
// UserMaxWait) from now (kept in failures.last).
func (t *Throttle) failUnknown(name string, now time.Time) {
	if len(name) > MaxNameLen {
		return // never a user's name: nothing to hide
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	f, _ := t.unknown.Get(name)
	f.n++
	f.last = now.Add(Backoff(f.n, UserFree, UserMaxWait))
	t.unknown.Put(name, f)
}
