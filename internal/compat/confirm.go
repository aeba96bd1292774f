package compat

import (
	"encoding/json"
	"errors"
	"math/big"
	"net/url"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"

	"golang.org/x/text/language"
	"golang.org/x/text/message"

	"github.com/typeward/typeward/internal/schema"
	"github.com/typeward/typeward/internal/verdict"
)

// maxWitnessBytes bounds a witness's JSON encoding. A larger candidate is
// not used (the search's values are smaller still), so every witness in a
// 403, a report or an audit record is at most this long: no truncation
// marker is ever needed.
const maxWitnessBytes = 1024

// searchFunc looks for a value src accepts and tgt rejects (internal/witness);
// rejection is the target validator's error.
type searchFunc func(src, tgt Node) (value any, rejection error, ok bool)

// confirm keeps an Incompatible claim only with a witness: a value, the
// rule's candidate lifted to the check's root or one the search finds,
// that the real validator accepts under src and rejects under tgt. An
// unconfirmed claim becomes Unknown, so a refusal without a witness cannot
// happen. When nothing is confirmed, a plain instance of the source is
// tried, then the search runs before the answer is Unknown; a witness
// either finds makes the answer Incompatible.
func (c *Checker) confirm(src, tgt Node, fs []finding) (verdict.Verdict, []finding) {
	if len(fs) == 0 {
		return verdict.Compatible, nil
	}
	tried := map[string]*proof{} // encoding -> proof (nil: not a witness)
	confirmed := false
	for i := range fs {
		f := &fs[i]
		if f.claim != verdict.Incompatible {
			continue
		}
		for _, w := range f.witness {
			if f.proof = tryWitness(src, tgt, lift(f.steps, w.value), tried); f.proof != nil {
				break
			}
			if len(f.steps) == 0 {
				continue
			}
			// The source requires more around the value (siblings, items):
			// put it into an instance of the source instead.
			if base, ok := c.instance(src); ok {
				if v, ok := graft(base, f.steps, w.value); ok {
					if f.proof = tryWitness(src, tgt, v, tried); f.proof != nil {
						break
					}
				}
			}
			// The instance lacks a container on the way (a bare one
			// misses the members the source requires of it): put the
			// value into an instance in which the value's container is
			// there.
			if base, ok := c.instanceAt(src, f.steps[:len(f.steps)-1]); ok {
				if v, ok := graft(base, f.steps, w.value); ok {
					if f.proof = tryWitness(src, tgt, v, tried); f.proof != nil {
						break
					}
				}
			}
		}
		if f.proof == nil {
			continue
		}
		confirmed = true
	}
	fs = dedupe(fs)
	if !confirmed {
		// Most claims without a candidate (a required property the source
		// does not provide, a property the target forbids) are proven by
		// any plain instance of the source: one memoized instance and two
		// validations instead of a search.
		if base, ok := c.instance(src); ok {
			if p := tryWitness(src, tgt, base, tried); p != nil {
				fs = attach(fs, p)
				confirmed = true
			}
		}
	}
	if !confirmed && c.search != nil {
		if v, rej, ok := c.search(src, tgt); ok {
			if b, ok := encodeWitness(v); ok {
				if p := proofOf(b, rej); p != nil {
					fs = attach(fs, p)
					confirmed = true
				}
			}
		}
	}
	for i := range fs {
		if fs[i].claim == verdict.Incompatible && fs[i].proof == nil {
			fs[i] = unconfirmed(fs[i])
		}
	}
	if confirmed {
		return verdict.Incompatible, fs
	}
	return verdict.Unknown, fs
}

// unconfirmed is a rule's claim without a witness: Unknown, with the rule's
// reason kept in the message.
func unconfirmed(f finding) finding {
	f.msg = "cannot confirm that " + f.msg + " (" + f.code + "): no value accepted by " + srcMark +
		" and rejected by " + tgtMark + " was found"
	f.claim, f.code, f.witness = verdict.Unknown, verdict.CodeCannotProve, nil
	return f
}

