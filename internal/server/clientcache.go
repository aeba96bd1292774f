package server

import (
	"context"
	"sync"
	"time"

	"github.com/typeward/typeward/internal/clients"
)

// Client cache bounds. A client read from the store is trusted this long:
// a client disabled or changed through another replica keeps
// authenticating here for at most clientCacheTTL. Changes made through
// this replica apply at once.
const (
	clientCacheTTL     = 10 * time.Second
	clientCacheEntries = 10_000
)

// cachedClients is a clients.Store whose Get is served from memory for a
// short time: the token endpoint authenticates every request, and a store
// round trip per request would cost more than the rest of the request.
type cachedClients struct {
	clients.Store
	now func() time.Time

	mu      sync.Mutex
	entries map[string]cachedClient
}

type cachedClient struct {
	client  *clients.Client
	expires time.Time
}

func newCachedClients(s clients.Store) *cachedClients {
	return &cachedClients{Store: s, now: time.Now, entries: map[string]cachedClient{}}
}

// Get returns a copy the caller may modify, like every Store.
func (c *cachedClients) Get(ctx context.Context, id string) (*clients.Client, error) {
	now := c.now()
	c.mu.Lock()
	e, ok := c.entries[id]
	c.mu.Unlock()
	if ok && now.Before(e.expires) {
		return e.client.Clone(), nil
	}
	got, err := c.Store.Get(ctx, id)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	if len(c.entries) >= clientCacheEntries {
		c.entries = map[string]cachedClient{} // crude but bounded; refills in one TTL
	}
	c.entries[id] = cachedClient{client: got.Clone(), expires: now.Add(clientCacheTTL)}
	c.mu.Unlock()
	return got, nil
}

func (c *cachedClients) forget(id string) {
	c.mu.Lock()
	delete(c.entries, id)
	c.mu.Unlock()
}

func (c *cachedClients) Update(ctx context.Context, cl *clients.Client) error {
	defer c.forget(cl.ID)
	return c.Store.Update(ctx, cl)
}

func (c *cachedClients) Disable(ctx context.Context, id string) error {
	defer c.forget(id)
	return c.Store.Disable(ctx, id)
}

func (c *cachedClients) SetApproval(ctx context.Context, id string, a clients.Approval) error {
	defer c.forget(id)
	return c.Store.SetApproval(ctx, id, a)
}
