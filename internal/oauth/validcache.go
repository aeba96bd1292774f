package oauth

import (
	"sync"

	"github.com/typeward/typeward/internal/composition"
	"github.com/typeward/typeward/verify"
)

// Bounds of a validation cache. Real deployments run a handful of
// pipelines, each asking for a token every few minutes; the byte bound
// keeps a client sending many large documents from growing the cache
// without limit.
const (
	maxCachedValidations = 4096
	maxCachedKeyBytes    = 32 << 20
)

// validation is a composition's verdict and what every token request for
// it derives from the verdict, computed once. It is shared by concurrent
// requests: read-only.
type validation struct {
	result     *composition.Result
	detail     verify.AuthorizationDetail // the enriched authorization detail
	tools      []string                   // distinct tool names, in the result's order
	issueCodes []string
}

func newValidation(res *composition.Result) *validation {
	v := &validation{result: res, detail: enrich(res)}
	for _, t := range res.Tools {
		if len(v.tools) == 0 || v.tools[len(v.tools)-1] != t.Name { // sorted: repeats are adjacent
			v.tools = append(v.tools, t.Name)
		}
	}
	for _, is := range res.Issues {
		v.issueCodes = append(v.issueCodes, is.Code)
	}
	return v
}

// validationCache remembers validations by the exact bytes they were
// asked for. A validation depends on the document and on the tool versions
// it resolved, so any registry change empties the cache
// (Service.RegistryChanged); documents that reference stored compositions
// are never cached, since those can change without a registry change.
type validationCache struct {
	mu      sync.RWMutex
	entries map[string]*validation
	bytes   int    // of the keys
	gen     uint64 // bumped by every clear
}

// get returns the cached validation, and the generation to hand to put
// after validating on a miss.
func (c *validationCache) get(key string) (*validation, uint64) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return c.entries[key], c.gen
}

// put keeps v unless the registry changed since gen was read: a
// validation that raced with a change may have seen the old tools.
func (c *validationCache) put(key string, v *validation, gen uint64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.gen != gen {
		return
	}
	if c.entries == nil || len(c.entries) >= maxCachedValidations || c.bytes+len(key) > maxCachedKeyBytes {
		c.entries, c.bytes = make(map[string]*validation), 0 // crude but bounded
	}
	c.entries[key] = v
	c.bytes += len(key)
}

func (c *validationCache) clear() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.entries, c.bytes = nil, 0
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
