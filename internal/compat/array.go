package compat

import (
	"bytes"
	"slices"

	"github.com/typeward/typeward/internal/schema"
	"github.com/typeward/typeward/internal/verdict"
)

// srcItem is the source schema of the item at index i (the same for every
// index at or beyond srcTupleLen). An unevaluatedItems counts where its
// reach is known (schemaview.View.ItemRest); elsewhere dropping it widens.
func (r *run) srcItem(s view, i int) view {
	var nodes []node
	sv := r.srcView()
	for _, n := range s.conj {
		prefix := nodesOf(sv.Items(n.sub()).Prefix)
		rest := sv.ItemRest(n.sub())
		switch {
		case i < len(prefix):
			nodes = append(nodes, prefix[i])
		case rest.Has && i >= rest.From:
			nodes = append(nodes, nodeOf(rest.Sub))
		}
	}
	v := viewOf(nodes...)
	v.at = r.srcPtr(s)
	if len(nodes) > 0 {
		v.at = nodes[0].ptr
	}
	return v
}

// srcTupleLen is how many leading positions the source describes one by
// one: its longest tuple, or where an unevaluatedItems starts applying.
func (r *run) srcTupleLen(s view) int {
	n := 0
	sv := r.srcView()
	for _, c := range s.conj {
		n = max(n, len(sv.Items(c.sub()).Prefix))
		if rest := sv.ItemRest(c.sub()); rest.Has {
			n = max(n, rest.From)
		}
	}
	return n
}

// srcItemCounts bounds the source's length: minItems (raised by contains,
// which needs at least minContains items) and maxItems; max < 0 means
// unbounded.
func (r *run) srcItemCounts(s view) (lo, hi int, loPtr, hiPtr string) {
	hi = -1
	for _, n := range s.conj {
		if v, ok := intOf(n.m["minItems"]); ok && v.IsInt64() && int(v.Int64()) > lo {
			lo, loPtr = int(v.Int64()), n.ptr+"/minItems"
		}
		if _, ok := n.m["contains"]; ok {
			need := 1
			if v, ok := intOf(n.m["minContains"]); ok && !r.srcD7 && v.IsInt64() {
				need = int(v.Int64())
			}
			if need > lo {
				lo, loPtr = need, n.ptr+"/contains"
			}
		}
		if v, ok := intOf(n.m["maxItems"]); ok && v.IsInt64() && (hi < 0 || int(v.Int64()) < hi) {
			hi, hiPtr = int(v.Int64()), n.ptr+"/maxItems"
		}
	}
	// Past a position whose item schema nothing satisfies, no item exists.
	for i := 0; i <= r.srcTupleLen(s) && (hi < 0 || i < hi); i++ {
		if !r.possible(r.srcItem(s, i)) {
			if hi < 0 || i < hi {
				hi, hiPtr = i, r.srcItem(s, i).at
			}
			break
		}
	}
	// Unique items where two positions every array has hold one same value:
	// no array reaches the later one.
	if j, ok := r.srcRepeatedPosition(s, lo); ok && (hi < 0 || j < hi) {
		hi, hiPtr = j, r.srcKeywordPtr(s, "uniqueItems")
	}
	// Unique items drawn from a finite set: at most as many as the set.
	if r.srcUnique(s) && r.srcTupleLen(s) == 0 {
		item, empty := r.normalize(r.srcItem(s, 0))
		vals, ok := r.finiteValues(item, false)
		if empty {
			vals, ok = nil, true
		}
		if ok && (hi < 0 || len(vals) < hi) {
			hi, hiPtr = len(vals), r.srcKeywordPtr(s, "uniqueItems")
		}
	}
	return lo, hi, loPtr, hiPtr
}

// uniqueMatches is how many items matching tc every array of s has when
// its items are unique and drawn from a finite set: of its at least lo
// items, at most as many as the set's values tc refuses can miss (values
// the validator equates, like 1 and 1.0, only lower the count). 0 when
// that is not known.
func (r *run) uniqueMatches(s view, tc node, lo, n int) int {
	if n != 0 || !r.srcUnique(s) {
		return 0
	}
	item, empty := r.normalize(r.srcItem(s, 0))
	vals, ok := r.finiteValues(item, false)
	if empty || !ok {
		return 0
	}
	missing := 0
	for _, v := range vals {
		match, decided := validates(r.tgt, tc.ptr, v)
		if !decided {
			return 0
		}
		if !match {
			missing++
		}
	}
	return max(lo-missing, 0)
}

