// Package cache is typeward's one in-memory cache: a least-recently-used
// map bounded by the bytes its entries account for and by their number.
// Every cache in the server uses it, so that none can grow past its budget
// whatever it is fed, and each reports the same statistics.
package cache

import (
	"sync"
	"sync/atomic"
)

// EntryOverhead is what one entry costs beyond its key and value: the
// map slot, the list links and the bookkeeping, rounded up.
const EntryOverhead = 128

// Config bounds a Cache. MaxBytes is required; MaxEntries is optional
// (0: only bytes bound it).
type Config[K comparable, V any] struct {
	// MaxBytes is the budget for every entry's Size plus EntryOverhead.
	MaxBytes int64
	// MaxEntries caps the count; 0 means no cap beyond MaxBytes.
	MaxEntries int
	// Size is the bytes an entry holds (key and value). Nil: Sizeof of
	// both, which follows pointers and so also counts memory the value
	// shares with others (an overestimate, which keeps the bound safe).
	Size func(K, V) int64
}

// Cache is safe for concurrent use. The zero value is not usable: call New.
type Cache[K comparable, V any] struct {
	maxBytes   int64
	maxEntries int
	size       func(K, V) int64

	mu    sync.Mutex
	items map[K]*entry[K, V]
	head  entry[K, V] // sentinel: head.next is the most recently used
	bytes int64
	gen   uint64

	hits, misses, evictions, rejected atomic.Uint64
}

type entry[K comparable, V any] struct {
	key        K
	value      V
	size       int64
	prev, next *entry[K, V]
}

// Stats are a cache's counters since it was made, and its current size.
type Stats struct {
	Entries                             int
	Bytes, MaxBytes                     int64
	Hits, Misses, Evictions, Rejections uint64
}

// New returns an empty cache. It panics on a non-positive MaxBytes or a
// negative MaxEntries: bounds are constants of the calling code.
func New[K comparable, V any](cfg Config[K, V]) *Cache[K, V] {
	if cfg.MaxBytes <= 0 || cfg.MaxEntries < 0 {
		panic("cache: MaxBytes must be positive and MaxEntries not negative")
	}
	c := &Cache[K, V]{maxBytes: cfg.MaxBytes, maxEntries: cfg.MaxEntries, size: cfg.Size, items: map[K]*entry[K, V]{}}
	if c.size == nil {
		c.size = func(k K, v V) int64 { return Sizeof(k) + Sizeof(v) }
	}
	c.head.prev, c.head.next = &c.head, &c.head
	return c
}

// Get returns the value cached under k, and marks it recently used.
func (c *Cache[K, V]) Get(k K) (V, bool) {
	c.mu.Lock()
	e, ok := c.items[k]
	if ok {
		c.unlink(e)
		c.pushFront(e)
	}
	c.mu.Unlock()
	if !ok {
		c.misses.Add(1)
		var zero V
		return zero, false
	}
	c.hits.Add(1)
	return e.value, true
}

// Generation is bumped by every Clear and DeleteFunc. Read it before
// computing a value to cache and hand it to PutAt: a value computed while
// its inputs were being invalidated is then not kept.
func (c *Cache[K, V]) Generation() uint64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.gen
}

// Put caches v under k, evicting least recently used entries to make room.
// It reports false, caching nothing, when the entry alone exceeds the
// budget.
func (c *Cache[K, V]) Put(k K, v V) bool {
	return c.put(k, v, 0, false)
}

// PutAt is Put unless the generation has moved past gen since it was read.
func (c *Cache[K, V]) PutAt(gen uint64, k K, v V) bool {
	return c.put(k, v, gen, true)
}

func (c *Cache[K, V]) put(k K, v V, gen uint64, checkGen bool) bool {
	size := c.size(k, v) + EntryOverhead // outside the lock: it may walk v
	c.mu.Lock()
	defer c.mu.Unlock()
	if checkGen && c.gen != gen {
		return false
	}
	if old, ok := c.items[k]; ok {
		c.remove(old)
	}
	if size > c.maxBytes {
		c.rejected.Add(1)
		return false
	}
	for c.bytes+size > c.maxBytes || (c.maxEntries > 0 && len(c.items) >= c.maxEntries) {
		c.remove(c.head.prev)
		c.evictions.Add(1)
	}
	e := &entry[K, V]{key: k, value: v, size: size}
	c.items[k] = e
	c.pushFront(e)
	c.bytes += size
	return true
}

// Delete drops k's entry, if any.
func (c *Cache[K, V]) Delete(k K) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.items[k]; ok {
		c.remove(e)
	}
}

// DeleteFunc drops every entry for which drop is true, bumps the
// generation, and says how many it dropped. drop runs under the cache's
// lock: it must not call the cache.
func (c *Cache[K, V]) DeleteFunc(drop func(K, V) bool) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.gen++
	n := 0
	for _, e := range c.items {
		if drop(e.key, e.value) {
			c.remove(e)
			n++
		}
	}
	return n
}

// Clear drops everything and bumps the generation.
func (c *Cache[K, V]) Clear() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.gen++
	clear(c.items)
	c.head.prev, c.head.next = &c.head, &c.head
	c.bytes = 0
}

// Len is the number of entries.
func (c *Cache[K, V]) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.items)
}

// Bytes is what the entries account for, overhead included.
func (c *Cache[K, V]) Bytes() int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.bytes
}

// Stats reads the counters.
func (c *Cache[K, V]) Stats() Stats {
	c.mu.Lock()
	n, b := len(c.items), c.bytes
	c.mu.Unlock()
	return Stats{Entries: n, Bytes: b, MaxBytes: c.maxBytes, Hits: c.hits.Load(), Misses: c.misses.Load(),
		Evictions: c.evictions.Load(), Rejections: c.rejected.Load()}
}

func (c *Cache[K, V]) remove(e *entry[K, V]) {
	c.unlink(e)
	delete(c.items, e.key)
	c.bytes -= e.size
}

func (c *Cache[K, V]) unlink(e *entry[K, V]) {
	e.prev.next, e.next.prev = e.next, e.prev
	e.prev, e.next = nil, nil
}

func (c *Cache[K, V]) pushFront(e *entry[K, V]) {
	e.prev, e.next = &c.head, c.head.next
	c.head.next.prev = e
	c.head.next = e
}
