package compat

import (
	"encoding/json"
	"math/big"
	"strconv"
	"strings"
)

// typeMask is a set of JSON value kinds. Numbers are split into integral
// and fractional values so that "integer" is a subset of "number": this is
// what makes integer→number a widening and number→integer a mismatch.
type typeMask uint8

const (
	tNull typeMask = 1 << iota
	tBool
	tObject
	tArray
	tInt  // numbers with a zero fractional part
	tFrac // numbers with a non-zero fractional part
	tString

	tNumber  = tInt | tFrac
	allTypes = tNull | tBool | tObject | tArray | tNumber | tString
)

func typeNameMask(name string) typeMask {
	switch name {
	case "null":
		return tNull
	case "boolean":
		return tBool
	case "object":
		return tObject
	case "array":
		return tArray
	case "integer":
		return tInt
	case "number":
		return tNumber
	case "string":
		return tString
	}
	return 0
}

// declaredTypes reads the "type" keyword; absent means every kind.
func declaredTypes(m map[string]any) typeMask {
	switch t := m["type"].(type) {
	case string:
		return typeNameMask(t)
	case []any:
		var mask typeMask
		for _, e := range t {
			if s, ok := e.(string); ok {
				mask |= typeNameMask(s)
			}
		}
		return mask
	}
	return allTypes
}

// valueType is the kind of one JSON value.
func valueType(v any) typeMask {
	switch v := v.(type) {
	case nil:
		return tNull
	case bool:
		return tBool
	case map[string]any:
		return tObject
	case []any:
		return tArray
	case string:
		return tString
	case json.Number, float64:
		r, ok := ratOf(v)
		switch {
		case !ok:
			return tNumber // too large to tell: either, to stay sound
		case r.IsInt():
			return tInt
		}
		return tFrac
	}
	return 0
}

// sourceTypes is what one source conjunct allows, using every keyword that
// narrows the kind: type, const/enum, and an integral multipleOf.
func sourceTypes(m map[string]any) typeMask {
	mask := declaredTypes(m)
	if c, ok := m["const"]; ok {
		mask &= valueType(c)
	}
	if e, ok := m["enum"].([]any); ok {
		var em typeMask
		for _, v := range e {
			em |= valueType(v)
		}
		mask &= em
	}
	if k, ok := ratOf(m["multipleOf"]); ok && k.IsInt() {
		mask &^= tFrac
	}
	return mask
}

// describe names a mask for messages: "object", "string or null",
// "integer", "number" (when fractional values are possible).
func describe(m typeMask) string {
	if m == allTypes {
		return "any type"
	}
	var names []string
	for _, e := range []struct {
		bit  typeMask
		name string
	}{{tObject, "object"}, {tArray, "array"}, {tString, "string"}, {tBool, "boolean"}} {
		if m&e.bit != 0 {
			names = append(names, e.name)
		}
	}
	switch {
	case m&tNumber == tNumber, m&tNumber == tFrac:
		names = append(names, "number")
	case m&tInt != 0:
		names = append(names, "integer")
	}
	if m&tNull != 0 {
		names = append(names, "null")
	}
	if len(names) == 0 {
		return "nothing"
	}
	return strings.Join(names, " or ")
}

// checkTypes compares the kinds; it returns the findings and the kinds that
// remain to be checked keyword by keyword.
func (r *run) checkTypes(s view, t node, p path) ([]finding, typeMask) {
	tm := declaredTypes(t.m)
	bad := s.types &^ tm
	live := s.types & tm
	if bad == 0 {
		return nil, live
	}
	sp := r.srcKeywordPtr(s, "type")
	tp := t.ptr + "/type"
	var out []finding
	if bad&tNull != 0 && bad != s.types {
		// A nullable value whose other kinds fit: the null is the problem.
		sev, code := SeverityError, CodeTypeMismatch
		if r.conditional {
			sev, code = SeverityWarning, CodeMayBeNull
		}
		out = append(out, r.report(sev, code, sp, tp, p, "%s may be null but %s does not accept null", srcMark, tgtMark))
		bad &^= tNull
		if bad == 0 {
			return out, live
		}
	}
	if bad == tFrac && tm&tInt != 0 {
		return append(out, r.report(SeverityError, CodeTypeMismatch, sp, tp, p,
			"%s is number but %s expects integer", srcMark, tgtMark)), live
	}
	if bad == s.types {
		return append(out, r.report(SeverityError, CodeTypeMismatch, sp, tp, p,
			"%s is %s but %s expects %s", srcMark, describe(s.types), tgtMark, describe(tm))), live
	}
	return append(out, r.report(SeverityError, CodeTypeMismatch, sp, tp, p,
		"%s may be %s but %s expects %s", srcMark, describe(bad), tgtMark, describe(tm))), live
}

// maxExponent bounds the decimal exponent of a number literal we turn into
// an exact rational: 1e99999999 would be a 40 MB integer. Such a literal in
// the source is ignored (sound: it only widens); in the target, numericKeywords
// reports it as cannot_prove.
const maxExponent = 1000

func ratOf(v any) (*big.Rat, bool) {
	switch v := v.(type) {
	case json.Number:
		if i := strings.IndexAny(string(v), "eE"); i >= 0 {
			exp, err := strconv.Atoi(string(v)[i+1:])
			if err != nil || exp > maxExponent || exp < -maxExponent {
				return nil, false
			}
		}
		return new(big.Rat).SetString(string(v))
	case float64:
		r := new(big.Rat)
		if r.SetFloat64(v) == nil {
			return nil, false
		}
		return r, true
	}
	return nil, false
}
