package compat

import (
	"encoding/json"
	"fmt"
	"maps"
	"math/big"
	"reflect"
	"slices"
	"strings"

	"github.com/typeward/typeward/internal/verdict"
)

// maxFiniteValues bounds how many candidate values of a finite source are
// run through the validator; above it the structural rules take over.
const maxFiniteValues = 256

// finiteValues lists every instance of s when s is finite: a const or an
// enum, the kinds null and boolean alone, or (when ranges is set) a bounded
// integer range. Each candidate is kept only if it satisfies every
// conjunct, so the list is exactly the source's instances. Ranges are
// enumerated only against an enum or const target, where nothing else
// decides; elsewhere interval rules are cheaper and as exact.
func (r *run) finiteValues(s view, ranges bool) ([]any, bool) {
	cands, ok := r.candidates(s, ranges)
	if !ok || len(cands) > maxFiniteValues {
		return nil, false
	}
	out := cands[:0:0]
	for _, v := range cands {
		if !exactValue(v) {
			return nil, false
		}
		if KindOf(v)&s.types == 0 {
			continue
		}
		r.budget -= len(s.conj)
		valid := true
		for _, n := range s.conj {
			if n.synthetic {
				continue // implied by a negation, checked below
			}
			ok, decided := validates(r.src, n.ptr, v)
			if !decided {
				return nil, false
			}
			if !ok {
				valid = false
				break
			}
		}
		for _, g := range s.neg {
			if !valid {
				break
			}
			if ok, decided := validates(r.src, g.ptr, v); decided && ok {
				valid = false // excluded by a negation
			}
		}
		if valid {
			out = append(out, v)
		}
	}
	return out, true
}

func (r *run) candidates(s view, ranges bool) ([]any, bool) {
	for _, n := range s.conj {
		if c, ok := n.m["const"]; ok {
			return []any{c}, true
		}
		if e, ok := n.m["enum"].([]any); ok {
			return e, true
		}
	}
	if s.types&^(KindNull|KindBoolean) == 0 {
		return []any{nil, true, false}, true
	}
	if hi, _ := intKeyword(s, "maxLength", false); s.types == KindString && hi != nil && hi.Sign() == 0 {
		return []any{""}, true
	}
	if ranges && s.types == KindString {
		if vals, ok := patternCandidates(s); ok {
			return vals, true
		}
	}
	if ranges && s.types&^KindNumber == 0 && s.types&KindFraction != 0 {
		return stepValues(s)
	}
	if s.types == KindObject {
		// Objects are worth listing for any target when there are few.
		if vals, ok := r.objectValues(s); ok && (ranges || len(vals) <= maxObjectValues) {
			return vals, true
		}
	}
	if ranges && s.types == KindInteger {
		lo, hi := numberBounds(s)
		if lo.v == nil || hi.v == nil {
			return nil, false
		}
		first, last := ceilRat(lo.v), floorRat(hi.v)
		if new(big.Int).Sub(last, first).Cmp(big.NewInt(maxFiniteValues)) > 0 {
			return nil, false
		}
		var out []any
		for i := first; i.Cmp(last) <= 0; i = new(big.Int).Add(i, big.NewInt(1)) {
			out = append(out, json.Number(i.String()))
		}
		return out, true
	}
	return nil, false
}

// checkValues validates each source value against the target with the real
// validator: the answer is exact.
func (r *run) checkValues(s view, vals []any, t node, p path) []finding {
	var bad []any
	nullBad := false
	for _, v := range vals {
		r.budget--
		ok, decided := validates(r.tgt, t.ptr, v)
		if !decided {
			return r.cannotProve(r.srcValuesPtr(s), t.ptr, p, "enum", "the validator cannot decide "+listValues([]any{v}))
		}
		if !ok {
			if v == nil {
				nullBad = true
				continue
			}
			bad = append(bad, v)
		}
	}
	var out []finding
	sp := r.srcValuesPtr(s)
	if nullBad {
		tp := t.ptr
		if _, typed := t.m["type"]; typed {
			tp += "/type"
		}
		out = append(out, with(r.errorf(verdict.CodeMayBeNull, sp, tp, p, "%s may be null but %s does not accept null", srcMark, tgtMark), nil)...)
	}
	if len(bad) == 0 {
		return out
	}
	tp, code := t.ptr, verdict.CodeEnumMismatch
	kinds := KindsOf(bad)
	accepted := acceptedKinds(t)
	switch {
	case t.m["enum"] != nil:
		tp = t.ptr + "/enum"
	case t.m["const"] != nil:
		tp = t.ptr + "/const"
	case kinds&accepted == 0:
		code = verdict.CodeTypeMismatch
		for _, kw := range []string{"type", "anyOf", "oneOf"} {
			if _, ok := t.m[kw]; ok {
				tp = t.ptr + "/" + kw
				break
			}
		}
		if len(bad) == len(vals) && !hasKeyword(s, "enum") && !hasKeyword(s, "const") {
			return append(out, with(r.errorf(code, sp, tp, p, "%s is %s but %s expects %s", srcMark, describe(kinds), tgtMark, describe(accepted)), bad[0])...)
		}
	}
	return append(out, with(r.errorf(code, sp, tp, p, "%s may be %s, which %s does not accept", srcMark, listValues(bad), tgtMark), bad[0])...)
}

