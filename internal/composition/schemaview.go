package composition

import (
	"encoding/json"
	"regexp"
	"slices"
	"strconv"

	"github.com/typeward/typeward/internal/schema"
)

// schemaView reads the subschemas of one document the way a field path
// needs them: what a value at a pointer must satisfy, which JSON types it
// may have, and where its properties and items are described.
type schemaView struct {
	doc    *schema.Schema
	draft7 bool // a $ref replaces its siblings
}

func newSchemaView(doc *schema.Schema) schemaView {
	return schemaView{doc: doc, draft7: doc.Dialect == schema.Draft7}
}

func (v schemaView) at(ptr string) any {
	n, _ := v.doc.At(ptr)
	return n
}

func (v schemaView) object(ptr string) map[string]any {
	m, _ := v.at(ptr).(map[string]any)
	return m
}

// expansion is a conjunction of subschemas that all apply to one value.
type expansion struct {
	atoms  []string // object subschemas whose keywords all apply
	unions []string // anyOf/oneOf with several non-null branches, not expanded
}

// expand follows $ref, allOf and nullable unions (anyOf/oneOf whose other
// branches only admit null) from every pointer of a conjunction.
func (v schemaView) expand(ptrs []string) expansion {
	var x expansion
	seen := map[string]bool{}
	var visit func(ptr string)
	visit = func(ptr string) {
		if seen[ptr] { // recursive schemas: once is enough for a conjunction
			return
		}
		seen[ptr] = true
		obj := v.object(ptr)
		if obj == nil {
			return // true adds nothing; false is caught by the type set
		}
		if ref, ok := obj["$ref"].(string); ok {
			if _, target, err := v.doc.Resolve(ref); err == nil {
				visit(target)
			}
			if v.draft7 {
				return
			}
		}
		x.atoms = append(x.atoms, ptr)
		if branches, ok := obj["allOf"].([]any); ok {
			for i := range branches {
				visit(childPtr(ptr, "allOf", i))
			}
		}
		for _, kw := range []string{"anyOf", "oneOf"} {
			branches, ok := obj[kw].([]any)
			if !ok {
				continue
			}
			var nonNull []string
			for i := range branches {
				b := childPtr(ptr, kw, i)
				if v.types(b)&^typeNull != 0 {
					nonNull = append(nonNull, b)
				}
			}
			switch len(nonNull) {
			case 0:
			case 1:
				visit(nonNull[0])
			default:
				x.unions = append(x.unions, ptr+"/"+kw)
			}
		}
	}
	for _, p := range ptrs {
		visit(p)
	}
	return x
}

// nonNullBranches lists the branches of a union (a pointer to an anyOf or
// oneOf array) that admit something other than null.
func (v schemaView) nonNullBranches(union string) []string {
	branches, _ := v.at(union).([]any)
	var out []string
	for i := range branches {
		b := union + "/" + strconv.Itoa(i)
		if v.types(b)&^typeNull != 0 {
			out = append(out, b)
		}
	}
	return out
}

// jsonTypes is a set of JSON types; integer is inside number.
type jsonTypes uint8

const (
	typeNull jsonTypes = 1 << iota
	typeBoolean
	typeObject
	typeArray
	typeNumber
	typeString
	anyType = typeNull | typeBoolean | typeObject | typeArray | typeNumber | typeString
)

func typeNamed(name string) jsonTypes {
	switch name {
	case "null":
		return typeNull
	case "boolean":
		return typeBoolean
	case "object":
		return typeObject
	case "array":
		return typeArray
	case "number", "integer":
		return typeNumber
	case "string":
		return typeString
	}
	return 0
}

func typeOfValue(val any) jsonTypes {
	switch val.(type) {
	case nil:
		return typeNull
	case bool:
		return typeBoolean
	case map[string]any:
		return typeObject
	case []any:
		return typeArray
	case json.Number, float64:
		return typeNumber
	case string:
		return typeString
	}
	return 0
}

