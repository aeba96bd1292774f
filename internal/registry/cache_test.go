package registry_test

import (
	"context"
	"encoding/json"
	"errors"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/typeward/typeward/internal/registry"
	"github.com/typeward/typeward/internal/store/memory"
)

// countingResolver counts the reads that reach the store.
type countingResolver struct {
	registry.Resolver
	mu    sync.Mutex
	reads int
	// during runs inside a read, after the store answered: a change
	// landing while the cache is filling.
	during func()
}

func (c *countingResolver) ResolveTool(ctx context.Context, name string, version int) (*registry.ResolvedTool, error) {
	c.mu.Lock()
	c.reads++
	during := c.during
	c.during = nil
	c.mu.Unlock()
	rt, err := c.Resolver.ResolveTool(ctx, name, version)
	if during != nil {
		during()
	}
	return rt, err
}

func declareIn(t *testing.T, s *memory.Registry, server, name, input string) {
	t.Helper()
	if _, err := s.DeclareTool(context.Background(), server, registry.Tool{Name: name, InputSchema: json.RawMessage(input)}); err != nil {
		t.Fatal(err)
	}
}

func TestCacheReadsThroughAndInvalidates(t *testing.T) {
	ctx := context.Background()
	store := memory.NewRegistry()
	source := &countingResolver{Resolver: store}
	cache := registry.NewCache(source)
	store.Watch(cache.Invalidate)
	declareIn(t, store, "a", "search", inQ)
	declareIn(t, store, "a", "fetch", inQ)

	for range 3 {
		if rt, err := cache.ResolveTool(ctx, "search", 0); err != nil || rt.Version != 1 {
			t.Fatalf("resolve = %+v, %v", rt, err)
		}
	}
	if _, err := cache.ResolveTool(ctx, "a/fetch", 0); err != nil {
		t.Fatal(err)
	}
	if st := cache.Stats(); st.Hits != 2 || st.Misses != 2 || st.Entries != 2 || source.reads != 2 {
		t.Fatalf("stats %+v after %d store reads, want 2 hits, 2 misses, 2 entries", st, source.reads)
	}

	// A returned tool is a copy: a caller cannot corrupt the cache.
	rt, _ := cache.ResolveTool(ctx, "search", 0)
	rt.Version = 99
	if again, _ := cache.ResolveTool(ctx, "search", 0); again.Version != 1 {
		t.Fatalf("cached entry modified through a returned copy: %+v", again)
	}

	// Another server declaring "search" makes the bare name ambiguous:
	// the change drops every entry of that bare name, not fetch's.
	before := cache.Stats().Invalidations
	declareIn(t, store, "b", "search", inQ)
	if _, err := cache.ResolveTool(ctx, "search", 0); !errors.Is(err, registry.ErrAmbiguous) {
		t.Fatalf("bare name after a second server: %v, want ErrAmbiguous", err)
	}
	if st := cache.Stats(); st.Entries != 1 || st.Invalidations != before+1 {
		t.Fatalf("stats %+v, want fetch alone left and one invalidation", st)
	}
	// Errors are not cached.
	reads := source.reads
	_, _ = cache.ResolveTool(ctx, "search", 0)
	if source.reads != reads+1 {
		t.Error("an error answer was cached")
	}

	cache.Reset()
	if st := cache.Stats(); st.Entries != 0 || st.Resets != 1 {
		t.Fatalf("after Reset %+v", st)
	}
}

func TestCacheDoesNotKeepWhatAChangeRacedWith(t *testing.T) {
	ctx := context.Background()
	store := memory.NewRegistry()
	source := &countingResolver{Resolver: store}
	cache := registry.NewCache(source)
	store.Watch(cache.Invalidate)
	declareIn(t, store, "a", "search", inQ)

	// The store answers version 1, then version 2 lands before the cache
	// stores the answer: the stale answer must not be kept.
	source.during = func() { declareIn(t, store, "a", "search", inQOptional) }
	if rt, err := cache.ResolveTool(ctx, "a/search", 0); err != nil || rt.Version != 1 {
		t.Fatalf("racing read = %+v, %v", rt, err)
	}
	if rt, err := cache.ResolveTool(ctx, "a/search", 0); err != nil || rt.Version != 2 {
		t.Fatalf("next read = %+v, %v; want version 2", rt, err)
	}
}

