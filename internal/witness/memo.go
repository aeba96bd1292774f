package witness

import "github.com/typeward/typeward/internal/cache"

// entry is one remembered outcome.
type entry struct {
	found Found
	ok    bool
}

// memo remembers outcomes by pair in the shared bounded cache; a nil memo
// (memoBytes <= 0) remembers nothing.
type memo struct {
	c *cache.Cache[string, entry]
}

func newMemo(maxBytes int64) *memo {
	if maxBytes <= 0 {
		return &memo{}
	}
	// Sizeof follows the value and the validator's error: an overestimate,
	// which keeps the bound safe.
	return &memo{c: cache.New(cache.Config[string, entry]{MaxBytes: maxBytes})}
}

func (m *memo) get(key string) (entry, bool) {
	if m.c == nil {
		return entry{}, false
	}
	return m.c.Get(key)
}

func (m *memo) put(key string, e entry) {
	if m.c != nil {
		m.c.Put(key, e)
	}
}
