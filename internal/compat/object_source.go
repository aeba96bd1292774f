package compat

import (
	"maps"
	"slices"

	"github.com/typeward/typeward/internal/schemaview"
)

// What the source's conjuncts say about its object members.

// srcRequired is the set of names the source guarantees an object has:
// required of some conjunct, the view's own names, and the closure under
// dependentRequired (and draft-07's list-valued dependencies) of those
// (schemaview.View.Guaranteed).
func (r *run) srcRequired(s view) map[string]bool {
	subs := make([]schemaview.Sub, len(s.conj))
	for i, n := range s.conj {
		subs[i] = n.sub()
	}
	return r.srcView().Guaranteed(subs, s.req...)
}

// srcProp is the source schema of the member called name: in each conjunct
// its properties entry and every matching patternProperties entry, or else
// additionalProperties (or an unevaluatedProperties that applies to the
// name). declared is false when no conjunct says anything beyond `true`
// about the name.
func (r *run) srcProp(s view, name string) (view, bool) {
	if g, ok := r.srcForbids(s, name); ok {
		// No object of the source has the member: its value schema is
		// false (the source stays what it is, the member is never there).
		// Its pointer, the negated required list, is no subschema's, so no
		// cache keyed by pointers confuses it with one.
		return viewOf(node{v: false, ptr: g.ptr + "/required", synthetic: true}), true
	}
	var nodes []node
	declared := false
	sv := r.srcView()
	for _, n := range s.conj {
		m := sv.Member(n.sub(), name)
		nodes = append(nodes, nodesOf(m.Schemas())...)
		if m.Matched() {
			declared = true
			continue
		}
		if m.Unknown {
			continue // dropping a constraint only widens the source
		}
		c, ok := r.srcAdditional(n)
		if !ok && sv.UnevaluatedProperty(n.sub(), name) == schemaview.Applied {
			c, ok = n.child("unevaluatedProperties")
		}
		if ok {
			nodes = append(nodes, c)
			if b, isBool := c.v.(bool); !isBool || !b {
				declared = true
			}
		}
	}
	v := viewOf(nodes...)
	if len(nodes) == 0 || !declared {
		v.at = r.srcPtr(s)
	}
	return v, declared
}

// srcAdditional is the schema a conjunct applies to names it does not
// declare (schemaview.View.Additional).
func (r *run) srcAdditional(n node) (node, bool) {
	c, ok := r.srcView().Additional(n.sub())
	return nodeOf(c), ok
}

// srcExtra is the source schema of names no conjunct declares; possible is
// false when the source is closed to them.
func (r *run) srcExtra(s view) (view, bool) {
	var nodes []node
	for _, n := range s.conj {
		c, ok := r.srcAdditional(n)
		if !ok {
			c, ok = r.srcUnevaluatedRest(s, n)
		}
		if ok {
			if b, isBool := c.v.(bool); isBool && b {
				continue
			}
			nodes = append(nodes, c)
		}
	}
	v := viewOf(nodes...)
	v.at = r.srcPtr(s)
	return v, r.possible(v)
}

// srcUnevaluatedRest is a conjunct's unevaluatedProperties where it
// applies to every name no conjunct declares: what it sees evaluated is
// known (schemaview.Evaluation: exact, nothing evaluating every name), and
// every subschema evaluating for it is itself a conjunct, whose names
// srcExtra's are not.
func (r *run) srcUnevaluatedRest(s view, n node) (node, bool) {
	u, ok := n.child("unevaluatedProperties")
	if !ok || r.srcD7 {
		return node{}, false
	}
	ev := r.srcView().PropertyEvaluation(n.sub())
	if !ev.Exact || ev.All {
		return node{}, false
	}
	for _, e := range ev.Subs {
		if !slices.ContainsFunc(s.conj, func(c node) bool { return c.ptr == e.Ptr }) {
			return node{}, false
		}
	}
	return u, true
}

// srcForbids finds a negation of s that is exactly {required: [name]}
// (beside, at most, type object): no object of s has the member name.
func (r *run) srcForbids(s view, name string) (node, bool) {
	for _, g := range s.neg {
		if g.synthetic || g.m == nil {
			continue
		}
		req, _ := g.m["required"].([]any)
		if len(req) != 1 || req[0] != name {
			continue
		}
		only := true
		for k, v := range g.m {
			if k != "required" && !(k == "type" && v == "object") {
				only = false
			}
		}
		if only {
			return g, true
		}
	}
	return node{}, false
}

// srcNames lists the property names the source declares, sorted.
func (r *run) srcNames(s view) []string {
	var names []string
	for _, n := range s.conj {
		props, _ := n.m["properties"].(map[string]any)
		for name := range props {
			names = append(names, name)
		}
	}
	slices.Sort(names)
	return slices.Compact(names)
}

type srcPattern struct {
	pattern string
	n       node
}

func (r *run) srcPatterns(s view) []srcPattern {
	var out []srcPattern
	for _, n := range s.conj {
		pats, _ := n.m["patternProperties"].(map[string]any)
		for _, pat := range slices.Sorted(maps.Keys(pats)) {
			if c, ok := n.child("patternProperties", pat); ok {
				out = append(out, srcPattern{pat, c})
			}
		}
	}
	return out
}

// coveredByTarget tells whether the properties or patternProperties of
// one of the evaluating target nodes govern name (so additionalProperties
// or unevaluatedProperties does not); known is false when a pattern cannot
// be evaluated.
func (r *run) coveredByTarget(evaluators []node, name string) (covered, known bool) {
	ev := schemaview.Evaluation{Subs: make([]schemaview.Sub, len(evaluators))}
	for i, n := range evaluators {
		ev.Subs[i] = n.sub()
	}
	return ev.Covers(name)
}

// tgtPropertyEvaluators lists the target nodes whose properties count as
// evaluated for t's unevaluatedProperties (schemaview.Evaluation): all is
// set when one of them evaluates every property; exact is false when an
// applicator that depends on the instance might evaluate properties too.
func (r *run) tgtPropertyEvaluators(t node) (nodes []node, all, exact bool) {
	ev := r.tgtView().PropertyEvaluation(t.sub())
	return nodesOf(ev.Subs), ev.All, ev.Exact
}

// possible reports whether some instance could satisfy v.
func (r *run) possible(v view) bool {
	_, empty := r.normalize(v)
	return !empty
}
