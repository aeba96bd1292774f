package composition

import (
	"encoding/json"
	"strconv"

	"github.com/typeward/typeward/internal/compat"
	"github.com/typeward/typeward/internal/schema"
	"github.com/typeward/typeward/internal/schemaview"
)

// schemaView reads the subschemas of one document the way a field path
// needs them: what a value at a pointer must satisfy, which JSON types it
// may have, and where its properties and items are described.
type schemaView struct {
	doc *schema.Schema
	sv  schemaview.View
}

func newSchemaView(doc *schema.Schema) schemaView {
	return schemaView{doc: doc, sv: schemaview.Of(doc)}
}

func (v schemaView) at(ptr string) any {
	n, _ := v.doc.At(ptr)
	return n
}

func (v schemaView) object(ptr string) map[string]any {
	m, _ := v.at(ptr).(map[string]any)
	return m
}

// sub is the subschema object at ptr (M nil for anything else).
func (v schemaView) sub(ptr string) schemaview.Sub {
	return schemaview.NewSub(v.object(ptr), ptr)
}

// expansion is a conjunction of subschemas that all apply to one value.
type expansion struct {
	atoms  []string // object subschemas whose keywords all apply
	unions []string // anyOf/oneOf with several non-null branches, not expanded
}

// expand follows $ref, static $dynamicRef, allOf and nullable unions (anyOf/oneOf whose other
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
		in := v.sv.InPlace(v.sub(ptr), schemaview.FollowAll)
		for _, r := range in.Refs() {
			visit(r.Ptr)
		}
		if in.Replaced {
			return
		}
		x.atoms = append(x.atoms, ptr)
		for _, b := range in.AllOf {
			visit(b.Ptr)
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
	in := v.sv.InPlace(schemaview.NewSub(obj, ptr), schemaview.FollowAll)
	for _, r := range in.Refs() {
		t &= v.typesWithin(r.Ptr, onStack)
	}
	if in.Replaced {
		return t
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
	for _, b := range in.AllOf {
		t &= v.typesWithin(b.Ptr, onStack)
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
	arrays   []string // the conjunction describing the array itself
	ptrs     []string
	tuple    string // pointer of a prefixItems (or draft-07 array items) that makes positions differ
	minItems json.Number
	maxItems json.Number
	// lost points at the first keyword of the array that a projection of
	// its items does not carry (contains, uniqueItems, not, …): a
	// projected value the synthesized schema accepts may be no output's.
	lost string
}

// arrayWide are the keywords that constrain an array beyond what its items
// and length say, so a projection of the items drops them.
var arrayWide = []string{"const", "enum", "contains", "maxContains", "uniqueItems", "not", "if"}

func (v schemaView) items(x expansion) items {
	it := items{arrays: x.atoms}
	for _, atom := range x.atoms {
		s := v.sub(atom)
		if kw := v.sv.TupleKeyword(s); kw != "" {
			if it.tuple == "" {
				it.tuple = atom + "/" + kw
			}
		} else if rest := v.sv.ItemRest(s); rest.Has && rest.From == 0 {
			it.ptrs = append(it.ptrs, rest.Sub.Ptr) // items, or an unevaluatedItems that applies to every item
		} else if rest.Unsure && it.lost == "" {
			it.lost = rest.Sub.Ptr // which items it applies to depends on the array
		}
		for _, kw := range arrayWide {
			if _, ok := s.M[kw]; ok && it.lost == "" {
				it.lost = atom + "/" + kw
			}
		}
		if scoped := v.sv.InPlace(s, schemaview.FollowDynamicRef).Scoped; len(scoped) > 0 && it.lost == "" {
			it.lost = atom + "/" + scoped[0]
		}
		if n, ok := s.M["minItems"].(json.Number); ok && (it.minItems == "" || schemaview.Less(it.minItems, n)) {
			it.minItems = n
		}
		if n, ok := s.M["maxItems"].(json.Number); ok && (it.maxItems == "" || schemaview.Less(n, it.maxItems)) {
			it.maxItems = n
		}
	}
	return it
}

func childPtr(ptr, keyword string, i int) string {
	return ptr + "/" + keyword + "/" + strconv.Itoa(i)
}
