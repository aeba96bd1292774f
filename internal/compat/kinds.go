package compat

import (
	"encoding/json"
	"strings"
)

// Kinds is a set of JSON value kinds. Numbers are split into integral and
// fractional values so that "integer" is a subset of "number": this is what
// makes integer→number a widening and number→integer a mismatch.
type Kinds uint8

const (
	KindNull Kinds = 1 << iota
	KindBoolean
	KindObject
	KindArray
	KindInteger  // numbers with a zero fractional part
	KindFraction // numbers with a non-zero fractional part
	KindString

	KindNumber = KindInteger | KindFraction
	AnyKind    = KindNull | KindBoolean | KindObject | KindArray | KindNumber | KindString
)

func kindNamed(name string) Kinds {
	switch name {
	case "null":
		return KindNull
	case "boolean":
		return KindBoolean
	case "object":
		return KindObject
	case "array":
		return KindArray
	case "integer":
		return KindInteger
	case "number":
		return KindNumber
	case "string":
		return KindString
	}
	return 0
}

// DeclaredKinds reads the "type" keyword of a schema object; absent means
// every kind.
func DeclaredKinds(m map[string]any) Kinds {
	switch t := m["type"].(type) {
	case string:
		return kindNamed(t)
	case []any:
		var mask Kinds
		for _, e := range t {
			if s, ok := e.(string); ok {
				mask |= kindNamed(s)
			}
		}
		return mask
	}
	return AnyKind
}

// KindOf is the kind of one decoded JSON value (json.Number or float64 for
// numbers); 0 for anything that is not JSON.
func KindOf(v any) Kinds {
	switch v := v.(type) {
	case nil:
		return KindNull
	case bool:
		return KindBoolean
	case map[string]any:
		return KindObject
	case []any:
		return KindArray
	case string:
		return KindString
	case json.Number, float64:
		r, ok := ratOf(v)
		switch {
		case !ok:
			return KindNumber // too large to tell: either, to stay sound
		case r.IsInt():
			return KindInteger
		}
		return KindFraction
	}
	return 0
}

// KindsOf is every kind among values.
func KindsOf(values []any) Kinds {
	var k Kinds
	for _, v := range values {
		k |= KindOf(v)
	}
	return k
}

// NumbersMerged treats integer and fractional numbers as one kind: a set
// with either gets both. Field-path resolution, which only asks whether a
// value may be null, an object or an array, merges each keyword's kinds
// before intersecting them, so a contradictory number schema (integer type,
// fractional const) still counts as "may be a number" and keeps its warnings.
func (k Kinds) NumbersMerged() Kinds {
	if k&KindNumber != 0 {
		k |= KindNumber
	}
	return k
}

// keywordKinds is what one schema object's own keywords allow, using every
// keyword that narrows the kind: type, const/enum, and an integral multipleOf.
func keywordKinds(m map[string]any) Kinds {
	mask := DeclaredKinds(m)
	if c, ok := m["const"]; ok {
		mask &= KindOf(c)
	}
	if e, ok := m["enum"].([]any); ok {
		mask &= KindsOf(e)
	}
	if k, ok := ratOf(m["multipleOf"]); ok && k.IsInt() {
		mask &^= KindFraction
	}
	return mask
}

// anyValueOf says "any value" or "any string", "any string or null": the
// source unconstrained within its kinds, for messages.
func anyValueOf(m Kinds) string {
	if m == AnyKind {
		return "any value"
	}
	return "any " + describe(m)
}

// describe names a mask for messages: "object", "string or null",
// "integer", "number" (when fractional values are possible).
func describe(m Kinds) string {
	if m == AnyKind {
		return "any type"
	}
	var names []string
	for _, e := range []struct {
		bit  Kinds
		name string
	}{{KindObject, "object"}, {KindArray, "array"}, {KindString, "string"}, {KindBoolean, "boolean"}} {
		if m&e.bit != 0 {
			names = append(names, e.name)
		}
	}
	switch {
	case m&KindNumber == KindNumber, m&KindNumber == KindFraction:
		names = append(names, "number")
	case m&KindInteger != 0:
		names = append(names, "integer")
	}
	if m&KindNull != 0 {
		names = append(names, "null")
	}
	if len(names) == 0 {
		return "nothing"
	}
	return strings.Join(names, " or ")
}

// keywordFamily is the one kind a validating keyword constrains; a value of
// any other kind satisfies it. Keywords of every kind (type, enum, const,
// the applicators) are absent.
var keywordFamily = map[string]Kinds{
	"minimum": KindNumber, "maximum": KindNumber, "exclusiveMinimum": KindNumber, "exclusiveMaximum": KindNumber, "multipleOf": KindNumber,
	"minLength": KindString, "maxLength": KindString, "pattern": KindString,
	"items": KindArray, "prefixItems": KindArray, "additionalItems": KindArray, "contains": KindArray, "minContains": KindArray,
	"maxContains": KindArray, "minItems": KindArray, "maxItems": KindArray, "uniqueItems": KindArray, "unevaluatedItems": KindArray,
	"properties": KindObject, "patternProperties": KindObject, "additionalProperties": KindObject, "required": KindObject,
	"minProperties": KindObject, "maxProperties": KindObject, "propertyNames": KindObject, "dependentRequired": KindObject,
	"dependentSchemas": KindObject, "dependencies": KindObject, "unevaluatedProperties": KindObject,
}
