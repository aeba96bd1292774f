package schema

import (
	"fmt"
	"maps"
	"net/url"
	"slices"
	"strconv"
	"strings"
)

// At returns the value at a JSON pointer ("" is the root).
func (s *Schema) At(pointer string) (any, bool) {
	return lookup(s.Root, pointer)
}

// Resolve follows one local reference ("#/…" pointer or "#name" anchor) and
// returns the referenced value with its JSON pointer.
func (s *Schema) Resolve(ref string) (any, string, error) {
	if !strings.HasPrefix(ref, "#") {
		return nil, "", &Error{Kind: ErrRemoteRef, Detail: fmt.Sprintf("%q", ref)}
	}
	frag, err := url.PathUnescape(ref[1:])
	if err != nil {
		return nil, "", &Error{Kind: ErrRefUnresolved, Detail: fmt.Sprintf("%q: %v", ref, err)}
	}
	if frag == "" || strings.HasPrefix(frag, "/") {
		v, ok := lookup(s.Root, frag)
		if !ok {
			return nil, "", &Error{Kind: ErrRefUnresolved, Detail: fmt.Sprintf("%q", ref)}
		}
		return v, frag, nil
	}
	if p, ok := findAnchor(s.Root, frag, ""); ok {
		v, _ := lookup(s.Root, p)
		return v, p, nil
	}
	return nil, "", &Error{Kind: ErrRefUnresolved, Detail: fmt.Sprintf("%q: no such anchor", ref)}
}

// ResolveFrom follows a reference written in the subschema at pointer
// from. References are resolved against the resource that holds them.
func (s *Schema) ResolveFrom(from, ref string) (any, string, error) {
	return s.Resolve(ref)
}

// ResolveDynamic follows a $dynamicRef or $recursiveRef written at pointer
// from when its target does not depend on the dynamic scope: in a document
// of one resource every resource of any scope is that one, so the
// reference lands where a $ref would. ok is false otherwise.
func (s *Schema) ResolveDynamic(from, ref string) (any, string, bool) {
	v, p, err := s.ResolveFrom(from, ref)
	return v, p, err == nil
}

// DynamicScoped reports that some $dynamicRef or $recursiveRef of the
// document depends on the dynamic scope (the document bundles several
// resources); ResolveDynamic then refuses those references.
func (s *Schema) DynamicScoped() bool { return false }

// findAnchor looks for an anchor where the validator does: in subschemas
// only. A "$anchor" inside data (const, enum, default, examples) or an
// unknown keyword names nothing; following it would check against the wrong
// schema. Keys are visited in order so the answer never depends on map order.
func findAnchor(v any, name, pointer string) (string, bool) {
	obj, ok := v.(map[string]any)
	if !ok {
		return "", false
	}
	if a, ok := obj["$anchor"].(string); ok && a == name {
		return pointer, true
	}
	if a, ok := obj["$dynamicAnchor"].(string); ok && a == name {
		return pointer, true
	}
	if id, ok := obj["$id"].(string); ok && id == "#"+name { // draft-07 anchors
		return pointer, true
	}
	for _, k := range slices.Sorted(maps.Keys(obj)) {
		here := pointer + "/" + EscapeToken(k)
		switch anchorScope[k] {
		case holdsSchema:
			if p, ok := findAnchor(obj[k], name, here); ok {
				return p, true
			}
		case holdsSchemaList:
			list, _ := obj[k].([]any)
			for i, e := range list {
				if p, ok := findAnchor(e, name, here+"/"+strconv.Itoa(i)); ok {
					return p, true
				}
			}
			if _, isList := obj[k].([]any); !isList && k == "items" {
				if p, ok := findAnchor(obj[k], name, here); ok {
					return p, true
				}
			}
		case holdsSchemaMap:
			m, _ := obj[k].(map[string]any)
			for _, n := range slices.Sorted(maps.Keys(m)) {
				if p, ok := findAnchor(m[n], name, here+"/"+EscapeToken(n)); ok {
					return p, true
				}
			}
		}
	}
	return "", false
}

type schemaPosition uint8

const (
	notSchema schemaPosition = iota
	holdsSchema
	holdsSchemaList // items is a schema in 2020-12 and may be a list in draft-07
	holdsSchemaMap
)

// anchorScope lists the keywords whose values are (or contain) subschemas.
var anchorScope = map[string]schemaPosition{
	"additionalProperties": holdsSchema, "unevaluatedProperties": holdsSchema,
	"additionalItems": holdsSchema, "unevaluatedItems": holdsSchema,
	"contains": holdsSchema, "propertyNames": holdsSchema, "not": holdsSchema,
	"if": holdsSchema, "then": holdsSchema, "else": holdsSchema, "contentSchema": holdsSchema,
	"items": holdsSchemaList, "prefixItems": holdsSchemaList,
	"allOf": holdsSchemaList, "anyOf": holdsSchemaList, "oneOf": holdsSchemaList,
	"$defs": holdsSchemaMap, "definitions": holdsSchemaMap, "properties": holdsSchemaMap,
	"patternProperties": holdsSchemaMap, "dependentSchemas": holdsSchemaMap,
	"dependencies": holdsSchemaMap,
}
