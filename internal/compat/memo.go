package compat

import (
	"slices"
	"sync/atomic"
	"unsafe"

	"github.com/typeward/typeward/internal/cache"
	"github.com/typeward/typeward/internal/verdict"
)

// memoBytes bounds the memo of answered pairs by what its entries hold
// (internal/cache): a stream of novel pairs evicts the least recently used
// answers instead of growing memory.
const memoBytes = 32 << 20

// memoKey is label-free: a digest names a document's content, so two
// registrations of one schema share answers.
type memoKey struct {
	srcDigest, srcPtr string
	tgtDigest, tgtPtr string
}

// memo maps pairs to their verdicts and confirmed findings. A key by value
// keeps a hit free of allocation; each entry also keeps its last rendering,
// because one edge is usually asked about with the same labels again.
type memo struct {
	c *cache.Cache[memoKey, *memoEntry]
}

func newMemo(maxBytes int64) *memo {
	return &memo{c: cache.New(cache.Config[memoKey, *memoEntry]{MaxBytes: maxBytes,
		Size: func(k memoKey, e *memoEntry) int64 {
			return int64(len(k.srcDigest)+len(k.srcPtr)+len(k.tgtDigest)+len(k.tgtPtr)) + e.bytes
		}})}
}

type memoEntry struct {
	verdict  verdict.Verdict
	findings []finding
	// bytes is what the entry is charged: its findings and room for one
	// rendering (allowance); a rendering larger than that is handed out but
	// not kept, so the charge stays true.
	bytes, allowance int64
	last             atomic.Pointer[rendering]
}

// rendering is the Issue list for one pair of labels; it is never handed
// out itself, only copies of it.
type rendering struct {
	srcLabel, tgtLabel string
	issues             []verdict.Issue
}

func (m *memo) get(k memoKey) (*memoEntry, bool) { return m.c.Get(k) }

// put remembers a pair's answer with its first rendering (for opts).
func (m *memo) put(k memoKey, v verdict.Verdict, fs []finding, opts Options) *memoEntry {
	e := &memoEntry{verdict: v, findings: fs}
	if len(fs) > 0 {
		r := &rendering{opts.SourceLabel, opts.TargetLabel, render(fs, opts)}
		// Another pair of labels changes the messages' lengths only: twice
		// the first rendering leaves room for labels of a similar size.
		e.allowance = 2 * renderedBytes(r)
		e.bytes = findingsBytes(fs) + e.allowance
		e.last.Store(r)
	}
	m.c.Put(k, e)
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
	r := &rendering{opts.SourceLabel, opts.TargetLabel, render(e.findings, opts)}
	if renderedBytes(r) <= e.allowance {
		e.last.Store(r)
	}
	return slices.Clone(r.issues)
}

// findingsBytes is what findings hold: cheaper than cache.Sizeof, which
// walks them by reflection; only candidate values are walked. Each finding
// is charged 64 bytes more for allocation rounding, so the estimate stays
// above Sizeof's (a test holds it there).
func findingsBytes(fs []finding) int64 {
	n := int64(unsafe.Sizeof(fs)) + int64(cap(fs))*int64(unsafe.Sizeof(finding{}))
	for _, f := range fs {
		n += 64 + int64(len(f.code)+len(f.srcPtr)+len(f.tgtPtr)+len(f.srcPath)+len(f.tgtPath)+len(f.msg))
		n += int64(cap(f.steps)) * int64(unsafe.Sizeof(step{}))
		for _, st := range f.steps {
			n += int64(len(st.prop))
		}
		n += int64(cap(f.witness)) * int64(unsafe.Sizeof(candidate{}))
		for _, c := range f.witness {
			n += cache.Sizeof(c.value)
		}
		if f.proof != nil {
			n += int64(unsafe.Sizeof(*f.proof)) + int64(len(f.proof.json)+len(f.proof.err.KeywordLocation)+len(f.proof.err.Message))
		}
	}
	return n
}

// renderedBytes is what a rendering holds beyond the findings it shares
// (witness encodings): its labels, issue slice, messages and witness errors.
func renderedBytes(r *rendering) int64 {
	n := int64(unsafe.Sizeof(*r)) + int64(len(r.srcLabel)+len(r.tgtLabel)) +
		int64(cap(r.issues))*int64(unsafe.Sizeof(verdict.Issue{}))
	for _, is := range r.issues {
		n += int64(len(is.Message))
		if is.WitnessError != nil {
			n += int64(unsafe.Sizeof(*is.WitnessError)) + int64(len(is.WitnessError.KeywordLocation)+len(is.WitnessError.Message))
		}
	}
	return n
}
