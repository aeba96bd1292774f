package server

import (
	"context"
	"time"

	"github.com/typeward/typeward/internal/cache"
	"github.com/typeward/typeward/internal/clients"
	"github.com/typeward/typeward/internal/policy"
)

// Client cache bounds. A client read from the store is trusted this long:
// a client disabled or changed through another replica keeps
// authenticating here for at most clientCacheTTL. Changes made through
// this replica apply at once.
const (
	clientCacheTTL     = 10 * time.Second
	clientCacheEntries = 10_000
	clientCacheBytes   = 16 << 20 // a client record is well under 1 KiB
)

// cachedClients is a clients.Store whose Get is served from memory for a
// short time: the token endpoint authenticates every request, and a store
// round trip per request would cost more than the rest of the request.
type cachedClients struct {
	clients.Store
	now     func() time.Time
	entries *cache.Cache[string, cachedClient]
}

type cachedClient struct {
	client  *clients.Client
	expires time.Time
}

func newCachedClients(s clients.Store) *cachedClients {
	return &cachedClients{Store: s, now: time.Now, entries: cache.New(cache.Config[string, cachedClient]{
		MaxBytes: clientCacheBytes, MaxEntries: clientCacheEntries})}
}

// Get returns a copy the caller may modify, like every Store.
func (c *cachedClients) Get(ctx context.Context, id string) (*clients.Client, error) {
	now := c.now()
	gen := c.entries.Generation()
	e, ok := c.entries.Get(id)
	if ok && now.Before(e.expires) {
		return e.client.Clone(), nil
	}
	got, err := c.Store.Get(ctx, id)
	if err != nil {
		return nil, err
	}
	// Not kept when this replica changed a client meanwhile: the read
	// may predate the change.
	c.entries.PutAt(gen, id, cachedClient{client: got.Clone(), expires: now.Add(clientCacheTTL)})
	return got, nil
}

// forget drops id's entry and bumps the generation, so that a read racing
// with the change is not cached.
func (c *cachedClients) forget(id string) {
	c.entries.DeleteFunc(func(k string, _ cachedClient) bool { return k == id })
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

func (c *cachedClients) SetValidation(ctx context.Context, id string, m policy.Mode) error {
	defer c.forget(id)
	return c.Store.SetValidation(ctx, id, m)
}
