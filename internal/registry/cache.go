package registry

import (
	"context"
	"strconv"
	"sync/atomic"
	"time"

	"golang.org/x/sync/singleflight"

	"github.com/typeward/typeward/internal/cache"
)

// DefaultCacheBytes bounds a Cache made by NewCache: thousands of tools
// with schemas of a few KiB each.
const DefaultCacheBytes = 64 << 20

// resolveTimeout bounds a store read shared by concurrent misses: it runs
// on none of their contexts, since the first caller leaving must not fail
// the others.
const resolveTimeout = 10 * time.Second

// Cache is a read-through Resolver in front of another (a Store): it keeps
// compiled schemas per (name, version asked for) until told that the tool
// changed, within a budget of bytes (least recently used first out).
// Errors are not cached. Keep it current by passing every Change to
// Invalidate (memory.Registry.Watch, postgres.Listener) and call Reset
// when changes may have been missed.
type Cache struct {
	source  Resolver
	entries *cache.Cache[cacheKey, *ResolvedTool]
	// reads makes concurrent misses for one name and version one read and
	// one compilation: after a change, every request in flight misses.
	reads singleflight.Group

	invalidations, resets atomic.Uint64
}

type cacheKey struct {
	name    string // as asked: bare or qualified
	version int    // as asked: 0 is current
}

// CacheStats are the cache's counters since it was made; the server
// exports them as typeward_registry_cache_*_total.
type CacheStats struct {
	Hits, Misses, Invalidations, Resets, Evictions uint64
	Entries                                        int
	Bytes                                          int64
}

var _ Resolver = (*Cache)(nil)

// NewCache returns an empty cache over source bounded by DefaultCacheBytes.
func NewCache(source Resolver) *Cache { return NewBoundedCache(source, DefaultCacheBytes) }

// NewBoundedCache returns an empty cache over source holding at most
// maxBytes (which must be positive) of accounted entries.
func NewBoundedCache(source Resolver, maxBytes int64) *Cache {
	return &Cache{source: source, entries: cache.New(cache.Config[cacheKey, *ResolvedTool]{
		MaxBytes: maxBytes, Size: resolvedSize})}
}

// resolvedSize accounts an entry by its schemas' canonical text: schemas
// compile lazily, so walking them when cached would miss what they grow
// to; compiled, they take several times their text, and 8x keeps the
// bound on the safe side.
func resolvedSize(k cacheKey, rt *ResolvedTool) int64 {
	n := int64(len(k.name) + len(rt.Server) + len(rt.Name) + len(rt.Digest))
	if rt.Input != nil {
		n += 8 * int64(len(rt.Input.Canonical))
	}
	if rt.Output != nil {
		n += 8 * int64(len(rt.Output.Canonical))
	}
	return n
}

// ResolveTool implements Resolver. The result is the caller's to keep; the
// schemas it points to are shared and must not be modified.
func (c *Cache) ResolveTool(ctx context.Context, name string, version int) (*ResolvedTool, error) {
	key := cacheKey{name, version}
	gen := c.entries.Generation()
	if rt, ok := c.entries.Get(key); ok {
		clone := *rt
		return &clone, nil
	}
	// The generation is part of the flight's key: a caller that comes
	// after an invalidation never joins a read begun before it.
	flight := strconv.FormatUint(gen, 10) + "\x00" + strconv.Itoa(version) + "\x00" + name
	read := c.reads.DoChan(flight, func() (any, error) {
		ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), resolveTimeout)
		defer cancel()
		rt, err := c.source.ResolveTool(ctx, name, version)
		if err != nil {
			return nil, err
		}
		// An invalidation while we were reading may concern what we read:
		// then answer it but do not keep it.
		c.entries.PutAt(gen, key, rt)
		return rt, nil
	})
	select {
	case r := <-read:
		if r.Err != nil {
			return nil, r.Err
		}
		clone := *r.Val.(*ResolvedTool)
		return &clone, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// Invalidate drops every entry for a tool of that bare name, whatever the
// server: a new server's tool can make a bare name ambiguous, and a
// removal can make it resolve elsewhere.
func (c *Cache) Invalidate(change Change) {
	c.invalidations.Add(1)
	c.entries.DeleteFunc(func(_ cacheKey, rt *ResolvedTool) bool { return rt.Name == change.Name })
}

// Reset drops everything.
func (c *Cache) Reset() {
	c.resets.Add(1)
	c.entries.Clear()
}

// Stats reads the counters.
func (c *Cache) Stats() CacheStats {
	st := c.entries.Stats()
	return CacheStats{Hits: st.Hits, Misses: st.Misses, Invalidations: c.invalidations.Load(), Resets: c.resets.Load(),
		Evictions: st.Evictions, Entries: st.Entries, Bytes: st.Bytes}
}
