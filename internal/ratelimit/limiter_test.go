package ratelimit_test

import (
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/typeward/typeward/internal/ratelimit"
)

// clock is a manual clock for the limiter.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

func newLimiter(t testing.TB, rate float64, burst, maxKeys int) (*ratelimit.Limiter, *clock) {
	t.Helper()
	c := &clock{t: time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)}
	l, err := ratelimit.New(ratelimit.Config{Rate: rate, Burst: burst, MaxKeys: maxKeys, Now: c.now})
	if err != nil {
		t.Fatal(err)
	}
	return l, c
}

func TestTokenBucket(t *testing.T) {
	type step struct {
		advance  time.Duration
		key      string
		wantOK   bool
		wantWait time.Duration
	}
	for _, tc := range []struct {
		name  string
		rate  float64
		burst int
		steps []step
	}{
		{"burst then wait for one token", 2, 3, []step{
			{0, "a", true, 0}, {0, "a", true, 0}, {0, "a", true, 0},
			{0, "a", false, 500 * time.Millisecond},
			{200 * time.Millisecond, "a", false, 300 * time.Millisecond},
			{300 * time.Millisecond, "a", true, 0},
			{0, "a", false, 500 * time.Millisecond},
		}},
		{"keys are independent", 1, 1, []step{
			{0, "a", true, 0}, {0, "a", false, time.Second}, {0, "b", true, 0}, {0, "b", false, time.Second},
		}},
		{"refill stops at burst", 10, 2, []step{
			{0, "a", true, 0}, {0, "a", true, 0},
			{time.Hour, "a", true, 0}, {0, "a", true, 0}, {0, "a", false, 100 * time.Millisecond},
		}},
		{"slow rate", 1.0 / 60, 1, []step{
			{0, "a", true, 0}, {0, "a", false, time.Minute}, {59 * time.Second, "a", false, time.Second}, {time.Second, "a", true, 0},
		}},
		{"denials do not consume", 1, 1, []step{
			{0, "a", true, 0}, {0, "a", false, time.Second}, {0, "a", false, time.Second}, {time.Second, "a", true, 0},
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l, c := newLimiter(t, tc.rate, tc.burst, 0)
			for i, s := range tc.steps {
				c.advance(s.advance)
				ok, wait := l.Allow(s.key)
				if ok != s.wantOK || wait != s.wantWait {
					t.Fatalf("step %d (%s): Allow = %v, %v; want %v, %v", i, s.key, ok, wait, s.wantOK, s.wantWait)
				}
			}
		})
	}
}

// MaxBytes bounds the memory whatever the keys' lengths (claimed client
// ids are the caller's choice): long keys hold fewer buckets.
func TestMaxBytesBoundsMemory(t *testing.T) {
	c := &clock{t: time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)}
	const budget = 64 << 10
	l, err := ratelimit.New(ratelimit.Config{Rate: 1, Burst: 1, MaxBytes: budget, Now: c.now})
	if err != nil {
		t.Fatal(err)
	}
	long := strings.Repeat("x", 256)
	for i := range 1000 {
		l.Allow(long + strconv.Itoa(i))
	}
	st := l.Stats()
	if st.Bytes > budget || st.Entries == 0 || st.Entries+int(st.Evictions) != 1000 {
		t.Fatalf("stats %+v after 1000 keys of 256 bytes, want at most %d bytes", st, budget)
	}
	if ok, _ := l.Allow(long + "999"); ok {
		t.Error("the most recent bucket was dropped")
	}
	if ok, _ := l.Allow(long + "0"); !ok {
		t.Error("the oldest bucket was kept past the byte budget")
	}
}

