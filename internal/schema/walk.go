package schema

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
)

type refAt struct{ keyword, ref, at string }

// walker checks what cannot be left to the compiler: the object count bound,
// number literals, and that every reference ($ref, $dynamicRef,
// $recursiveRef) stays inside the document. Only a subschema holds
// references: the values of const, enum, default, examples and of unknown
// keywords are data, where {"$ref": …} is an object like any other.
// The walk follows the table of subschema positions (PositionOf).
type walker struct {
	objects     int
	refs        []refAt
	dynamicRefs bool
	// dynamicAnchors: some subschema holds $dynamicAnchor or $recursiveAnchor
	dynamicAnchors bool
	schemas        map[string]bool // pointers walked as subschemas
}

func (w *walker) walk(v any, pointer string, role Position) error {
	switch v := v.(type) {
	case map[string]any:
		w.objects++
		if w.objects > MaxSubschemas {
			return &Error{Kind: ErrTooManyNodes, Detail: fmt.Sprintf("more than %d objects", MaxSubschemas)}
		}
		if role == Subschema {
			w.schemas[pointer] = true
			w.references(v, pointer)
		}
		// Sorted, so that of two problems the same one is always reported.
		for _, k := range slices.Sorted(maps.Keys(v)) {
			child := NotSchema
			switch role {
			case Subschema:
				child = PositionOf(k, v[k])
			case SchemaMap:
				child = Subschema
			}
			if err := w.walk(v[k], pointer+"/"+EscapeToken(k), child); err != nil {
				return err
			}
		}
	case []any:
		child := NotSchema
		if role == SchemaList {
			child = Subschema
		}
		for i, e := range v {
			if err := w.walk(e, pointer+"/"+strconv.Itoa(i), child); err != nil {
				return err
			}
		}
	case json.Number:
		if !numberInRange(v) {
			return &Error{Kind: ErrNumberRange, Pointer: pointer, Detail: fmt.Sprintf("%.40s has an exponent beyond ±%d", v, MaxExponent)}
		}
	}
	return nil
}

// references records the references of the subschema m at pointer.
func (w *walker) references(m map[string]any, pointer string) {
	if _, ok := m["$dynamicAnchor"]; ok {
		w.dynamicAnchors = true
	}
	if _, ok := m["$recursiveAnchor"]; ok {
		w.dynamicAnchors = true
	}
	for _, kw := range []string{"$ref", "$dynamicRef", "$recursiveRef"} {
		ref, isString := m[kw].(string)
		if !isString {
			continue // absent, or not a reference (the compiler judges its type)
		}
		// Where a reference lands (this document, or a resource it
		// embeds; never a remote one) is checked once every $id is known.
		w.refs = append(w.refs, refAt{kw, ref, pointer + "/" + EscapeToken(kw)})
		if kw != "$ref" {
			w.dynamicRefs = true
		}
	}
}

// numberInRange bounds a literal's decimal exponent: exact arithmetic on
// 1e-99999999 costs unbounded memory (and panics inside the validator).
func numberInRange(n json.Number) bool {
	s := string(n)
	i := strings.IndexAny(s, "eE")
	if i < 0 {
		return len(s) <= MaxExponent
	}
	exp, err := strconv.Atoi(s[i+1:])
	return err == nil && exp >= -MaxExponent && exp <= MaxExponent && i <= MaxExponent
}
