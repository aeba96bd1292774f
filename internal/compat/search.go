package compat

import (
	"time"

	"github.com/typeward/typeward/internal/schema"
	"github.com/typeward/typeward/internal/witness"
)

// Bounds of the witness search one Checker runs (see internal/witness):
// it only runs when the rules' candidates confirmed nothing, and its
// answers are memoized in a memo of searchMemoBytes. The candidate budget
// (witness.DefaultCandidates) is what binds; the time budget is only a
// safety net, generous so that a loaded machine does not make the answer
// depend on the clock.
const (
	searchMemoBytes = 8 << 20
	searchTime      = 5 * time.Second
)

// nothing is the schema false: searching src against it yields some
// instance of src, the base a rule's candidate is grafted onto.
var nothing = func() *schema.Schema {
	s, err := schema.Parse([]byte("false"))
	if err != nil {
		panic(err)
	}
	return s
}()

// newSearch adapts a witness.Searcher to the checker.
func newSearch(s *witness.Searcher) searchFunc {
	return func(src, tgt Node) (any, error, bool) {
		f, ok := s.Search(witness.Side{Schema: src.Schema, Pointer: src.Pointer}, witness.Side{Schema: tgt.Schema, Pointer: tgt.Pointer})
		return f.Value, f.Rejection, ok
	}
}

// instance is some value src accepts, found by the search, or false.
func (c *Checker) instance(src Node) (any, bool) {
	if c.search == nil {
		return nil, false
	}
	v, _, ok := c.search(src, Node{nothing, ""})
	return v, ok
}
