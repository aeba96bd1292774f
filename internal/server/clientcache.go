package server

import (
	"context"
	"time"

	"golang.org/x/sync/singleflight"

	"github.com/typeward/typeward/internal/cache"
	"github.com/typeward/typeward/internal/clients"
	"github.com/typeward/typeward/internal/grading"
)

// Client cache bounds. A client read from the store is trusted this long:
// a client disabled or changed through another replica keeps
// authenticating here for at most clientCacheTTL. Changes made through
// this replica apply at once.
const (
	clientCacheTTL     = 10 * time.Second
	clientCacheEntries = 10_000
	clientCacheBytes   = 16 << 20 // a client record is well under 1 KiB
	// clientReadTimeout bounds a store read shared by concurrent misses:
	// it runs on none of their contexts, since the first caller leaving
	// must not fail the others.
	clientReadTimeout = 10 * time.Second
)

// cachedClients is a clients.Store whose Get is served from memory for a
// short time: the token endpoint authenticates every request, and a store
// round trip per request would cost more than the rest of the request.
type cachedClients struct {
	clients.Store
	now     func() time.Time
	entries *cache.Cache[string, cachedClient]
	// reads makes concurrent misses for one client one store read: a
	// burst of a cold client's requests (after start, or every TTL) would
	// otherwise each go to the store.
	reads singleflight.Group
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
	if e, ok := c.entries.Get(id); ok && c.now().Before(e.expires) {
		return e.client.Clone(), nil
	}
	read := c.reads.DoChan(id, func() (any, error) {
		now := c.now()
		gen := c.entries.Generation()
		ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), clientReadTimeout)
		defer cancel()
		got, err := c.Store.Get(ctx, id)
		if err != nil {
			return nil, err
		}
		// Not kept when this replica changed a client meanwhile: the read
		// may predate the change.
		c.entries.PutAt(gen, id, cachedClient{client: got, expires: now.Add(clientCacheTTL)})
		return got, nil
	})
	select {
	case r := <-read:
		if r.Err != nil {
			return nil, r.Err
		}
		return r.Val.(*clients.Client).Clone(), nil // shared by every caller of the read and the cache
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// forget drops id's entry and bumps the generation, so that a read racing
// with the change is not cached.
func (c *cachedClients) forget(id string) {
	c.entries.DeleteFunc(func(k string, _ cachedClient) bool { return k == id })
	c.reads.Forget(id) // a Get from now on reads anew, not joining a read begun before the change
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

func (c *cachedClients) SetValidation(ctx context.Context, id string, m grading.Mode) error {
	defer c.forget(id)
	return c.Store.SetValidation(ctx, id, m)
}

func (c *cachedClients) SetDPoPBound(ctx context.Context, id string, bound bool) error {
	defer c.forget(id)
	return c.Store.SetDPoPBound(ctx, id, bound)
}