// attach gives a witness the search found to the finding whose target
// pointer the rejection names (or to the first claim, else the first
// finding), which then stands proven.
func attach(fs []finding, p *proof) []finding {
	best := -1
	for i, f := range fs {
		if f.tgtPtr != "" && (p.err.KeywordLocation == f.tgtPtr || strings.HasPrefix(p.err.KeywordLocation, f.tgtPtr+"/")) {
			best = i
			break
		}
		if best < 0 && f.claim == verdict.Incompatible {
			best = i
		}
	}
	if best < 0 {
		best = 0
	}
	f := &fs[best]
	if f.claim != verdict.Incompatible {
		// The rules could not decide; the search decided: name what the
		// target refused.
		f.claim, f.code = verdict.Incompatible, codeOfKeyword(p.err.KeywordLocation)
		kw := p.err.KeywordLocation[strings.LastIndexByte(p.err.KeywordLocation, '/')+1:]
		f.msg = srcMark + " may be a value that " + tgtMark + " refuses (" + kw + ")"
	}
	f.proof = p
	return fs
}

// codeOfKeyword names the issue code for the target keyword that rejected a
// witness the search found.
func codeOfKeyword(location string) string {
	kw := location[strings.LastIndexByte(location, '/')+1:]
	switch kw {
	case "type":
		return verdict.CodeTypeMismatch
	case "enum", "const":
		return verdict.CodeEnumMismatch
	case "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum":
		return verdict.CodeRangeMismatch
	case "multipleOf":
		return verdict.CodeMultipleOfMismatch
	case "minLength", "maxLength":
		return verdict.CodeLengthMismatch
	case "minItems", "maxItems", "minProperties", "maxProperties":
		return verdict.CodeSizeMismatch
	case "uniqueItems":
		return verdict.CodeUniqueItems
	case "required":
		return verdict.CodeMissingRequired
	case "additionalProperties", "unevaluatedProperties", "unevaluatedItems", "items":
		return verdict.CodeAdditionalProperty
	case "contains", "minContains", "maxContains":
		return verdict.CodeContainsMismatch
	case "dependentRequired", "dependencies", "dependentSchemas":
		return verdict.CodeDependencyMissing
	case "anyOf", "oneOf":
		return verdict.CodeNoBranchMatches
	case "not":
		return verdict.CodeExcludedByNot
	case "pattern", "patternProperties", "propertyNames":
		return verdict.CodePatternMismatch
	case "format":
		return verdict.CodeFormatMismatch
	}
	return verdict.CodeCounterexample
}

// tryWitness validates v under both sides, once per distinct encoding.
func tryWitness(src, tgt Node, v any, tried map[string]*proof) *proof {
	b, ok := encodeWitness(v)
	if !ok {
		return nil
	}
	if p, seen := tried[string(b)]; seen {
		return p
	}
	var p *proof
	if valid, decided := validates(src.Schema, src.Pointer, v); valid && decided {
		p = proofOf(b, tgt.Schema.ValidateAt(tgt.Pointer, v))
	}
	tried[string(b)] = p
	return p
}

// proofOf is the proof for a source instance encoded as b given the
// target's verdict on it: nil unless the target's validator rejected it (a
// failure to compile or to run proves nothing).
func proofOf(b []byte, rejection error) *proof {
	var ve *jsonschema.ValidationError
	if !errors.As(rejection, &ve) {
		return nil
	}
	return &proof{json: b, err: witnessError(ve)}
}

func encodeWitness(v any) ([]byte, bool) {
	if !exactValue(v) {
		return nil, false
	}
	b, err := json.Marshal(v)
	if err != nil || len(b) > maxWitnessBytes {
		return nil, false
	}
	return b, true
}

// witnessError is the validator's first innermost complaint: the absolute
// keyword location within the target document ("" when the target is the
// schema false) and the validator's message, which names the place in the
// witness, e.g. "at '/0': got object, want string".
func witnessError(ve *jsonschema.ValidationError) verdict.WitnessError {
	ve = schema.FirstFailure(ve)
	loc := ""
	if _, frag, ok := strings.Cut(ve.SchemaURL, "#"); ok {
		loc = frag
		if dec, err := url.PathUnescape(frag); err == nil {
			loc = dec // the URL fragment escapes "^", "%" and the like
		}
	}
	kw := ve.ErrorKind.KeywordPath()
	if _, isNot := ve.ErrorKind.(*kind.Not); isNot && len(kw) == 0 {
		kw = []string{"not"} // the library names no keyword for a failed not
	}
	for _, tok := range kw {
		loc += "/" + schema.EscapeToken(tok)
	}
	inst := make([]string, len(ve.InstanceLocation))
	for i, tok := range ve.InstanceLocation {
		inst[i] = "/" + schema.EscapeToken(tok)
	}
	// The library's own wording ("at '/0': got object, want string"),
	// without its costlier formatting of the whole error tree.
	return verdict.WitnessError{KeywordLocation: loc,
		Message: "at '" + strings.Join(inst, "") + "': " + ve.ErrorKind.LocalizedString(english)}
}

