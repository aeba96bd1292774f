package compat

import (
	"regexp"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/typeward/typeward/internal/cache"
	"github.com/typeward/typeward/internal/verdict"
)

// maxMemoEntries caps the memo; a registry has far fewer distinct
// field pairs, and the cap keeps a stream of novel pairs from growing
// memory without bound.
const maxMemoEntries = 1 << 16

// memoKey is label-free: a digest names a document's content, so two
// registrations of one schema share answers.
type memoKey struct {
	srcDigest, srcPtr string
	tgtDigest, tgtPtr string
}

// memo maps pairs to their verdicts and confirmed findings. A read lock and a map keyed by value
// keep a hit free of allocation; each entry also keeps its last rendering,
// because one edge is usually asked about with the same labels again.
type memo struct {
	mu      sync.RWMutex
	entries map[memoKey]*memoEntry
}

type memoEntry struct {
	verdict  verdict.Verdict
	findings []finding
	last     atomic.Pointer[rendering]
}

// rendering is the Issue list for one pair of labels; it is never handed
// out itself, only copies of it.
type rendering struct {
	srcLabel, tgtLabel string
	issues             []verdict.Issue
}

func (m *memo) get(k memoKey) (*memoEntry, bool) {
	m.mu.RLock()
	e, ok := m.entries[k]
	m.mu.RUnlock()
	return e, ok
}

func (m *memo) put(k memoKey, v verdict.Verdict, fs []finding) *memoEntry {
	e := &memoEntry{verdict: v, findings: fs}
	m.mu.Lock()
	if len(m.entries) >= maxMemoEntries {
		// Crude but bounded: start over rather than track recency.
		clear(m.entries)
	}
	m.entries[k] = e
	m.mu.Unlock()
	return e
}

// issues renders the entry for opts, reusing the last rendering when the
// labels match. The caller gets its own slice.
func (e *memoEntry) issues(opts Options) []verdict.Issue {
	if len(e.findings) == 0 {
		return nil
	}
	if r := e.last.Load(); r != nil && r.srcLabel == opts.SourceLabel && r.tgtLabel == opts.TargetLabel {
		return slices.Clone(r.issues)
	}
	out := render(e.findings, opts)
	e.last.Store(&rendering{opts.SourceLabel, opts.TargetLabel, out})
	return slices.Clone(out)
}

// regexpCache compiles each pattern once. JSON Schema patterns are matched
// unanchored, as Go's MatchString does. The loader has compiled every
// pattern already; a nil entry (a pattern Go's engine refuses) is kept as a
// guard, and callers treat it soundly: cannot_prove on the target, a
// dropped constraint on the source.
//
// It is bounded by size like every cache: a compiled program grows with its
// pattern, so an entry is charged a multiple of the pattern's length.
type regexpCache struct {
	c *cache.Cache[string, *regexp.Regexp] // nil value: does not compile
}

const regexpCacheBytes = 8 << 20

func newRegexpCache() *regexpCache {
	return &regexpCache{c: cache.New(cache.Config[string, *regexp.Regexp]{MaxBytes: regexpCacheBytes,
		Size: func(pattern string, _ *regexp.Regexp) int64 { return 512 + 64*int64(len(pattern)) }})}
}

func (c *regexpCache) get(pattern string) *regexp.Regexp {
	if re, ok := c.c.Get(pattern); ok {
		return re
	}
	re, _ := regexp.Compile(pattern) // nil on error
	c.c.Put(pattern, re)
	return re
}