// acceptedKinds is what the target's own kind keywords, and those of its
// anyOf/oneOf branches, allow (for messages).
func acceptedKinds(t node) Kinds {
	k := keywordKinds(t.m)
	for _, kw := range []string{"anyOf", "oneOf"} {
		if _, ok := t.m[kw]; !ok {
			continue
		}
		var u Kinds
		for _, b := range t.schemas(kw) {
			u |= branchKinds(b)
		}
		k &= u
	}
	return k
}

// srcValuesPtr points at what makes the source finite: const, enum or type.
func (r *run) srcValuesPtr(s view) string {
	for _, kw := range []string{"const", "enum", "type"} {
		if p := r.srcKeywordPtr(s, kw); strings.HasSuffix(p, "/"+kw) {
			return p
		}
	}
	return r.srcPtr(s)
}

// enumTarget handles a target const/enum when the source is not finite
// (finite sources were decided value by value): the source has values
// outside any finite list, so this is an error.
func (r *run) enumTarget(s view, t node, p path, keyword string) []finding {
	var allowed []any
	if keyword == "const" {
		allowed = []any{t.m["const"]}
	} else {
		allowed, _ = t.m["enum"].([]any)
	}
	if vals, ok := r.finiteValues(s, true); ok {
		// Reached only when the target was split: compare by JSON equality.
		var bad []any
		for _, v := range vals {
			if !slices.ContainsFunc(allowed, func(a any) bool { return jsonEqual(a, v) }) {
				bad = append(bad, v)
			}
		}
		if len(bad) == 0 {
			return nil
		}
		return r.errorf(verdict.CodeEnumMismatch, r.srcValuesPtr(s), t.ptr+"/"+keyword, p,
			"%s may be %s, which %s does not accept", srcMark, listValues(bad), tgtMark)
	}
	return r.errorf(verdict.CodeEnumMismatch, r.srcPtr(s), t.ptr+"/"+keyword, p,
		"%s is %s but %s must be one of %s", srcMark, anyValueOf(s.types), tgtMark, listValues(allowed))
}

// listValues renders at most five values as JSON for a message.
func listValues(vs []any) string {
	parts := make([]string, 0, 6)
	for i, v := range vs {
		if i == 5 {
			parts = append(parts, fmt.Sprintf("… (%d more)", len(vs)-5))
			break
		}
		b, err := json.Marshal(v)
		if err != nil {
			b = []byte(fmt.Sprint(v))
		}
		parts = append(parts, string(b))
	}
	return strings.Join(parts, ", ")
}

// jsonEqual is JSON Schema equality: numbers by value, objects by members.
func jsonEqual(a, b any) bool {
	ra, aNum := ratOf(a)
	rb, bNum := ratOf(b)
	if aNum || bNum {
		return aNum && bNum && ra.Cmp(rb) == 0
	}
	switch a := a.(type) {
	case []any:
		b, ok := b.([]any)
		if !ok || len(a) != len(b) {
			return false
		}
		for i := range a {
			if !jsonEqual(a[i], b[i]) {
				return false
			}
		}
		return true
	case map[string]any:
		b, ok := b.(map[string]any)
		if !ok || len(a) != len(b) {
			return false
		}
		for k, av := range a {
			bv, ok := b[k]
			if !ok || !jsonEqual(av, bv) {
				return false
			}
		}
		return true
	}
	return reflect.DeepEqual(a, b)
}

