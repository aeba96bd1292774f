package registry

import (
	"context"
	"sync"
	"sync/atomic"
)

// Cache is a read-through Resolver in front of another (a Store): it keeps
// compiled schemas per (name, version asked for) until told that the tool
// changed. Errors are not cached. Keep it current by passing every Change
// to Invalidate (memory.Registry.Watch, postgres.Listener) and call Reset
// when changes may have been missed.
type Cache struct {
	source Resolver

	mu      sync.RWMutex
	entries map[cacheKey]*ResolvedTool
	byTool  map[string]map[cacheKey]struct{} // bare tool name -> its keys
	epoch   uint64                           // bumped by every invalidation

	hits, misses, invalidations, resets atomic.Uint64
}

type cacheKey struct {
	name    string // as asked: bare or qualified
	version int    // as asked: 0 is current
}

// CacheStats are the cache's counters since it was made; the server
// exports them as typeward_registry_cache_*_total.
type CacheStats struct {
	Hits, Misses, Invalidations, Resets uint64
	Entries                             int
}

var _ Resolver = (*Cache)(nil)

// NewCache returns an empty cache over source.
func NewCache(source Resolver) *Cache {
	return &Cache{source: source, entries: map[cacheKey]*ResolvedTool{}, byTool: map[string]map[cacheKey]struct{}{}}
}

// ResolveTool implements Resolver. The result is the caller's to keep; the
// schemas it points to are shared and must not be modified.
func (c *Cache) ResolveTool(ctx context.Context, name string, version int) (*ResolvedTool, error) {
	key := cacheKey{name, version}
	c.mu.RLock()
	rt, ok := c.entries[key]
	epoch := c.epoch
	c.mu.RUnlock()
	if ok {
		c.hits.Add(1)
		clone := *rt
		return &clone, nil
	}
	c.misses.Add(1)
	rt, err := c.source.ResolveTool(ctx, name, version)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	// An invalidation while we were reading may concern what we read: then
	// answer it but do not keep it.
	if c.epoch == epoch {
		c.entries[key] = rt
		keys := c.byTool[rt.Name]
		if keys == nil {
			keys = map[cacheKey]struct{}{}
			c.byTool[rt.Name] = keys
		}
		keys[key] = struct{}{}
	}
	c.mu.Unlock()
	clone := *rt
	return &clone, nil
}

// Invalidate drops every entry for a tool of that bare name, whatever the
// server: a new server's tool can make a bare name ambiguous, and a
// removal can make it resolve elsewhere.
func (c *Cache) Invalidate(change Change) {
	c.invalidations.Add(1)
	c.mu.Lock()
	defer c.mu.Unlock()
	c.epoch++
	for key := range c.byTool[change.Name] {
		delete(c.entries, key)
	}
	delete(c.byTool, change.Name)
}

// Reset drops everything.
func (c *Cache) Reset() {
	c.resets.Add(1)
	c.mu.Lock()
	defer c.mu.Unlock()
	c.epoch++
	c.entries = map[cacheKey]*ResolvedTool{}
	c.byTool = map[string]map[cacheKey]struct{}{}
}

// Stats reads the counters.
func (c *Cache) Stats() CacheStats {
	c.mu.RLock()
	n := len(c.entries)
	c.mu.RUnlock()
	return CacheStats{Hits: c.hits.Load(), Misses: c.misses.Load(), Invalidations: c.invalidations.Load(), Resets: c.resets.Load(), Entries: n}
}