var english = message.NewPrinter(language.English)

// lift places a value found at steps below the check's root into a root
// value: a property becomes a one-property object, an item a one-item array
// (index i: i+1 items, the others null). The validator then decides whether
// the source really holds it; siblings the source requires make it fail,
// and the search takes over.
func lift(steps []step, v any) any {
	for i := len(steps) - 1; i >= 0; i-- {
		switch st := steps[i]; st.kind {
		case stepProp:
			v = map[string]any{st.prop: v}
		case stepItems:
			v = []any{v}
		case stepIndex:
			arr := make([]any, st.index+1)
			arr[st.index] = v
			v = arr
		}
	}
	return v
}

// graft places v at steps inside base, a source instance, copying what it
// changes; where base has nothing at a step, the rest is lifted.
func graft(base any, steps []step, v any) (any, bool) {
	if len(steps) == 0 {
		return v, true
	}
	st, rest := steps[0], steps[1:]
	switch st.kind {
	case stepProp:
		m, ok := base.(map[string]any)
		if !ok {
			return nil, false
		}
		inner, has := m[st.prop]
		var nv any
		if has {
			if nv, ok = graft(inner, rest, v); !ok {
				return nil, false
			}
		} else {
			nv = lift(rest, v)
		}
		out := make(map[string]any, len(m)+1)
		for k, e := range m {
			out[k] = e
		}
		out[st.prop] = nv
		return out, true
	default:
		a, ok := base.([]any)
		if !ok {
			return nil, false
		}
		i := st.index
		if st.kind == stepItems {
			i = 0
		}
		out := append([]any(nil), a...)
		if i >= len(out) {
			if i > len(out) {
				return nil, false
			}
			out = append(out, lift(rest, v))
			return out, true
		}
		nv, ok := graft(out[i], rest, v)
		if !ok {
			return nil, false
		}
		out[i] = nv
		return out, true
	}
}

// numberValue is r as a JSON number, when a short decimal says it exactly.
func numberValue(r *big.Rat) (json.Number, bool) {
	if r.IsInt() {
		s := r.Num().String()
		return json.Number(s), len(s) <= 64
	}
	s := r.FloatString(12)
	back, ok := new(big.Rat).SetString(s)
	if !ok || back.Cmp(r) != 0 {
		return "", false
	}
	return json.Number(strings.TrimRight(s, "0")), true
}

// beyond lists numbers just past a bound b on the side dir (-1: below, +1:
// above): b itself when exclusive, then b∓1 and b∓1/2, the candidates a
// range rule offers.
func beyond(b *big.Rat, excl bool, dir int64) []any {
	var out []any
	if excl {
		if n, ok := numberValue(b); ok {
			out = append(out, n)
		}
	}
	for _, d := range []*big.Rat{big.NewRat(dir, 1), big.NewRat(dir, 2), big.NewRat(dir, 1000)} {
		if n, ok := numberValue(new(big.Rat).Add(b, d)); ok {
			out = append(out, n)
		}
	}
	return out
}

// sampleOf is a cheap value of each kind in k (for a rule's candidate): the
// first of null, boolean, integer, number, string, array, object in k.
func sampleOf(k Kinds) any {
	switch {
	case k&KindNull != 0:
		return nil
	case k&KindBoolean != 0:
		return true
	case k&KindInteger != 0:
		return json.Number("0")
	case k&KindFraction != 0:
		return json.Number("0.5")
	case k&KindString != 0:
		return ""
	case k&KindArray != 0:
		return []any{}
	}
	return map[string]any{}
}
