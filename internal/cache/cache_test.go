package cache

import (
	"fmt"
	"runtime"
	"strings"
	"sync"
	"testing"
)

func strSize(k, v string) int64 { return int64(len(k) + len(v)) }

func TestLRUEvictsLeastRecentlyUsedWithinBytes(t *testing.T) {
	// Room for exactly three entries of 10 bytes each.
	c := New(Config[string, string]{MaxBytes: 3 * (10 + EntryOverhead), Size: strSize})
	for _, k := range []string{"a", "b", "c"} {
		if !c.Put(k, strings.Repeat(k, 9)) {
			t.Fatalf("Put(%s) refused", k)
		}
	}
	if _, ok := c.Get("a"); !ok { // a is now the most recent
		t.Fatal("a missing")
	}
	c.Put("d", strings.Repeat("d", 9))
	if _, ok := c.Get("b"); ok {
		t.Error("b, the least recently used, was kept")
	}
	for _, k := range []string{"a", "c", "d"} {
		if _, ok := c.Get(k); !ok {
			t.Errorf("%s evicted", k)
		}
	}
	st := c.Stats()
	if st.Entries != 3 || st.Bytes != 3*(10+EntryOverhead) || st.Evictions != 1 {
		t.Errorf("stats %+v", st)
	}
}

func TestBoundHoldsForAnyEntrySizes(t *testing.T) {
	const budget = 64 << 10
	c := New(Config[string, string]{MaxBytes: budget, Size: strSize})
	for i := range 2000 {
		v := strings.Repeat("x", (i*7919)%9000)
		c.Put(fmt.Sprint(i), v)
		if b := c.Bytes(); b > budget {
			t.Fatalf("after %d puts the cache holds %d bytes, over %d", i+1, b, budget)
		}
	}
	var sum int64
	for i := range 2000 { // what is held is what is accounted
		if v, ok := c.Get(fmt.Sprint(i)); ok {
			sum += int64(len(fmt.Sprint(i))+len(v)) + EntryOverhead
		}
	}
	if sum != c.Bytes() {
		t.Errorf("entries add up to %d, cache accounts %d", sum, c.Bytes())
	}
}

func TestMaxEntries(t *testing.T) {
	c := New(Config[int, int]{MaxBytes: 1 << 30, MaxEntries: 5})
	for i := range 100 {
		c.Put(i, i)
	}
	if c.Len() != 5 {
		t.Fatalf("len %d, want 5", c.Len())
	}
	if _, ok := c.Get(99); !ok {
		t.Error("the latest entry was evicted")
	}
}

func TestOversizedEntryIsRefusedAndReplacesNothing(t *testing.T) {
	c := New(Config[string, string]{MaxBytes: 1000, Size: strSize})
	c.Put("k", "small")
	if c.Put("k", strings.Repeat("x", 2000)) {
		t.Fatal("an entry larger than the budget was cached")
	}
	if _, ok := c.Get("k"); ok {
		t.Error("the old value of a key whose new value was refused is still served")
	}
	if c.Bytes() != 0 || c.Stats().Rejections != 1 {
		t.Errorf("stats %+v", c.Stats())
	}
}

func TestPutAtDropsValuesComputedAcrossAnInvalidation(t *testing.T) {
	c := New(Config[string, int]{MaxBytes: 1 << 20})
	gen := c.Generation()
	c.Clear()
	if c.PutAt(gen, "k", 1) {
		t.Error("PutAt after Clear kept a stale value")
	}
	gen = c.Generation()
	c.DeleteFunc(func(string, int) bool { return false })
	if c.PutAt(gen, "k", 1) {
		t.Error("PutAt after DeleteFunc kept a stale value")
	}
	gen = c.Generation()
	if !c.PutAt(gen, "k", 1) {
		t.Error("PutAt at the current generation refused")
	}
}