// MaxKeys is a hard bound: the least recently used bucket goes first.
func TestMaxKeysBoundsMemory(t *testing.T) {
	l, _ := newLimiter(t, 1, 1, 3)
	for _, k := range []string{"a", "b", "c"} {
		if ok, _ := l.Allow(k); !ok {
			t.Fatalf("first request of %s denied", k)
		}
	}
	l.Allow("a") // a is now the most recently used (and empty)
	l.Allow("d") // evicts b
	if n := l.Len(); n != 3 {
		t.Fatalf("Len = %d, want 3", n)
	}
	if ok, _ := l.Allow("a"); ok {
		t.Error("a was evicted although it was recently used")
	}
	if ok, _ := l.Allow("b"); !ok {
		t.Error("b was not evicted (its debt should be forgiven)")
	}
}

func TestNewRejectsBadConfig(t *testing.T) {
	for _, tc := range []struct {
		cfg  ratelimit.Config
		want string
	}{
		{ratelimit.Config{Rate: 0, Burst: 1}, "ratelimit: rate 0 must be a positive number of at most 1e9 per second"},
		{ratelimit.Config{Rate: -1, Burst: 1}, "ratelimit: rate -1 must be a positive number of at most 1e9 per second"},
		{ratelimit.Config{Rate: 1, Burst: 0}, "ratelimit: burst 0 must be at least 1, with burst/rate under 100 years"},
		{ratelimit.Config{Rate: 1, Burst: 1, MaxKeys: -1}, "ratelimit: max keys -1 is negative"},
		{ratelimit.Config{Rate: 1, Burst: 1, MaxBytes: -1}, "ratelimit: max bytes -1 is negative"},
	} {
		if _, err := ratelimit.New(tc.cfg); err == nil || err.Error() != tc.want {
			t.Errorf("New(%+v) = %v, want %q", tc.cfg, err, tc.want)
		}
	}
}

func TestRetryAfterSeconds(t *testing.T) {
	for _, tc := range []struct {
		wait time.Duration
		want int
	}{
		{0, 1}, {time.Millisecond, 1}, {time.Second, 1}, {1001 * time.Millisecond, 2}, {time.Minute, 60},
	} {
		if got := ratelimit.RetryAfterSeconds(tc.wait); got != tc.want {
			t.Errorf("RetryAfterSeconds(%v) = %d, want %d", tc.wait, got, tc.want)
		}
	}
}

func TestConcurrentUseAdmitsExactlyTheBurst(t *testing.T) {
	l, _ := newLimiter(t, 1, 50, 0)
	var mu sync.Mutex
	admitted := 0
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 20 {
				if ok, _ := l.Allow("shared"); ok {
					mu.Lock()
					admitted++
					mu.Unlock()
				}
			}
		})
	}
	wg.Wait()
	if admitted != 50 {
		t.Errorf("admitted %d of 160 at a frozen clock, want the burst of 50", admitted)
	}
}

func BenchmarkAllow(b *testing.B) {
	l, err := ratelimit.New(ratelimit.Config{Rate: 1e9, Burst: 1 << 30})
	if err != nil {
		b.Fatal(err)
	}
	keys := make([]string, 1000)
	for i := range keys {
		keys[i] = "client-" + strconv.Itoa(i)
	}
	i := 0
	for b.Loop() {
		l.Allow(keys[i%len(keys)])
		i++
	}
}

// Blocked answers what Allow would, and takes nothing.
func TestBlockedTakesNothing(t *testing.T) {
	l, c := newLimiter(t, 1, 2, 0)
	if blocked, _ := l.Blocked("a"); blocked || l.Len() != 0 {
		t.Fatalf("an unknown key is blocked, or Blocked made a bucket (%d)", l.Len())
	}
	l.Allow("a")
	for range 3 { // asking repeatedly spends nothing
		if blocked, _ := l.Blocked("a"); blocked {
			t.Fatal("blocked with a token left")
		}
	}
	l.Allow("a")
	if blocked, wait := l.Blocked("a"); !blocked || wait != time.Second {
		t.Fatalf("Blocked = %v, %v on an empty bucket; want true, 1s", blocked, wait)
	}
	c.advance(time.Second)
	if ok, _ := l.Allow("a"); !ok {
		t.Error("the token that refilled was taken by Blocked")
	}
}
