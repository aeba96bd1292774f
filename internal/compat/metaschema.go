package compat

import (
	"github.com/typeward/typeward/internal/schemaview"
	"github.com/typeward/typeward/internal/verdict"
)

// A pair whose documents reference a standard metaschema is decided by the
// validator alone: the rules read Root, where such a reference's target is
// not (the validator holds it built in), and a reference they cannot follow
// is dropped from a source, which widens it but, under a negation, would
// narrow it. So such a pair is Compatible only when the source is finite
// and the real validator accepts each of its values under the target, and
// Incompatible only with a confirmed witness (a rule's claim or the
// search's); otherwise Unknown.

func (r *run) viaValidator(s, t node) []finding {
	if vals, ok := r.literalValues(s); ok {
		in := vals[:0:0]
		for _, v := range vals {
			ok, decided := validates(r.src, s.ptr, v)
			if !decided || !exactValue(v) {
				return r.opaque(s, t)
			}
			if ok {
				in = append(in, v)
			}
		}
		return r.checkValues(viewOf(s), in, t, path{})
	}
	fs := r.sub(viewOf(s), t, path{})
	for _, f := range fs {
		if f.claim == verdict.Incompatible {
			return fs // confirmed by a witness, or Unknown
		}
	}
	return append(fs, r.opaque(s, t)...)
}

// literalValues lists values among which every instance of s is, read from
// s's in-place conjuncts alone: a const, an enum, or a type of null and
// booleans only. Nothing else of the rules is trusted here (a negation read
// without the reference inside it would narrow the source).
func (r *run) literalValues(s node) ([]any, bool) {
	queue, seen := []node{s}, map[string]bool{}
	for len(queue) > 0 {
		n := queue[0]
		queue = queue[1:]
		if n.m == nil || seen[n.ptr] {
			continue
		}
		seen[n.ptr] = true
		in := r.srcView().InPlace(n.sub(), schemaview.FollowRef|schemaview.FollowAllOf)
		queue = append(append(queue, nodesOf(in.Refs())...), nodesOf(in.AllOf)...)
		if in.Replaced {
			continue // draft-07: no sibling of $ref applies
		}
		if c, ok := n.m["const"]; ok {
			return []any{c}, true
		}
		if e, ok := n.m["enum"].([]any); ok && len(e) <= maxFiniteValues {
			return e, true
		}
		if k := DeclaredKinds(n.m); k&^(KindNull|KindBoolean) == 0 {
			return []any{nil, true, false}, true
		}
	}
	return nil, false
}

func (r *run) opaque(s, t node) []finding {
	return r.cannotProve(s.ptr, t.ptr, path{}, "$ref", "a standard metaschema is referenced, which only the validator reads")
}
