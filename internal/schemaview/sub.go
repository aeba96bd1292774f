// Package schemaview is typeward's one reader of JSON Schema subschemas:
// how a $ref (and a static $dynamicRef) applies beside its siblings, which
// subschemas apply in place, where an object describes a member and an
// array its items, and what unevaluatedProperties/unevaluatedItems leave
// over. The checker (internal/compat) and the field-path resolver
// (internal/composition) both read schemas through it, so that one rule
// has one implementation.
package schemaview

import (
	"strconv"

	"github.com/typeward/typeward/internal/schema"
)

// Sub is one subschema of a document: a boolean schema or an object, at
// its absolute JSON pointer.
type Sub struct {
	V   any            // true, false or the object
	M   map[string]any // the object, nil for a boolean schema
	Ptr string
}

// NewSub wraps the subschema v found at ptr.
func NewSub(v any, ptr string) Sub {
	m, _ := v.(map[string]any)
	return Sub{V: v, M: m, Ptr: ptr}
}

// IsFalse tells whether s is the schema false.
func (s Sub) IsFalse() bool {
	b, isBool := s.V.(bool)
	return isBool && !b
}

// Child is the subschema under keyword (and, for maps and arrays of
// schemas, under key); ok is false when there is none or the value there
// is not a schema.
func (s Sub) Child(keyword string, key ...string) (Sub, bool) {
	v, ok := s.M[keyword]
	ptr := s.Ptr + "/" + keyword
	for _, k := range key {
		if !ok {
			break
		}
		switch c := v.(type) {
		case map[string]any:
			v, ok = c[k]
		case []any:
			i, err := strconv.Atoi(k)
			ok = err == nil && i >= 0 && i < len(c)
			if ok {
				v = c[i]
			}
		default:
			ok = false
		}
		ptr += "/" + schema.EscapeToken(k)
	}
	if !ok {
		return Sub{}, false
	}
	switch v.(type) {
	case bool, map[string]any:
		return NewSub(v, ptr), true
	}
	return Sub{}, false // not a schema position
}

// Schemas lists the subschemas of an array-valued keyword (allOf, …).
func (s Sub) Schemas(keyword string) []Sub {
	arr, _ := s.M[keyword].([]any)
	out := make([]Sub, 0, len(arr))
	for i := range arr {
		if c, ok := s.Child(keyword, strconv.Itoa(i)); ok {
			out = append(out, c)
		}
	}
	return out
}

// View reads the subschemas of one loaded document in its dialect.
type View struct {
	doc *schema.Schema
	d7  bool // draft-07: a $ref replaces its siblings; no unevaluated*, prefixItems, $dynamicRef
}

// Of is the view of a document.
func Of(doc *schema.Schema) View {
	return View{doc: doc, d7: doc.Dialect == schema.Draft7}
}

// Doc is the document read.
func (v View) Doc() *schema.Schema { return v.doc }

// Draft7 tells whether the document is draft-07.
func (v View) Draft7() bool { return v.d7 }

// At is the subschema at pointer ptr; ok is false when nothing is there.
// What is there need not be a schema: Sub.M is then nil and V the value.
func (v View) At(ptr string) (Sub, bool) {
	n, ok := v.doc.At(ptr)
	if !ok {
		return Sub{}, false
	}
	return NewSub(n, ptr), true
}
