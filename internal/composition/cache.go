package composition

import "sync"

// maxCached bounds each cache of a Validator: a server validating hostile
// compositions must not grow one without end, so a full cache starts over.
const maxCached = 4096

// boundedCache memoizes pure functions of a schema (keyed by its digest)
// across validations. Values are shared and never modified.
type boundedCache[V any] struct {
	mu sync.Mutex
	m  map[string]V
}

func (c *boundedCache[V]) get(key string) (V, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	v, ok := c.m[key]
	return v, ok
}

func (c *boundedCache[V]) put(key string, v V) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil || len(c.m) >= maxCached {
		c.m = make(map[string]V)
	}
	c.m[key] = v
}