// maxRepeatedPositions bounds the positions srcRepeatedPosition compares.
const maxRepeatedPositions = 8

// srcRepeatedPosition finds, in a unique-items source whose arrays have at
// least lo items, a position j below lo whose item schema allows one value
// only, the same (in canonical JSON) as an earlier position's.
func (r *run) srcRepeatedPosition(s view, lo int) (int, bool) {
	if lo < 2 || !r.srcUnique(s) {
		return 0, false
	}
	var seen [][]byte
	for i := range min(lo, r.srcTupleLen(s), maxRepeatedPositions) {
		item, empty := r.normalize(r.srcItem(s, i))
		vals, ok := r.finiteValues(item, false)
		if empty || !ok || len(vals) != 1 {
			continue
		}
		c, err := schema.Canonical(vals[0])
		if err != nil {
			continue
		}
		if slices.ContainsFunc(seen, func(b []byte) bool { return bytes.Equal(b, c) }) {
			return i, true
		}
		seen = append(seen, c)
	}
	return 0, false
}

// array checks the target's array keywords.
func (r *run) array(s view, t node, p path) []finding {
	var out []finding
	tPrefix := nodesOf(r.tgtView().Items(t.sub()).Prefix)
	rest := r.tgtView().ItemRest(t.sub())
	tRest, tHasRest, tRestFrom := nodeOf(rest.Sub), rest.Has, rest.From
	if rest.Unsure {
		out = append(out, r.cannotProve(r.srcPtr(s), rest.Sub.Ptr, p, "unevaluatedItems", "it depends on what the target's conditional subschemas evaluate")...)
	}
	lo, hi, loPtr, hiPtr := r.srcItemCounts(s)
	n := max(len(tPrefix), r.srcTupleLen(s))
	if tHasRest {
		n = max(n, tRestFrom)
	}
	tooLong := false
	for i := 0; i < n && (hi < 0 || i < hi); i++ {
		ti, ok := tRest, tHasRest && i >= tRestFrom
		if i < len(tPrefix) {
			ti, ok = tPrefix[i], true
		}
		if !ok {
			continue // a position only the target's in-place subschemas describe
		}
		if isFalse(ti) {
			out = append(out, r.report(verdict.CodeSizeMismatch, orPtr(hiPtr, r.srcPtr(s)), ti.ptr, p,
				"%s may have more than %d items but %s allows %d", srcMark, i, tgtMark, i))
			tooLong = true
			break
		}
		out = append(out, r.descend(r.srcItem(s, i), ti, p.index(i))...)
	}
	if tHasRest && !tooLong && (hi < 0 || hi > n) {
		if isFalse(tRest) {
			out = append(out, r.report(verdict.CodeSizeMismatch, orPtr(hiPtr, r.srcPtr(s)), tRest.ptr, p,
				"%s may have more than %d items but %s allows %d", srcMark, n, tgtMark, n))
		} else {
			out = append(out, r.descend(r.srcItem(s, n), tRest, p.item())...)
		}
	}
	if tmin, ok := intOf(t.m["minItems"]); ok && tmin.IsInt64() && int64(lo) < tmin.Int64() {
		out = append(out, r.report(verdict.CodeSizeMismatch, orPtr(loPtr, r.srcPtr(s)), t.ptr+"/minItems", p,
			"%s may have fewer than %s items, the minItems of %s", srcMark, tmin, tgtMark))
	}
	if tmax, ok := intOf(t.m["maxItems"]); ok && !(hi >= 0 && (!tmax.IsInt64() || int64(hi) <= tmax.Int64())) {
		out = append(out, r.report(verdict.CodeSizeMismatch, orPtr(hiPtr, r.srcPtr(s)), t.ptr+"/maxItems", p,
			"%s may have more than %s items, the maxItems of %s", srcMark, tmax, tgtMark))
	}
	if u, _ := t.m["uniqueItems"].(bool); u && !(hi >= 0 && hi <= 1) && !r.srcUnique(s) && !r.distinctPositions(s, hi, n) {
		out = append(out, r.report(verdict.CodeUniqueItems, r.srcPtr(s), t.ptr+"/uniqueItems", p,
			"%s may repeat items but %s requires unique items", srcMark, tgtMark))
	}
	return append(out, r.contains(s, t, p, lo, hi, n)...)
}

