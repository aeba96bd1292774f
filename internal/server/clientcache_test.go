package server

import (
	"context"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/typeward/typeward/internal/clients"
	"github.com/typeward/typeward/internal/store/memory"
	"github.com/typeward/typeward/internal/store/postgres"
	"github.com/typeward/typeward/internal/store/postgres/pgtest"
)

// countingClients counts the Gets that reach the store.
type countingClients struct {
	clients.Store
	gets int
}

func (c *countingClients) Get(ctx context.Context, id string) (*clients.Client, error) {
	c.gets++
	return c.Store.Get(ctx, id)
}

func TestClientCache(t *testing.T) {
	ctx := context.Background()
	store := &countingClients{Store: memory.NewClients()}
	if err := store.Create(ctx, &clients.Client{ID: "a", Name: "a", TokenEndpointAuthMethod: clients.SecretBasic,
		SecretHash: make([]byte, 32), AllowedScopes: []string{"x"}, CreatedAt: time.Now()}); err != nil {
		t.Fatal(err)
	}
	now := time.Unix(1000, 0)
	c := newCachedClients(store)
	c.now = func() time.Time { return now }

	for range 3 {
		got, err := c.Get(ctx, "a")
		if err != nil || got.ID != "a" {
			t.Fatal(got, err)
		}
		got.AllowedScopes[0] = "mutated" // a copy: must not reach the cache
	}
	if store.gets != 1 {
		t.Errorf("%d store reads within the TTL, want 1", store.gets)
	}
	if got, _ := c.Get(ctx, "a"); got.AllowedScopes[0] != "x" {
		t.Errorf("the cache shares memory with a caller: %v", got.AllowedScopes)
	}

	// A change through this replica applies at once.
	if err := c.Disable(ctx, "a"); err != nil {
		t.Fatal(err)
	}
	if got, _ := c.Get(ctx, "a"); !got.Disabled || store.gets != 2 {
		t.Errorf("after Disable: disabled %v, reads %d", got.Disabled, store.gets)
	}
	// Another replica's change applies within the TTL.
	now = now.Add(clientCacheTTL)
	_, _ = c.Get(ctx, "a")
	if store.gets != 3 {
		t.Errorf("an expired entry was served: reads %d", store.gets)
	}
	if _, err := c.Get(ctx, "missing"); err == nil {
		t.Errorf("unknown client found")
	}
}

// TestClientCacheIsBounded: however many clients authenticate, the cache
// holds at most clientCacheEntries within clientCacheBytes.
func TestClientCacheIsBounded(t *testing.T) {
	ctx := context.Background()
	store := memory.NewClients()
	c := newCachedClients(store)
	for i := range clientCacheEntries + 100 {
		id := "client-" + strconv.Itoa(i)
		if err := store.Create(ctx, &clients.Client{ID: id, Name: id, TokenEndpointAuthMethod: clients.SecretBasic,
			SecretHash: make([]byte, 32), AllowedScopes: []string{"x"}, CreatedAt: time.Now()}); err != nil {
			t.Fatal(err)
		}
		if _, err := c.Get(ctx, id); err != nil {
			t.Fatal(err)
		}
	}
	if st := c.entries.Stats(); st.Entries != clientCacheEntries || st.Bytes > clientCacheBytes || st.Evictions != 100 {
		t.Errorf("cache stats %+v", st)
	}
}

// slowFirstRead counts the Gets that reach a real store, and holds the
// first's answer until a second arrives or a moment has passed: misses
// that overlap it would each reach the store.
type slowFirstRead struct {
	clients.Store
	gets    atomic.Int32
	arrived chan struct{}
}

func (s *slowFirstRead) Get(ctx context.Context, id string) (*clients.Client, error) {
	cl, err := s.Store.Get(ctx, id) // held after the read: what it answers may be outdated meanwhile
	if s.gets.Add(1) == 1 {
		select {
		case <-s.arrived:
		case <-time.After(200 * time.Millisecond):
		}
	} else {
		select {
		case s.arrived <- struct{}{}:
		default:
		}
	}
	return cl, err
}

// TestClientCacheReadsOnceForConcurrentMisses: N requests of a client that
// is not cached make one read of the (Postgres) store, and each gets its
// own copy.
func TestClientCacheReadsOnceForConcurrentMisses(t *testing.T) {
	ctx := context.Background()
	db, _ := pgtest.New(t)
	pg := postgres.NewClients(db)
	if err := pg.Create(ctx, &clients.Client{ID: "a", Name: "a", TokenEndpointAuthMethod: clients.SecretBasic,
		SecretHash: make([]byte, 32), AllowedScopes: []string{"x"}, CreatedAt: time.Now()}); err != nil {
		t.Fatal(err)
	}
	store := &slowFirstRead{Store: pg, arrived: make(chan struct{})}
	c := newCachedClients(store)
	const n = 32
	got := make([]*clients.Client, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			cl, err := c.Get(ctx, "a")
			if err != nil {
				t.Error(err)
				return
			}
			got[i] = cl
		})
	}
	wg.Wait()
	if n := store.gets.Load(); n != 1 {
		t.Errorf("%d concurrent misses made %d store reads, want 1", len(got), n)
	}
	for i := range got {
		if got[i] == nil {
			continue
		}
		got[i].AllowedScopes[0] = "mutated " + strconv.Itoa(i)
	}
	if cl, _ := c.Get(ctx, "a"); cl.AllowedScopes[0] != "x" {
		t.Errorf("callers share memory with the cache: %v", cl.AllowedScopes)
	}

	// A change through this replica is seen by the next read even while
	// an older read is still in flight.
	store.gets.Store(0) // the next read is held again
	c.forget("a")
	stale := make(chan *clients.Client)
	go func() { cl, _ := c.Get(ctx, "a"); stale <- cl }()
	for store.gets.Load() == 0 {
		time.Sleep(time.Millisecond)
	}
	if err := c.Disable(ctx, "a"); err != nil {
		t.Fatal(err)
	}
	if cl, err := c.Get(ctx, "a"); err != nil || !cl.Disabled {
		t.Errorf("after Disable: %+v, %v; want the disabled client, not the read in flight", cl, err)
	}
	<-stale
}