// typesOf is the set of JSON types every pointer of a conjunction admits.
func (v schemaView) typesOf(ptrs []string) jsonTypes {
	t := anyType
	for _, p := range ptrs {
		t &= v.types(p)
	}
	return t
}

// types over-approximates the JSON types a subschema admits: it may say a
// type is possible when it is not, never the reverse.
func (v schemaView) types(ptr string) jsonTypes {
	return v.typesWithin(ptr, map[string]bool{})
}

func (v schemaView) typesWithin(ptr string, onStack map[string]bool) jsonTypes {
	node := v.at(ptr)
	if b, ok := node.(bool); ok {
		if b {
			return anyType
		}
		return 0
	}
	obj, ok := node.(map[string]any)
	if !ok || onStack[ptr] {
		return anyType // a recursive reference back: assume anything
	}
	onStack[ptr] = true
	defer delete(onStack, ptr)
	t := anyType
	if ref, ok := obj["$ref"].(string); ok {
		if _, target, err := v.doc.Resolve(ref); err == nil {
			t &= v.typesWithin(target, onStack)
		}
		if v.draft7 {
			return t
		}
	}
	switch ty := obj["type"].(type) {
	case string:
		t &= typeNamed(ty)
	case []any:
		var allowed jsonTypes
		for _, name := range ty {
			if s, ok := name.(string); ok {
				allowed |= typeNamed(s)
			}
		}
		t &= allowed
	}
	if c, ok := obj["const"]; ok {
		t &= typeOfValue(c)
	}
	if values, ok := obj["enum"].([]any); ok {
		var allowed jsonTypes
		for _, val := range values {
			allowed |= typeOfValue(val)
		}
		t &= allowed
	}
	if branches, ok := obj["allOf"].([]any); ok {
		for i := range branches {
			t &= v.typesWithin(childPtr(ptr, "allOf", i), onStack)
		}
	}
	for _, kw := range []string{"anyOf", "oneOf"} {
		if branches, ok := obj[kw].([]any); ok {
			var union jsonTypes
			for i := range branches {
				union |= v.typesWithin(childPtr(ptr, kw, i), onStack)
			}
			t &= union
		}
	}
	return t
}

// property is where a conjunction describes one property.
type property struct {
	ptrs      []string // every subschema the property's value satisfies
	declared  bool     // named in properties, matched by patternProperties, or typed by additionalProperties
	forbidden string   // pointer of an additionalProperties: false that excludes it
	required  bool
	// unsure points at an unevaluatedProperties that may or may not apply
	// (subschemas the resolver does not follow may evaluate the name): a
	// source ignores it, which only widens; a target cannot be resolved.
	unsure string
}

func (v schemaView) property(x expansion, name string) property {
	var p property
	for _, atom := range x.atoms {
		obj := v.object(atom)
		if props, ok := obj["properties"].(map[string]any); ok {
			if _, ok := props[name]; ok {
				p.ptrs = append(p.ptrs, atom+"/properties/"+schema.EscapeToken(name))
			}
		}
		if req, ok := obj["required"].([]any); ok {
			for _, r := range req {
				p.required = p.required || r == name
			}
		}
	}
	for _, atom := range x.atoms {
		obj := v.object(atom)
		matched := false
		if props, ok := obj["properties"].(map[string]any); ok {
			_, matched = props[name]
		}
		if patterns, ok := obj["patternProperties"].(map[string]any); ok {
			for _, pattern := range sortedKeys(patterns) {
				// Patterns the Go engine cannot compile are skipped: on the
				// source that only loses precision; a target keeps its other
				// constraints and the checker sees the whole schema anyway.
				if re, err := regexp.Compile(pattern); err == nil && re.MatchString(name) {
					p.ptrs = append(p.ptrs, atom+"/patternProperties/"+schema.EscapeToken(pattern))
					matched = true
				}
			}
		}
		if matched {
			p.declared = true
			continue
		}
		switch extra := obj["additionalProperties"].(type) {
		case bool:
			if !extra && p.forbidden == "" {
				p.forbidden = atom + "/additionalProperties"
			}
		case map[string]any:
			p.ptrs = append(p.ptrs, atom+"/additionalProperties")
			p.declared = true
		}
	}
	if v.draft7 {
		return p // draft-07 has no unevaluatedProperties: the validator ignores it
	}
	for _, atom := range x.atoms {
		extra, ok := v.object(atom)["unevaluatedProperties"]
		if !ok {
			continue
		}
		switch v.unevaluated(atom, name) {
		case notApplied:
			continue
		case mayApply:
			if p.unsure == "" {
				p.unsure = atom + "/unevaluatedProperties"
			}
			continue
		}
		switch extra := extra.(type) {
		case bool:
			if !extra && p.forbidden == "" {
				p.forbidden = atom + "/unevaluatedProperties"
			}
		case map[string]any:
			p.ptrs = append(p.ptrs, atom+"/unevaluatedProperties")
			p.declared = true
		}
	}
	return p
}

