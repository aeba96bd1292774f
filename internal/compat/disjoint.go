package compat

import (
	"maps"
	"slices"
)

// maxDisjointDepth bounds how deep the discriminator search descends.
const maxDisjointDepth = 4

// disjoint reports, conservatively, that no instance of s satisfies t:
// their kinds do not meet, every value of a finite source is rejected by
// the validator, or a property the source always has cannot meet the
// target's schema for it (tagged unions). false means "not shown".
func (r *run) disjoint(s view, t node, depth int) bool {
	if !r.spend() {
		return false
	}
	s, empty := r.normalize(s)
	if empty {
		return true
	}
	if t.m == nil {
		b, isBool := t.v.(bool)
		return isBool && !b
	}
	if r.targetLoops(t) {
		return false
	}
	// The source excludes t itself (not, another oneOf branch, a failed
	// condition).
	for _, g := range s.neg {
		if sameSchema(side{r.src, g}, side{r.tgt, t}) {
			return true
		}
	}
	// Or a schema inside one the source negates: t ⊆ g, ¬g ⊆ ¬t.
	if r.negCheck < maxNegChecks && depth == 0 {
		for _, g := range s.neg {
			if !g.synthetic && r.flipped(t, func(c *run) bool { return len(c.sub(viewOf(t), g, path{})) == 0 }) {
				return true
			}
		}
	}
	// t is a conjunction: meeting any one conjunct is impossible suffices.
	if ref, ok := t.m["$ref"].(string); ok {
		if v, ptr, err := r.tgt.ResolveFrom(t.ptr, ref); err == nil && depth < maxDisjointDepth {
			if r.disjoint(s, newNode(v, ptr), depth+1) {
				return true
			}
		}
		if r.tgtD7 {
			return false
		}
	}
	for _, b := range t.schemas("allOf") {
		if depth < maxDisjointDepth && r.disjoint(s, b, depth+1) {
			return true
		}
	}
	for _, kw := range []string{"anyOf", "oneOf"} {
		bs := t.schemas(kw)
		if len(bs) == 0 || depth >= maxDisjointDepth {
			continue
		}
		all := true
		for _, b := range bs {
			if !r.disjoint(s, b, depth+1) {
				all = false
				break
			}
		}
		if all {
			return true
		}
	}
	common := s.types & keywordKinds(t.m)
	if common == 0 || r.boundsApart(s, t, common) {
		return true
	}
	// t is ¬n: s avoids it when it lies inside n.
	if n, ok := t.child("not"); ok && t.skip&skNot == 0 && depth < maxDisjointDepth && len(r.sub(s, n, path{})) == 0 {
		return true
	}
	if r.excludesValues(s, t) {
		return true
	}
	if vals, ok := r.finiteValues(s, false); ok {
		for _, v := range vals {
			r.budget--
			if ok, decided := validates(r.tgt, t.ptr, v); ok || !decided {
				return false
			}
		}
		return true
	}
	if common != KindObject || depth >= maxDisjointDepth {
		return false
	}
	req := r.srcRequired(s)
	for _, name := range stringList(t.m["required"]) {
		if pv, _ := r.srcProp(s, name); !r.possible(pv) {
			return true
		}
	}
	treq := map[string]bool{}
	for _, name := range stringList(t.m["required"]) {
		treq[name] = true
	}
	// A name one side always has must meet both sides' schemas for it.
	props, _ := t.m["properties"].(map[string]any)
	for _, name := range slices.Sorted(maps.Keys(props)) {
		if !req[name] && !treq[name] {
			continue
		}
		tp, _ := t.child("properties", name)
		if pv, _ := r.srcProp(s, name); r.disjoint(pv, tp, depth+1) {
			return true
		}
	}
	return false
}

// excludesValues: t is finite (a const, an enum, or what finiteValues
// lists of it read as a source, a bounded integer range among them) and
// the source rejects every one of its values.
func (r *run) excludesValues(s view, t node) bool {
	var vals []any
	if c, ok := t.m["const"]; ok {
		vals = []any{c}
	} else if e, ok := t.m["enum"].([]any); ok {
		vals = e
	} else if r.negCheck >= maxNegChecks || !r.flipped(t, func(c *run) bool {
		tv, empty := c.normalize(viewOf(t))
		if empty {
			return true // no value at all: nothing to meet
		}
		var ok bool
		vals, ok = c.finiteValues(tv, true)
		return ok
	}) {
		return false
	}
	if len(vals) > maxFiniteValues {
		return false
	}
	for _, v := range vals {
		if !exactValue(v) {
			return false
		}
		if KindOf(v)&s.types == 0 {
			continue
		}
		r.budget -= len(s.conj) + len(s.neg)
		in := true
		for _, n := range s.conj {
			if n.synthetic {
				continue
			}
			ok, decided := validates(r.src, n.ptr, v)
			if !decided {
				return false
			}
			if !ok {
				in = false
				break
			}
		}
		for _, g := range s.neg {
			if !in {
				break
			}
			if ok, decided := validates(r.src, g.ptr, v); decided && ok {
				in = false
			}
		}
		if in {
			return false
		}
	}
	return true
}

// boundsApart: for every kind both sides allow, their numeric intervals,
// string lengths or array sizes do not meet.
func (r *run) boundsApart(s view, t node, common Kinds) bool {
	tv := view{conj: []node{t}}
	for _, k := range splitKinds(common) {
		switch k {
		case KindInteger, KindFraction:
			s.types, tv.types = k, k
			slo, shi := numberBounds(s)
			tlo, thi := numberBounds(tv)
			if !endsBefore(shi, tlo) && !endsBefore(thi, slo) {
				return false
			}
		case KindString:
			if !sizesApart(s, tv, "minLength", "maxLength") {
				return false
			}
		case KindArray:
			if !sizesApart(s, tv, "minItems", "maxItems") {
				return false
			}
		default:
			return false
		}
	}
	return true
}

// endsBefore: no value at or under upper bound hi meets lower bound lo.
func endsBefore(hi, lo bound) bool {
	if hi.v == nil || lo.v == nil {
		return false
	}
	c := hi.v.Cmp(lo.v)
	return c < 0 || (c == 0 && (hi.excl || lo.excl))
}

// sizesApart: the two [min, max] ranges of a count keyword pair do not meet.
func sizesApart(s, t view, minKw, maxKw string) bool {
	slo, _ := intKeyword(s, minKw, true)
	shi, _ := intKeyword(s, maxKw, false)
	tlo, _ := intKeyword(t, minKw, true)
	thi, _ := intKeyword(t, maxKw, false)
	return (shi != nil && tlo != nil && shi.Cmp(tlo) < 0) || (thi != nil && slo != nil && thi.Cmp(slo) < 0)
}