// patternCandidates: a superset of a string source's values, from a pattern
// anchored at both ends whose language (within the source's maxLength) is
// finite and small.
func patternCandidates(s view) ([]any, bool) {
	hi, _ := intKeyword(s, "maxLength", false)
	maxLen := -1
	if hi != nil && hi.IsInt64() && hi.Int64() < lengthCap {
		maxLen = int(hi.Int64())
	}
	for _, n := range s.conj {
		pat, ok := n.m["pattern"].(string)
		if !ok {
			continue
		}
		if lang, ok := patternLanguage(pat, maxLen); ok {
			out := make([]any, len(lang))
			for i, v := range lang {
				out[i] = v
			}
			return out, true
		}
	}
	return nil, false
}

// stepValues lists the numbers of a bounded source that moves in steps
// (the lcm of its multipleOf), or its single point.
func stepValues(s view) ([]any, bool) {
	lo, hi := numberBounds(s)
	if lo.v == nil || hi.v == nil {
		return nil, false
	}
	var step *big.Rat
	for _, n := range s.conj {
		if k, ok := ratOf(n.m["multipleOf"]); ok && k.Sign() > 0 {
			step = lcmRat(step, k)
		}
	}
	if step == nil {
		if lo.v.Cmp(hi.v) != 0 || lo.excl || hi.excl {
			return nil, false
		}
		d, ok := decimalOf(lo.v)
		return []any{d}, ok
	}
	first := ceilRat(new(big.Rat).Quo(lo.v, step))
	last := floorRat(new(big.Rat).Quo(hi.v, step))
	if new(big.Int).Sub(last, first).Cmp(big.NewInt(maxFiniteValues)) > 0 {
		return nil, false
	}
	var out []any
	for k := first; k.Cmp(last) <= 0; k = new(big.Int).Add(k, big.NewInt(1)) {
		d, ok := decimalOf(new(big.Rat).Mul(new(big.Rat).SetInt(k), step))
		if !ok {
			return nil, false
		}
		out = append(out, d) // exclusive ends are filtered by the validator
	}
	return out, true
}

// decimalOf writes a rational with a finite decimal expansion exactly.
func decimalOf(v *big.Rat) (json.Number, bool) {
	for prec := 0; prec <= 64; prec++ {
		d := v.FloatString(prec)
		if back, ok := new(big.Rat).SetString(d); ok && back.Cmp(v) == 0 {
			return json.Number(d), true
		}
	}
	return "", false
}

// maxObjectValues bounds the objects listed for a target without enum or
// const.
const maxObjectValues = 16

// objectValues lists the objects of a closed source whose declared
// properties each hold finitely many values (const, enum, booleans, null):
// every combination of present values and, for optional names, absence.
func (r *run) objectValues(s view) ([]any, bool) {
	if hi, _ := intKeyword(s, "maxProperties", false); hi != nil && hi.Sign() == 0 {
		return []any{map[string]any{}}, true
	}
	closed := false
	for _, n := range s.conj {
		closed = closed || n.m["additionalProperties"] == false
	}
	if !closed {
		return nil, false // the common case, decided before any lookup
	}
	if _, open := r.srcExtra(s); open || len(r.srcPatterns(s)) > 0 {
		return nil, false
	}
	req := r.srcRequired(s)
	out := []any{map[string]any{}}
	for _, name := range r.srcNames(s) {
		pv, _ := r.srcProp(s, name)
		vals, ok := r.directValues(pv)
		if !ok {
			return nil, false
		}
		var next []any
		for _, o := range out {
			if !req[name] {
				next = append(next, o)
			}
			for _, v := range vals {
				m := maps.Clone(o.(map[string]any))
				m[name] = v
				next = append(next, m)
			}
			if len(next) > maxFiniteValues {
				return nil, false
			}
		}
		out = next
	}
	return out, true
}

// directValues: a superset of a property's values stated by the property
// itself (const, enum, or only null and booleans), without descending.
func (r *run) directValues(v view) ([]any, bool) {
	v, empty := r.normalize(v)
	if empty {
		return nil, true
	}
	for _, n := range v.conj {
		if c, ok := n.m["const"]; ok {
			return []any{c}, true
		}
		if e, ok := n.m["enum"].([]any); ok {
			return e, true
		}
	}
	if v.types&^(KindNull|KindBoolean) == 0 {
		return []any{nil, true, false}, true
	}
	return nil, false
}