func (r *run) srcUnique(s view) bool {
	for _, n := range s.conj {
		if u, _ := n.m["uniqueItems"].(bool); u {
			return true
		}
	}
	return false
}

// contains is proven when the source's own contains fits with at least as
// many matches, or when every source item matches and the length bounds
// give the required count. A source that may be shorter than the required
// count (e.g. empty) is disproven.
func (r *run) contains(s view, t node, p path, lo, hi, n int) []finding {
	tc, ok := t.child("contains")
	if !ok {
		return nil
	}
	need, limit := 1, -1
	if !r.tgtD7 {
		if v, ok := intOf(t.m["minContains"]); ok && v.IsInt64() {
			need = int(v.Int64())
		}
		if v, ok := intOf(t.m["maxContains"]); ok && v.IsInt64() {
			limit = int(v.Int64())
		}
	}
	if need == 0 && limit < 0 {
		return nil
	}
	// At least need matches: the source's own contains (with as many
	// matches) fits, or every item matches and there are enough items.
	every := true
	for i := 0; i <= n && every; i++ {
		every = len(r.descend(r.srcItem(s, i), tc, p.item())) == 0
	}
	none := true // no source item can match
	for i := 0; i <= n && none; i++ {
		none = r.disjoint(r.srcItem(s, i), tc, 0)
	}
	minOK := need == 0 || (every && lo >= need)
	if !minOK {
		// Positions the source always has whose schema matches count too.
		matched := 0
		for i := 0; i < lo && i < n; i++ {
			if len(r.descend(r.srcItem(s, i), tc, p.item())) == 0 {
				matched++
			}
		}
		if lo > n && len(r.descend(r.srcItem(s, n), tc, p.item())) == 0 {
			matched += lo - n
		}
		minOK = matched >= need || r.uniqueMatches(s, tc, lo, n) >= need
	}
	maxOK := limit < 0 || (hi >= 0 && hi <= limit) || none
	for _, c := range s.conj {
		sc, ok := c.child("contains")
		if !ok || c.synthetic {
			continue
		}
		have, most := 1, -1
		if !r.srcD7 {
			if v, ok := intOf(c.m["minContains"]); ok && v.IsInt64() {
				have = int(v.Int64())
			}
			if v, ok := intOf(c.m["maxContains"]); ok && v.IsInt64() {
				most = int(v.Int64())
			}
		}
		if !minOK && have >= need && len(r.descend(viewOf(sc), tc, p.item())) == 0 {
			minOK = true
		}
		// The same schema counts the same items.
		if !maxOK && most >= 0 && most <= limit && sameSchema(side{r.src, sc}, side{r.tgt, tc}) {
			maxOK = true
		}
	}
	if minOK && maxOK {
		return nil
	}
	if !minOK && ((lo < need && !hasKeyword(s, "contains")) || none) {
		return r.errorf(verdict.CodeContainsMismatch, r.srcPtr(s), tc.ptr, p,
			"%s may have fewer than %d matching items but %s requires them (contains)", srcMark, need, tgtMark)
	}
	if minOK && every && lo > limit {
		return r.errorf(verdict.CodeContainsMismatch, r.srcPtr(s), tc.ptr, p,
			"%s has more than %d matching items but %s allows at most %d (maxContains)", srcMark, limit, tgtMark, limit)
	}
	return r.cannotProve(r.srcPtr(s), tc.ptr, p, "contains", "the source does not guarantee the matching items")
}

func hasKeyword(s view, keyword string) bool {
	for _, n := range s.conj {
		if _, ok := n.m[keyword]; ok {
			return true
		}
	}
	return false
}

func isFalse(n node) bool {
	b, isBool := n.v.(bool)
	return isBool && !b
}

// distinctPositions: the source has at most hi items, all within its tuple
// of n positions, and no two positions can hold the same value (each holds
// finitely many values, and the sets do not meet): its items are unique.
func (r *run) distinctPositions(s view, hi, n int) bool {
	if hi < 0 || hi > n || hi > maxFiniteValues {
		return false
	}
	var seen []any
	for i := range hi {
		vals, ok := r.directValues(r.srcItem(s, i))
		if !ok || len(seen)*len(vals) > maxFiniteValues*maxFiniteValues {
			return false
		}
		for _, v := range vals {
			if slices.ContainsFunc(seen, func(w any) bool { return jsonEqual(v, w) }) {
				return false
			}
		}
		seen = append(seen, vals...)
	}
	return true
}
