// Package witness searches for a concrete JSON value that one subschema
// accepts and another rejects, judged by the real validator. It turns "the
// checker cannot prove this edge" into a proven incompatibility with a
// counterexample, and it is the only way a refusal gets its witness.
//
// Candidates are built from the source subschema (its const and enum, bounds
// and their neighbours, multipleOf steps, strings generated from its pattern,
// formats' canonical examples, required-only and maximal objects, extra
// properties, tuples, duplicates …), then mutated. A candidate counts only if
// the source's validator accepts it; the first the target's validator rejects
// is the witness. The search is deterministic (its PRNG is seeded from the
// pair), bounded in candidates and time, and memoized by the pair.
package witness

import (
	"errors"
	"hash/fnv"
	"math/rand/v2"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/typeward/typeward/internal/schema"
)

// Side is a subschema inside a loaded document ("" is the root).
type Side struct {
	Schema  *schema.Schema
	Pointer string
}

// Budget bounds one Search: candidates tried against the target, and time.
// A zero field takes its default.
type Budget struct {
	Candidates int
	Time       time.Duration
}

// Defaults for a zero Budget field.
const (
	DefaultCandidates = 512
	DefaultTime       = 50 * time.Millisecond
)

// MaxValueBytes bounds the JSON encoding of any generated value, so that a
// witness stays readable in a 403 body and generation stays cheap.
const MaxValueBytes = 512

// Found is a witness: Value is accepted by the source and rejected by the
// target, whose validator's error is Rejection.
type Found struct {
	Value     any
	Rejection error
}

// Searcher runs searches under one budget and remembers their outcomes in a
// memo bounded by size. It is safe for concurrent use.
type Searcher struct {
	budget Budget
	memo   *memo
}

// NewSearcher returns a searcher whose memo holds at most memoBytes (an
// estimate of keys, values and errors); memoBytes <= 0 disables the memo.
func NewSearcher(b Budget, memoBytes int64) *Searcher {
	if b.Candidates <= 0 {
		b.Candidates = DefaultCandidates
	}
	if b.Time <= 0 {
		b.Time = DefaultTime
	}
	return &Searcher{budget: b, memo: newMemo(memoBytes)}
}

// Search looks for a value src accepts and tgt rejects. It reports false when
// none was found within the budget (which proves nothing).
func (s *Searcher) Search(src, tgt Side) (Found, bool) {
	f, ok, _ := s.search(src, tgt)
	return f, ok
}

// stats says how much one search did; tests bound it.
type stats struct {
	tried     int  // candidates validated against the source
	accepted  int  // of which the source accepted
	steps     int  // generation work, inner validations included
	timedOut  bool // the time budget ran out
	memoized  bool // the answer came from the memo
	exhausted bool // the generators had nothing more to offer
}

func (s *Searcher) search(src, tgt Side) (Found, bool, stats) {
	if src.Schema == nil || tgt.Schema == nil {
		return Found{}, false, stats{}
	}
	key := memoKey(src, tgt)
	if e, ok := s.memo.get(key); ok {
		return e.found, e.ok, stats{memoized: true}
	}
	r := &run{
		src:      src,
		tgt:      tgt,
		budget:   s.budget,
		deadline: time.Now().Add(s.budget.Time),
		seen:     map[string]bool{},
	}
	h := fnv.New64a()
	h.Write([]byte(key))
	seed := h.Sum64()
	r.gen = newGenerator(src.Schema, rand.New(rand.NewPCG(seed, seed>>1|1)), r)
	r.gen.hints = targetHints(tgt)
	r.search()
	st := stats{tried: r.tried, accepted: r.accepted, steps: r.gen.steps, timedOut: r.timedOut, exhausted: r.exhausted}
	// A search cut short by the clock might succeed another time: only a
	// deterministic outcome is remembered.
	if r.found || !r.timedOut {
		s.memo.put(key, entry{found: r.witness, ok: r.found})
	}
	return r.witness, r.found, st
}

func memoKey(src, tgt Side) string {
	return src.Schema.Digest + "\x00" + src.Pointer + "\x00" + tgt.Schema.Digest + "\x00" + tgt.Pointer
}

// run is the state of one search.
type run struct {
	src, tgt  Side
	budget    Budget
	deadline  time.Time
	gen       *generator
	seen      map[string]bool // canonical encodings already tried
	pool      []any           // source instances, seeds for mutation
	tried     int
	accepted  int
	timedOut  bool
	exhausted bool
	found     bool
	witness   Found
}

const maxPool = 64

// search tries the structured candidates, then mutations of the source
// instances among them, until a witness turns up or the budget runs out.
func (r *run) search() {
	start, ok := r.src.Schema.At(r.src.Pointer)
	if !ok {
		return // no such subschema: nothing to search
	}
	r.gen.root(node{v: start, ptr: r.src.Pointer}, r.try)
	if r.done() {
		return
	}
	for range 8 * r.budget.Candidates { // mutations can repeat; bound the loop too
		if r.done() || len(r.pool) == 0 {
			break
		}
		seed := r.pool[r.gen.rnd.IntN(len(r.pool))]
		if !r.try(r.gen.mutate(seed, 0)) {
			break
		}
	}
	if !r.done() {
		r.exhausted = true
	}
}

// done tells whether the search must stop; it also notes a timeout.
func (r *run) done() bool {
	if r.found || r.tried >= r.budget.Candidates || r.timedOut {
		return true
	}
	if r.tried%8 == 0 && time.Now().After(r.deadline) { // the clock is read every few candidates
		r.timedOut = true
		return true
	}
	return false
}

// try tests one candidate; it returns false when the search must stop.
func (r *run) try(v any) bool {
	if r.done() {
		return false
	}
	key, ok := encodeBounded(v)
	if !ok || r.seen[key] {
		return true
	}
	r.seen[key] = true
	r.tried++
	if r.src.Schema.ValidateAt(r.src.Pointer, v) != nil {
		return true
	}
	r.accepted++
	if len(r.pool) < maxPool {
		r.pool = append(r.pool, v)
	}
	err := r.tgt.Schema.ValidateAt(r.tgt.Pointer, v)
	if isRejection(err) {
		r.found = true
		r.witness = Found{Value: v, Rejection: err}
		return false
	}
	return true
}

// isRejection tells a validator's verdict from a failure to compile the
// subschema, which proves nothing about the value.
func isRejection(err error) bool {
	var ve *jsonschema.ValidationError
	return errors.As(err, &ve)
}
