package server

import (
	"context"
	"strconv"
	"testing"
	"time"

	"github.com/typeward/typeward/internal/clients"
	"github.com/typeward/typeward/internal/store/memory"
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
