package compat

import (
	"math/big"
	"slices"
)

// Coverage of a source by the union of target branches that constrain a
// kind only by bounds: [0,5] ∪ [6,∞) takes every integer of [0,10], two
// half-lines take every number, lengths 0 and ≥ 1 every string. It proves
// anyOf (and oneOf, when the branches are also apart) without any one
// branch taking the whole source.

var (
	numberBoundKeywords = map[string]bool{"type": true, "minimum": true, "maximum": true, "exclusiveMinimum": true, "exclusiveMaximum": true}
	lengthKeywords      = map[string]bool{"type": true, "minLength": true, "maxLength": true}
)

// coveredByBounds: for every kind of s, the branches limited to bounds of
// that kind cover the source's range. For oneOf, every other branch must be
// disjoint from s and the bound branches pairwise apart.
func (r *run) coveredByBounds(s view, branches []node, exclusive bool) bool {
	s, empty := r.normalize(s)
	if empty {
		return true
	}
	for _, k := range splitKinds(s.types) {
		allowed := lengthKeywords
		if k&KindNumber != 0 {
			allowed = numberBoundKeywords
		}
		var ranges []view
		for _, b := range branches {
			if r.onlyKeywords(b, allowed) {
				if b.m == nil || DeclaredKinds(b.m)&k != 0 {
					ranges = append(ranges, view{conj: []node{b}, types: k})
				}
				continue
			}
			if exclusive && !r.disjoint(s, b, 0) {
				return false
			}
		}
		// A negated range of the source is a hole: no source value is there.
		var holes []view
		for _, g := range s.neg {
			if r.onlyKeywordsIn(g, allowed, r.srcD7) && g.m != nil && DeclaredKinds(g.m)&k != 0 {
				holes = append(holes, view{conj: []node{g}, types: k})
			}
		}
		part := s
		part.types = k
		var ok bool
		switch k {
		case KindInteger, KindFraction:
			ok = numbersCovered(part, ranges, holes, exclusive)
		case KindString:
			ok = countsCovered(part, ranges, holes, "minLength", "maxLength", exclusive)
		}
		if !ok {
			return false
		}
	}
	return true
}

// onlyKeywords: every keyword of b that may constrain is in allowed.
func (r *run) onlyKeywords(b node, allowed map[string]bool) bool {
	return r.onlyKeywordsIn(b, allowed, r.tgtD7)
}

func (r *run) onlyKeywordsIn(b node, allowed map[string]bool, d7 bool) bool {
	if b.m == nil {
		b, _ := b.v.(bool)
		return b
	}
	for kw, v := range b.m {
		if !constrains(kw, d7) || kw == "type" {
			continue
		}
		if !allowed[kw] {
			return false
		}
		// A bound read as absent would widen the branch: unsound here.
		if _, ok := intOf(v); !ok && (kw == "minLength" || kw == "maxLength") {
			return false
		}
		if _, ok := ratOf(v); !ok && numberBoundKeywords[kw] {
			return false
		}
	}
	return true
}

// span is a closed, open or half-open range of numbers; nil ends are
// unbounded.
type span struct{ lo, hi bound }

// numbersCovered: the ranges' numeric intervals cover the source's.
func numbersCovered(s view, ranges, holes []view, exclusive bool) bool {
	slo, shi := numberBounds(s)
	toSpans := func(vs []view) []span {
		out := make([]span, len(vs))
		for i, rv := range vs {
			out[i].lo, out[i].hi = numberBounds(rv)
		}
		return out
	}
	return spansCover(span{slo, shi}, toSpans(ranges), toSpans(holes), s.types&KindFraction == 0, s.types == KindFraction, exclusive)
}

// spansCover sweeps src from its lower end, each step taking the span that
// starts at or before the point reached and ends furthest. Integral spans
// have their bounds rounded inward, so the point after an upper bound u is
// u+1. Fractions alone need no integer point covered. exclusive also
// requires the spans to be pairwise apart; holes (where the source has no
// value) count as covered, apart or not.
func spansCover(src span, spans, holes []span, integral, fractions, exclusive bool) bool {
	if exclusive {
		for i := range spans {
			for j := range i {
				if !endsBefore(spans[i].hi, spans[j].lo) && !endsBefore(spans[j].hi, spans[i].lo) {
					return false
				}
			}
		}
	}
	spans = append(slices.Clip(spans), holes...)
	cur := src.lo // the first point not yet covered; excl: cur itself is covered
	for range len(spans) {
		if fractions && cur.v != nil && cur.v.IsInt() {
			cur.excl = true // the point itself is no fraction
		}
		best := -1
		for i, sp := range spans {
			if startsBy(sp.lo, cur) && (best < 0 || reachesFurther(sp.hi, spans[best].hi)) {
				best = i
			}
		}
		if best < 0 {
			return false
		}
		hi := spans[best].hi
		if hi.v == nil {
			return true
		}
		if src.hi.v != nil {
			c := hi.v.Cmp(src.hi.v)
			if c > 0 || (c == 0 && (!hi.excl || src.hi.excl || (fractions && hi.v.IsInt()))) {
				return true
			}
		}
		if cur.v != nil && cur.v.Cmp(hi.v) > 0 {
			return false // no progress
		}
		if integral {
			cur = bound{v: new(big.Rat).Add(hi.v, big.NewRat(1, 1))}
		} else {
			cur = bound{v: hi.v, excl: !hi.excl}
		}
	}
	return false
}

// startsBy: a range with lower bound lo includes the point cur (or, when
// cur.excl, everything just above it).
func startsBy(lo, cur bound) bool {
	if lo.v == nil {
		return true
	}
	if cur.v == nil {
		return false
	}
	c := lo.v.Cmp(cur.v)
	return c < 0 || (c == 0 && (!lo.excl || cur.excl))
}

// reachesFurther: upper bound a is beyond upper bound b.
func reachesFurther(a, b bound) bool {
	if a.v == nil {
		return b.v != nil
	}
	if b.v == nil {
		return false
	}
	c := a.v.Cmp(b.v)
	return c > 0 || (c == 0 && !a.excl && b.excl)
}

// countsCovered is numbersCovered for a pair of count keywords (lengths),
// whose values are integers from 0.
func countsCovered(s view, ranges, holes []view, minKw, maxKw string, exclusive bool) bool {
	toSpan := func(v view) span {
		sp := span{lo: bound{v: new(big.Rat)}}
		if n, _ := intKeyword(v, minKw, true); n != nil {
			sp.lo.v.SetInt(n)
		}
		if n, _ := intKeyword(v, maxKw, false); n != nil {
			sp.hi.v = new(big.Rat).SetInt(n)
		}
		return sp
	}
	toSpans := func(vs []view) []span {
		out := make([]span, len(vs))
		for i, rv := range vs {
			out[i] = toSpan(rv)
		}
		return out
	}
	return spansCover(toSpan(s), toSpans(ranges), toSpans(holes), true, false, exclusive)
}
