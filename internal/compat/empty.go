package compat

import (
	"maps"
	"math/big"
	"slices"
)

// maxPruneDepth bounds how far the emptiness rules look into properties
// and items (each level may ask whether a member schema is satisfiable).
const maxPruneDepth = 2

// prune removes from s.types every kind no instance of s can have (the
// emptiness law: an unsatisfiable source fits everything). It looks at
// what no single conjunct shows: bounds of several conjuncts that
// contradict, a conjunct that is also negated, a finite source every value
// of which some conjunct rejects, a required name the object cannot have,
// size bounds against closed objects, uniqueness and short tuples. Not
// pruning only widens the source, so the depth bound is sound.
func (r *run) prune(s view) view {
	if r.pruneDepth >= maxPruneDepth {
		return s
	}
	key := s.srcKey()
	if k, ok := r.caches.pruned[key]; ok {
		s.types = k
		return s
	}
	r.pruneDepth++
	s = r.pruneKinds(s)
	r.pruneDepth--
	// A shallower answer is less precise, never wrong: kept as well.
	r.caches.pruned[key] = s.types
	return s
}

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
		if pv, _ := r.srcProp(s, name); !r.possible(pv) {
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
