package composition

import (
	"encoding/json"
	"strconv"

	"github.com/typeward/typeward/internal/compat"
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
			if _, target, err := v.doc.ResolveFrom(ptr, ref); err == nil {
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
				if v.types(b)&^compat.KindNull != 0 {
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
		if v.types(b)&^compat.KindNull != 0 {
			out = append(out, b)
		}
	}
	return out
}

// typesOf is the set of JSON types every pointer of a conjunction admits.
func (v schemaView) typesOf(ptrs []string) compat.Kinds {
	t := compat.AnyKind
	for _, p := range ptrs {
		t &= v.types(p)
	}
	return t
}

// types over-approximates the JSON types a subschema admits: it may say a
// type is possible when it is not, never the reverse.
func (v schemaView) types(ptr string) compat.Kinds {
	return v.typesWithin(ptr, map[string]bool{})
}

func (v schemaView) typesWithin(ptr string, onStack map[string]bool) compat.Kinds {
	node := v.at(ptr)
	if b, ok := node.(bool); ok {
		if b {
			return compat.AnyKind
		}
		return 0
	}
	obj, ok := node.(map[string]any)
	if !ok || onStack[ptr] {
		return compat.AnyKind // a recursive reference back: assume anything
	}
	onStack[ptr] = true
	defer delete(onStack, ptr)
	t := compat.AnyKind
	if ref, ok := obj["$ref"].(string); ok {
		if _, target, err := v.doc.ResolveFrom(ptr, ref); err == nil {
			t &= v.typesWithin(target, onStack)
		}
		if v.draft7 {
			return t
		}
	}
	// Each keyword's kinds are merged before they meet: a path only asks
	// about null, objects and arrays (see compat.Kinds.NumbersMerged).
	t &= compat.DeclaredKinds(obj).NumbersMerged()
	if c, ok := obj["const"]; ok {
		t &= compat.KindOf(c).NumbersMerged()
	}
	if values, ok := obj["enum"].([]any); ok {
		t &= compat.KindsOf(values).NumbersMerged()
	}
	if branches, ok := obj["allOf"].([]any); ok {
		for i := range branches {
			t &= v.typesWithin(childPtr(ptr, "allOf", i), onStack)
		}
	}
	for _, kw := range []string{"anyOf", "oneOf"} {
		if branches, ok := obj[kw].([]any); ok {
			var union compat.Kinds
			for i := range branches {
				union |= v.typesWithin(childPtr(ptr, kw, i), onStack)
			}
			t &= union
		}
	}
	return t
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
