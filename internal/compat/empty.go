package compat

import (
	"maps"
	"math"
	"math/big"
	"slices"
)

// maxPruneDepth bounds how far the emptiness rules look into properties
// and items (each level may ask whether a member schema is satisfiable).
const maxPruneDepth = 2

// maxRequiredChain is how many levels more they look along required
// properties, where a chain that comes back to a view shows it empty (see
// prune).
const maxRequiredChain = 2

// prune removes from s.types every kind no instance of s can have (the
// emptiness law: an unsatisfiable source fits everything). It looks at
// what no single conjunct shows: bounds of several conjuncts that
// contradict, a conjunct that is also negated, a finite source every value
// of which some conjunct rejects, a required name the object cannot have,
// size bounds against closed objects, uniqueness and short tuples. Not
// pruning only widens the source, so the depth bound is sound.
//
// A view met again inside the value of a property it requires (an
// infinitely deep required chain, {required: [a], properties: {a: {$ref:
// "#"}}}) is assumed empty there: instances are finite, so a shallowest
// instance would need a shallower one below it (the least fixed point).
// What is concluded under such an assumption is kept only once the
// assumed view is shown empty; otherwise the view is pruned again without
// it.
func (r *run) prune(s view) view {
	key := s.srcKey()
	if k, ok := r.caches.pruned[key]; ok {
		s.types = k
		return s
	}
	if f, ok := r.caches.pruning[key]; ok {
		if r.requiredDepth > f.required {
			r.caches.low = min(r.caches.low, f.level)
			s.types = 0
		}
		return s // met again in place: nothing shown
	}
	if r.pruneDepth >= maxPruneDepth+min(r.requiredDepth, maxRequiredChain) {
		return s
	}
	out, low := r.pruneAssuming(s, key, r.requiredDepth)
	if low == len(r.caches.pruning) && out.types != 0 {
		// The assumption this view is empty was used and is false:
		// prune again without it.
		out, low = r.pruneAssuming(s, key, math.MaxInt)
	}
	if low >= len(r.caches.pruning) {
		// A shallower answer is less precise, never wrong: kept as well.
		r.caches.pruned[key] = out.types
	} else {
		r.caches.low = min(r.caches.low, low) // rests on an outer view's assumption
	}
	return out
}

// pruneAssuming runs pruneKinds with s in progress (assumed empty when met
// again below required depth) and returns the lowest level of an
// assumption the answer rests on (MaxInt: none).
func (r *run) pruneAssuming(s view, key string, required int) (view, int) {
	level := len(r.caches.pruning)
	r.caches.pruning[key] = pruneFrame{level: level, required: required}
	outer := r.caches.low
	r.caches.low = math.MaxInt
	r.pruneDepth++
	s = r.pruneKinds(s)
	r.pruneDepth--
	delete(r.caches.pruning, key)
	low := r.caches.low
	r.caches.low = outer
	return s, low
}

// pruneFrame is a view being pruned: its level on the stack of views in
// progress, and the required depth at which it started.
type pruneFrame struct{ level, required int }

func (r *run) pruneKinds(s view) view {
	r.budget--
	for _, g := range s.neg {
		if r.acceptsAll(r.src, g) {
			s.types = 0
			return s
		}
		for _, n := range s.conj {
			if sameSchema(side{r.src, n}, side{r.src, g}) {
				s.types = 0
				return s
			}
		}
	}
	if vals, ok := r.finiteValues(s, false); ok {
		s.types &= KindsOf(vals)
		if len(vals) == 0 {
			s.types = 0
		}
		return s
	}
	if s.types&KindNumber != 0 {
		s.types &^= r.emptyNumberKinds(s)
	}
	if s.types&KindString != 0 {
		lo, _ := intKeyword(s, "minLength", true)
		hi, _ := intKeyword(s, "maxLength", false)
		if lo != nil && hi != nil && lo.Cmp(hi) > 0 {
			s.types &^= KindString
		}
	}
	if s.types&KindArray != 0 {
		if lo, hi, _, _ := r.srcItemCounts(s); hi >= 0 && lo > hi {
			s.types &^= KindArray
		}
		for _, n := range s.conj {
			if c, ok := n.child("contains"); ok && !n.synthetic && rejectsAll(r.src, c, 0) && (r.srcD7 || !isZero(n.m["minContains"])) {
				s.types &^= KindArray // no item can match
			}
		}
	}
	if s.types&KindObject != 0 && r.emptyObjects(s) {
		s.types &^= KindObject
	}
	return s
}

// emptyNumberKinds is the number kinds the bounds and steps of s leave no
// value of.
func (r *run) emptyNumberKinds(s view) Kinds {
	all := s
	all.types |= KindFraction // the unrounded interval
	lo, hi := r.numberBounds(all)
	if lo.v != nil && hi.v != nil {
		if c := lo.v.Cmp(hi.v); c > 0 || (c == 0 && (lo.excl || hi.excl)) {
			return KindNumber
		}
	}
	var gone Kinds
	ints := s
	ints.types = KindInteger
	if ilo, ihi := r.numberBounds(ints); ilo.v != nil && ihi.v != nil && ilo.v.Cmp(ihi.v) > 0 {
		gone |= KindInteger
	}
	if lo.v != nil && hi.v != nil && lo.v.Cmp(hi.v) == 0 {
		if lo.v.IsInt() {
			gone |= KindFraction
		} else {
			gone |= KindInteger
		}
	}
	// One step at a time: a step with no multiple inside the interval.
	if lo.v != nil && hi.v != nil {
		for _, n := range s.conj {
			k, ok := ratOf(n.m["multipleOf"])
			if !ok || k.Sign() <= 0 {
				continue
			}
			q := new(big.Rat).Quo(lo.v, k)
			first := new(big.Rat).Mul(new(big.Rat).SetInt(ceilRat(q)), k)
			if lo.excl && first.Cmp(lo.v) == 0 {
				first.Add(first, k)
			}
			if c := first.Cmp(hi.v); c > 0 || (c == 0 && hi.excl) {
				return KindNumber
			}
		}
	}
	return gone
}

// emptyObjects: no object satisfies s: a name it must have cannot have a
// value, or its size bounds cannot be met.
func (r *run) emptyObjects(s view) bool {
	req := r.srcRequired(s)
	for _, name := range slices.Sorted(maps.Keys(req)) {
		pv, _ := r.srcProp(s, name)
		r.requiredDepth++
		possible := r.possible(pv)
		r.requiredDepth--
		if !possible {
			return true
		}
	}
	lo, hi, _, _ := r.srcPropertyCounts(s)
	return hi != nil && lo.Cmp(hi) > 0
}

func isZero(v any) bool {
	n, ok := intOf(v)
	return ok && n.Sign() == 0
}
