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

// instanceAt is some value src accepts in which steps lead to a value: each
// container on the way is there, with what the source requires of it. It
// is the search's answer against a schema that nothing is there. No steps:
// none (that is instance).
func (c *Checker) instanceAt(src Node, steps []step) (any, bool) {
	if c.search == nil || len(steps) == 0 {
		return nil, false
	}
	var none any = false
	for i := len(steps) - 1; i >= 0; i-- {
		switch st := steps[i]; st.kind {
		case stepProp:
			none = map[string]any{"properties": map[string]any{st.prop: none}}
		case stepItems:
			none = map[string]any{"items": none}
		case stepIndex:
			prefix := make([]any, st.index+1)
			for j := range st.index {
				prefix[j] = true
			}
			prefix[st.index] = none
			none = map[string]any{"prefixItems": prefix}
		}
	}
	doc, err := schema.FromValue(none)
	if err != nil {
		return nil, false
	}
	v, _, ok := c.search(src, Node{doc, ""})
	return v, ok
}
