package users_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/typeward/typeward/internal/store/memory"
	"github.com/typeward/typeward/internal/users"
)

const (
	name     = "alice"
	password = "correct horse battery staple"
)

var epoch = time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)

type signIns struct {
	t     *testing.T
	store *memory.Users
	th    *users.Throttle
}

func newSignIns(t *testing.T) *signIns {
	t.Helper()
	s := &signIns{t: t, store: memory.NewUsers(), th: users.NewThrottle()}
	if err := users.Add(context.Background(), s.store, name, password, users.Approver, epoch); err != nil {
		t.Fatal(err)
	}
	return s
}

// try signs in and returns nil, ErrBadCredentials or a *ThrottledError.
func (s *signIns) try(user, pw, remote string, now time.Time) error {
	_, _, err := users.SignIn(context.Background(), s.store, s.th, user, pw, remote, now)
	var te *users.ThrottledError
	if err != nil && !errors.Is(err, users.ErrBadCredentials) && !errors.As(err, &te) {
		s.t.Fatalf("sign-in %s from %s: %v", user, remote, err)
	}
	return err
}

func throttled(err error) (time.Duration, bool) {
	var te *users.ThrottledError
	if errors.As(err, &te) {
		return te.RetryAt.Sub(epoch), true
	}
	return 0, false
}

// TestFailuresFromOneAddressDoNotLockOutAnother: the reported lockout.
// Twelve wrong passwords for alice from one address get that address
// 429s; alice's correct password from another address signs her in (it
// got 429 when the backoff was per user whatever the address). Another
// address of the attacker's IPv6 /64 is the same address.
func TestFailuresFromOneAddressDoNotLockOutAnother(t *testing.T) {
	s := newSignIns(t)
	limited := 0
	for i := range 12 {
		err := s.try(name, "wrong password "+fmt.Sprint(i), "203.0.113.7:4000", epoch)
		if _, ok := throttled(err); ok {
			limited++
		} else if !errors.Is(err, users.ErrBadCredentials) {
			t.Fatalf("failure %d: %v", i, err)
		}
	}
	if limited != 12-users.PairFree {
		t.Errorf("%d of 12 failures from one address were throttled, want %d", limited, 12-users.PairFree)
	}
	if err := s.try(name, password, "203.0.113.7:4001", epoch); err == nil {
		t.Errorf("the guessing address signed in while throttled")
	} else if wait, ok := throttled(err); !ok || wait <= 0 {
		t.Errorf("the guessing address with the right password: %v, want throttled", err)
	}
	if err := s.try(name, password, "198.51.100.1:5000", epoch); err != nil {
		t.Fatalf("alice from her own address after 12 failures elsewhere: %v", err)
	}

	for i := range users.PairFree {
		_ = s.try(name, "wrong", fmt.Sprintf("[2001:db8:1:2::%x]:443", i+1), epoch)
	}
	if _, ok := throttled(s.try(name, password, "[2001:db8:1:2::ffff]:443", epoch)); !ok {
		t.Errorf("another address of the same IPv6 /64 was not throttled")
	}
	if err := s.try(name, password, "[2001:db8:1:3::1]:443", epoch); err != nil {
		t.Errorf("the next /64: %v", err)
	}
}

// TestSignInBackoffPerPair: after PairFree failures the pair waits 1 s,
// doubling, up to PairMaxWait; waiting it out allows one more try; a
// success resets the pair; failures are forgotten after ForgetAfter.
func TestSignInBackoffPerPair(t *testing.T) {
	s := newSignIns(t)
	const from = "192.0.2.1:1"
	now := epoch
	for i := range users.PairFree {
		if err := s.try(name, "wrong", from, now); !errors.Is(err, users.ErrBadCredentials) {
			t.Fatalf("free failure %d: %v", i, err)
		}
	}
	want := time.Second
	for range 14 {
		err := s.try(name, "wrong", from, now)
		var te *users.ThrottledError
		if !errors.As(err, &te) || te.RetryAt.Sub(now) != want {
			t.Fatalf("at %v: %v, want to wait %v", now.Sub(epoch), err, want)
		}
		now = te.RetryAt
		if err := s.try(name, "wrong", from, now); !errors.Is(err, users.ErrBadCredentials) {
			t.Fatalf("after the wait: %v", err)
		}
		want = min(2*want, users.PairMaxWait)
	}
	if want != users.PairMaxWait {
		t.Errorf("the wait grew to %v, want it capped at %v", want, users.PairMaxWait)
	}
	now = now.Add(users.PairMaxWait)
	if err := s.try(name, password, from, now); err != nil {
		t.Fatalf("right password after the wait: %v", err)
	}
	for i := range users.PairFree {
		if err := s.try(name, "wrong", from, now); !errors.Is(err, users.ErrBadCredentials) {
			t.Fatalf("failure %d after the success reset the pair: %v", i, err)
		}
	}
	if _, ok := throttled(s.try(name, "wrong", from, now)); !ok {
		t.Errorf("not throttled after %d failures", users.PairFree)
	}
	if err := s.try(name, "wrong", from, now.Add(users.ForgetAfter)); !errors.Is(err, users.ErrBadCredentials) {
		t.Errorf("after %v quiet: %v, want the failures forgotten", users.ForgetAfter, err)
	}
}