func TestCacheIsSafeForConcurrentUse(t *testing.T) {
	ctx := context.Background()
	store := memory.NewRegistry()
	cache := registry.NewCache(store)
	store.Watch(cache.Invalidate)
	declareIn(t, store, "a", "search", inQ)
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 200 {
				if i == 0 {
					cache.Invalidate(registry.Change{Server: "a", Name: "search", Version: 1})
				}
				if _, err := cache.ResolveTool(ctx, "search", 0); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	if st := cache.Stats(); st.Hits+st.Misses != 1600 {
		t.Errorf("stats %+v, want 1600 lookups", st)
	}
}

// TestCacheIsBounded: however many tools are resolved, the cache holds no
// more than its budget; the least recently used goes first and is read
// from the store again when asked for.
func TestCacheIsBounded(t *testing.T) {
	ctx := context.Background()
	store := memory.NewRegistry()
	source := &countingResolver{Resolver: store}
	const budget = 16 << 10
	cache := registry.NewBoundedCache(source, budget)
	store.Watch(cache.Invalidate)
	const tools = 200
	for i := range tools {
		declareIn(t, store, "a", "tool"+strconv.Itoa(i), inQ)
	}
	for i := range tools {
		if _, err := cache.ResolveTool(ctx, "a/tool"+strconv.Itoa(i), 0); err != nil {
			t.Fatal(err)
		}
	}
	st := cache.Stats()
	if st.Bytes > budget || st.Evictions == 0 || st.Entries == 0 || st.Entries+int(st.Evictions) != tools {
		t.Fatalf("stats %+v after %d tools, want at most %d bytes and the rest evicted", st, tools, budget)
	}
	reads := source.reads
	if _, err := cache.ResolveTool(ctx, "a/tool"+strconv.Itoa(tools-1), 0); err != nil || source.reads != reads {
		t.Errorf("the most recent tool was not kept (%d store reads, %v)", source.reads-reads, err)
	}
	if _, err := cache.ResolveTool(ctx, "a/tool0", 0); err != nil || source.reads != reads+1 {
		t.Errorf("the first tool was not evicted (%d store reads, %v)", source.reads-reads, err)
	}
}

// TestCacheReadsOnceForConcurrentMisses: N requests missing the same tool
// at once (as every request in flight does after a change) make one store
// read and one compilation; each gets its own copy.
func TestCacheReadsOnceForConcurrentMisses(t *testing.T) {
	ctx := context.Background()
	store := memory.NewRegistry()
	declareIn(t, store, "a", "search", inQ)
	arrived := make(chan struct{})
	source := &countingResolver{Resolver: store}
	// The first read is held until a second one arrives (or a moment
	// passes): misses overlapping it would each reach the store.
	source.during = func() {
		select {
		case <-arrived:
		case <-time.After(200 * time.Millisecond):
		}
	}
	held := &arrivals{countingResolver: source, arrived: arrived}
	cache := registry.NewCache(held)
	store.Watch(cache.Invalidate)
	const n = 32
	var wg sync.WaitGroup
	got := make([]*registry.ResolvedTool, n)
	for i := range n {
		wg.Go(func() {
			rt, err := cache.ResolveTool(ctx, "a/search", 0)
			if err != nil {
				t.Error(err)
				return
			}
			got[i] = rt
		})
	}
	wg.Wait()
	if source.reads != 1 {
		t.Errorf("%d concurrent misses made %d store reads, want 1", n, source.reads)
	}
	got[0].Version = 99
	if rt, _ := cache.ResolveTool(ctx, "a/search", 0); rt.Version != 1 {
		t.Errorf("callers share the cached entry: %+v", rt)
	}
}

// arrivals signals, on every read after the first, that another read
// reached the store.
type arrivals struct {
	*countingResolver
	arrived chan struct{}
	n       atomic.Int32
}

func (a *arrivals) ResolveTool(ctx context.Context, name string, version int) (*registry.ResolvedTool, error) {
	if a.n.Add(1) > 1 {
		select {
		case a.arrived <- struct{}{}:
		default:
		}
	}
	return a.countingResolver.ResolveTool(ctx, name, version)
}
