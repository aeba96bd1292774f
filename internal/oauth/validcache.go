package oauth

import (
	"sync"

	"github.com/typeward/typeward/internal/composition"
)

// maxCachedValidations bounds the validation cache. Real deployments run a
// handful of pipelines, each asking for a token every few minutes.
const maxCachedValidations = 4096

// validationCache remembers the validation of a composition document by
// its exact bytes. A validation depends on the document and on the tool
// versions it resolved, so any registry change empties the cache
// (Service.RegistryChanged); documents that reference stored compositions
// are never cached, since those can change without a registry change.
type validationCache struct {
	mu      sync.RWMutex
	entries map[string]*composition.Result
	gen     uint64 // bumped by every clear
}

// get returns the cached validation, and the generation to hand to put
// after validating on a miss.
func (c *validationCache) get(doc []byte) (*composition.Result, uint64) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return c.entries[string(doc)], c.gen
}

// put keeps r unless the registry changed since gen was read: a
// validation that raced with a change may have seen the old tools.
func (c *validationCache) put(doc []byte, r *composition.Result, gen uint64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.gen != gen {
		return
	}
	if c.entries == nil || len(c.entries) >= maxCachedValidations {
		c.entries = make(map[string]*composition.Result) // crude but bounded
	}
	c.entries[string(doc)] = r
}

func (c *validationCache) clear() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.entries = nil
	c.gen++
}

// cacheable reports whether a parsed composition's validation depends only
// on its bytes and the registry.
func cacheable(c *composition.Composition) bool {
	for _, n := range c.Nodes {
		if n.Composition != "" {
			return false
		}
	}
	return true
}
