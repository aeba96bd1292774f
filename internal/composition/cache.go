package composition

import (
	"github.com/typeward/typeward/internal/cache"
	"github.com/typeward/typeward/internal/schema"
)

// A Validator's caches memoize pure functions of a schema (keyed by its
// digest) across validations, on internal/cache: each is bounded by the
// bytes its entries hold, so hostile compositions evict old entries instead
// of growing memory. Values are shared and never modified.
const (
	pathCacheBytes  = 8 << 20  // each of the source, target and required-input caches
	synthCacheBytes = 32 << 20 // synthesized schemas
	// schemaBytesPerCanonicalByte charges a synthesized schema for its
	// decoded tree, canonical form and compiled validators: the corpus's
	// schemas hold ~17 heap bytes per canonical byte with their root
	// compiled, ~20 with every subschema compiled.
	schemaBytesPerCanonicalByte = 32
)

// sourceKey and targetKey name a path resolution; the path is in its
// String form (Path holds a slice, so it is not comparable itself).
type (
	sourceKey struct {
		digest, path string
		each         bool
	}
	targetKey struct{ digest, path string }
	synthKey  struct{ digest, fragment string }
)

// newPathCache sizes entries by what they reach (cache.Sizeof).
func newPathCache[K comparable, V any](maxBytes int64) *cache.Cache[K, V] {
	return cache.New(cache.Config[K, V]{MaxBytes: maxBytes})
}

func newSynthCache(maxBytes int64) *cache.Cache[synthKey, *schema.Schema] {
	return cache.New(cache.Config[synthKey, *schema.Schema]{MaxBytes: maxBytes,
		Size: func(k synthKey, s *schema.Schema) int64 {
			return int64(len(k.digest)+len(k.fragment)) + schemaBytesPerCanonicalByte*int64(len(s.Canonical))
		}})
}
