package oauth

import (
	"sync"

	"github.com/typeward/typeward/internal/approval"
	"github.com/typeward/typeward/internal/cache"
	"github.com/typeward/typeward/internal/composition"
	"github.com/typeward/typeward/verify"
)

// DefaultValidationCacheBytes bounds each validation cache (inline
// documents, stored definitions) by what its entries hold: request text,
// verdict and derived token fields. Real deployments run a handful of
// pipelines; the bound keeps one client sending many large, novel
// documents from growing memory past it.
const DefaultValidationCacheBytes = 32 << 20

// validation is a composition's verdict and what every token request for
// it derives from the verdict, computed once. It is shared by concurrent
// requests: read-only.
type validation struct {
	result     *composition.Result
	detail     verify.AuthorizationDetail // the enriched authorization detail
	tools      []string                   // distinct tool names, in the result's order
	issueCodes []string
	// effects holds, for each of tools, what its annotations say it may do.
	effects []approval.Effect
	edges   int // in the composition as requested, for the metrics
	// generation is the registry generation read before the validation
	// began (Service.RegistryGeneration): its tools are at least that
	// current, and an issuance is recorded only while it still is.
	generation int64
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
// are never cached, since those can change without a registry change. A
// validation that raced with a change is not kept (the cache's
// generation).
type validationCache = cache.Cache[string, *validation]

func newValidationCache(maxBytes int64) *validationCache {
	if maxBytes <= 0 {
		maxBytes = DefaultValidationCacheBytes
	}
	return cache.New(cache.Config[string, *validation]{MaxBytes: maxBytes,
		Size: func(k string, v *validation) int64 { return int64(len(k)) + cache.Sizeof(v) }})
}

// validationCaches are the Service's two caches, made on first use with
// its configured bound.
type validationCaches struct {
	once           sync.Once
	inline, stored *validationCache
}

func (s *Service) caches() *validationCaches {
	s.vc.once.Do(func() {
		s.vc.inline = newValidationCache(s.ValidationCacheBytes)
		s.vc.stored = newValidationCache(s.ValidationCacheBytes)
	})
	return &s.vc
}

// ValidationCacheStats are the two validation caches' statistics.
func (s *Service) ValidationCacheStats() (inline, stored cache.Stats) {
	c := s.caches()
	return c.inline.Stats(), c.stored.Stats()
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