// TestSignInThrottlePerAddress: an address spraying names (real or not)
// is throttled after AddressFree failures for every name, unknown ones as
// known ones (a 429 does not tell which names exist), except a name it
// signed in as before; other addresses are not affected.
func TestSignInThrottlePerAddress(t *testing.T) {
	s := newSignIns(t)
	const nat = "198.51.100.9:1"
	if err := s.try(name, password, nat, epoch); err != nil { // alice signs in behind the NAT
		t.Fatal(err)
	}
	for i := range users.AddressFree {
		if err := s.try(fmt.Sprintf("user%d", i), "guess", nat, epoch); !errors.Is(err, users.ErrBadCredentials) {
			t.Fatalf("spray %d: %v", i, err)
		}
	}
	for _, who := range []string{"nobody", "user0"} {
		if wait, ok := throttled(s.try(who, "guess", nat, epoch)); !ok || wait != time.Second {
			t.Errorf("%s from the spraying address: wait %v, %v; want 1 s", who, wait, ok)
		}
	}
	if err := s.try(name, password, nat, epoch); err != nil {
		t.Errorf("alice, who signed in from the address before: %v", err)
	}
	if err := s.try("nobody", "guess", "192.0.2.77:1", epoch); !errors.Is(err, users.ErrBadCredentials) {
		t.Errorf("another address: %v", err)
	}
	long := string(make([]byte, 10_000))
	if _, ok := throttled(s.try(long, "guess", nat, epoch)); !ok {
		t.Errorf("an overlong name from the spraying address was not throttled")
	}
}

// TestSignInDistributedGuessingIsAShortDelay: guesses at alice spread
// over many addresses, each under its own limits, reach the per-user cap
// after UserFree: alice from a new address then waits, never more than
// UserMaxWait; from an address she signed in from she is not held at all.
func TestSignInDistributedGuessingIsAShortDelay(t *testing.T) {
	s := newSignIns(t)
	const home = "192.0.2.10:1"
	if err := s.try(name, password, home, epoch); err != nil {
		t.Fatal(err)
	}
	now := epoch
	for i := range 200 {
		now = now.Add(time.Millisecond)
		_ = s.try(name, "guess", fmt.Sprintf("203.0.%d.%d:1", i/250, i%250), now)
	}
	u, _ := s.store.Get(context.Background(), name)
	if u.FailedSignIns < users.UserFree {
		t.Fatalf("%d failures counted for alice, want at least %d", u.FailedSignIns, users.UserFree)
	}
	err := s.try(name, password, "198.51.100.200:1", now)
	var te *users.ThrottledError
	if !errors.As(err, &te) {
		t.Fatalf("alice from a new address under distributed guessing: %v, want a short delay", err)
	}
	if wait := te.RetryAt.Sub(now); wait <= 0 || wait > users.UserMaxWait {
		t.Errorf("the per-user delay is %v, want at most %v", wait, users.UserMaxWait)
	}
	if err := s.try(name, password, "198.51.100.200:1", te.RetryAt); err != nil {
		t.Errorf("alice after the short delay: %v", err)
	}
	if u, _ := s.store.Get(context.Background(), name); u.FailedSignIns != 0 {
		t.Errorf("a success left %d failures", u.FailedSignIns)
	}
	for i := range 200 {
		_ = s.try(name, "guess", fmt.Sprintf("203.1.%d.%d:1", i/250, i%250), now)
	}
	if err := s.try(name, password, home, now); err != nil {
		t.Errorf("alice from her own address under distributed guessing: %v", err)
	}
}