// unevaluatedUse says whether a schema's unevaluatedProperties applies to a
// property name.
type unevaluatedUse int

const (
	applied unevaluatedUse = iota
	notApplied
	mayApply // an applicator the resolver does not follow may evaluate the name
)

// unevaluated decides whether the unevaluatedProperties of the schema at
// atom applies to name: it does unless the schema or a subschema applied in
// place (allOf, $ref) evaluates the name. Annotations of a sibling or parent
// schema do not count, which is why this is asked per schema, not per
// conjunction.
func (v schemaView) unevaluated(atom, name string) unevaluatedUse {
	x := v.expand([]string{atom})
	for _, a := range x.atoms {
		obj := v.object(a)
		if _, ok := obj["additionalProperties"]; ok {
			return notApplied
		}
		if props, ok := obj["properties"].(map[string]any); ok {
			if _, ok := props[name]; ok {
				return notApplied
			}
		}
		patterns, _ := obj["patternProperties"].(map[string]any)
		for pattern := range patterns {
			re, err := regexp.Compile(pattern)
			if err != nil {
				return mayApply
			}
			if re.MatchString(name) {
				return notApplied
			}
		}
	}
	if len(x.unions) > 0 {
		return mayApply
	}
	for _, a := range x.atoms {
		obj := v.object(a)
		for _, kw := range []string{"if", "dependentSchemas", "dependencies", "$dynamicRef", "$recursiveRef"} {
			if _, ok := obj[kw]; ok {
				return mayApply
			}
		}
	}
	return applied
}

// items is where a conjunction describes array elements.
type items struct {
	ptrs     []string
	tuple    string // pointer of a prefixItems (or draft-07 array items) that makes positions differ
	minItems json.Number
	maxItems json.Number
}

func (v schemaView) items(x expansion) items {
	var it items
	for _, atom := range x.atoms {
		obj := v.object(atom)
		if _, ok := obj["prefixItems"]; ok && it.tuple == "" {
			it.tuple = atom + "/prefixItems"
		}
		switch obj["items"].(type) {
		case map[string]any, bool:
			it.ptrs = append(it.ptrs, atom+"/items")
		case []any:
			if it.tuple == "" {
				it.tuple = atom + "/items"
			}
		}
		if n, ok := obj["minItems"].(json.Number); ok && (it.minItems == "" || numberLess(it.minItems, n)) {
			it.minItems = n
		}
		if n, ok := obj["maxItems"].(json.Number); ok && (it.maxItems == "" || numberLess(n, it.maxItems)) {
			it.maxItems = n
		}
	}
	return it
}

func numberLess(a, b json.Number) bool {
	x, errA := a.Float64()
	y, errB := b.Float64()
	return errA == nil && errB == nil && x < y
}

func childPtr(ptr, keyword string, i int) string {
	return ptr + "/" + keyword + "/" + strconv.Itoa(i)
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