func TestDeleteFuncAndClear(t *testing.T) {
	c := New(Config[int, int]{MaxBytes: 1 << 20})
	for i := range 10 {
		c.Put(i, i)
	}
	if n := c.DeleteFunc(func(k, _ int) bool { return k%2 == 0 }); n != 5 {
		t.Errorf("DeleteFunc dropped %d, want 5", n)
	}
	if _, ok := c.Get(4); ok {
		t.Error("4 kept")
	}
	if _, ok := c.Get(5); !ok {
		t.Error("5 dropped")
	}
	c.Delete(5)
	if _, ok := c.Get(5); ok {
		t.Error("Delete kept 5")
	}
	before := c.Bytes()
	c.Clear()
	if c.Len() != 0 || c.Bytes() != 0 || before == 0 {
		t.Errorf("after Clear: %d entries, %d bytes (before %d)", c.Len(), c.Bytes(), before)
	}
	c.Put(1, 1) // the list is usable after Clear
	if v, ok := c.Get(1); !ok || v != 1 {
		t.Error("Put after Clear lost")
	}
}

func TestConcurrentUseStaysBounded(t *testing.T) {
	const budget = 32 << 10
	c := New(Config[string, string]{MaxBytes: budget, MaxEntries: 50, Size: strSize})
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := range 2000 {
				k := fmt.Sprint(g, "/", i%97)
				if _, ok := c.Get(k); !ok {
					c.Put(k, strings.Repeat("v", i%700))
				}
				if i%500 == 0 {
					c.DeleteFunc(func(k, _ string) bool { return strings.HasPrefix(k, "3/") })
				}
			}
		})
	}
	wg.Wait()
	if st := c.Stats(); st.Bytes > budget || st.Entries > 50 {
		t.Errorf("over its bounds after concurrent use: %+v", st)
	}
}

func TestSizeofCountsWhatIsReachableOnce(t *testing.T) {
	big := strings.Repeat("x", 1<<20)
	type node struct {
		name     string
		children []*node
		attrs    map[string]any
		next     *node
	}
	shared := &node{name: big}
	root := &node{name: "root", children: []*node{shared, shared}, attrs: map[string]any{"a": big, "n": 1}}
	root.next = root // a cycle
	n := Sizeof(root)
	if n < 1<<20 || n > 1<<20+4096 {
		t.Errorf("Sizeof = %d: the 1 MiB string, shared three times, must count once and dominate", n)
	}
	if Sizeof("") != 16 || Sizeof(nil) != 0 {
		t.Errorf("Sizeof(\"\") = %d, Sizeof(nil) = %d", Sizeof(""), Sizeof(nil))
	}
}

// The estimate must not be far below what the heap really holds, or the
// byte bound would be a fiction.
func TestSizeofTracksTheHeap(t *testing.T) {
	type item struct {
		ID    string
		Tags  []string
		Attrs map[string]int
	}
	build := func() []*item {
		out := make([]*item, 2000)
		for i := range out {
			it := &item{ID: fmt.Sprintf("item-%08d", i), Attrs: map[string]int{}}
			for j := range 8 {
				it.Tags = append(it.Tags, fmt.Sprintf("tag-%d-%d", i, j))
				it.Attrs[fmt.Sprintf("attr-%d", j)] = j
			}
			out[i] = it
		}
		return out
	}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	v := build()
	runtime.GC()
	runtime.ReadMemStats(&after)
	heap := int64(after.HeapAlloc) - int64(before.HeapAlloc)
	est := Sizeof(v)
	runtime.KeepAlive(v)
	if est < heap/2 || est > heap*2 {
		t.Errorf("Sizeof = %d for a value that took %d heap bytes", est, heap)
	}
}

func BenchmarkGetHit(b *testing.B) {
	c := New(Config[string, string]{MaxBytes: 1 << 26, Size: strSize})
	keys := make([]string, 1024)
	for i := range keys {
		keys[i] = fmt.Sprintf("composition-%d", i)
		c.Put(keys[i], keys[i])
	}
	b.RunParallel(func(pb *testing.PB) {
		i := 0
		for pb.Next() {
			c.Get(keys[i%len(keys)])
			i++
		}
	})
}

func BenchmarkPutEvicting(b *testing.B) {
	c := New(Config[int, string]{MaxBytes: 1 << 20, Size: func(_ int, v string) int64 { return int64(len(v)) }})
	v := strings.Repeat("x", 1000)
	for i := 0; b.Loop(); i++ {
		c.Put(i, v)
	}
}
