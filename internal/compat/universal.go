package compat

import (
	"maps"
	"slices"

	"github.com/typeward/typeward/internal/schema"
)

// maxUniversalDepth bounds how deep acceptsAll and rejectsAll look.
const maxUniversalDepth = 8

// acceptsAll reports that the subschema n of doc accepts every value (the
// universality law): true, {}, a schema of annotations only, an anyOf
// holding a schema and its negation, and so on. false means "not shown".
func acceptsAll(doc *schema.Schema, n node, depth int) bool {
	if n.m == nil {
		b, _ := n.v.(bool)
		return b
	}
	if depth > maxUniversalDepth {
		return false
	}
	d7 := doc.Dialect == schema.Draft7
	if ref, ok := n.m["$ref"].(string); ok && d7 {
		v, ptr, err := doc.ResolveFrom(n.ptr, ref)
		return err == nil && acceptsAll(doc, newNode(v, ptr), depth+1)
	}
	for kw := range n.m {
		if constrains(kw, d7) && !vacuousKeyword(doc, n, kw, d7, depth) {
			return false
		}
	}
	return true
}

// vacuousKeyword: keyword kw of n rejects no value.
func vacuousKeyword(doc *schema.Schema, n node, kw string, d7 bool, depth int) bool {
	all := func(ns []node) bool {
		for _, c := range ns {
			if !acceptsAll(doc, c, depth+1) {
				return false
			}
		}
		return true
	}
	child := func(kw string, key ...string) bool {
		c, ok := n.child(kw, key...)
		return !ok || acceptsAll(doc, c, depth+1)
	}
	switch kw {
	case "$ref":
		v, ptr, err := doc.ResolveFrom(n.ptr, n.m[kw].(string))
		return err == nil && acceptsAll(doc, newNode(v, ptr), depth+1)
	case "$dynamicRef", "$recursiveRef":
		ref, _ := n.m[kw].(string)
		v, ptr, ok := doc.ResolveDynamic(n.ptr, ref)
		return ok && acceptsAll(doc, newNode(v, ptr), depth+1)
	case "allOf":
		return all(n.schemas(kw))
	case "anyOf":
		bs := n.schemas(kw)
		return slices.ContainsFunc(bs, func(b node) bool { return acceptsAll(doc, b, depth+1) }) ||
			complementaryPair(doc, bs) != nil
	case "oneOf":
		bs := n.schemas(kw)
		rest := func(skip ...int) bool {
			for i, b := range bs {
				if !slices.Contains(skip, i) && !rejectsAll(doc, b, depth+1) {
					return false
				}
			}
			return true
		}
		for i, b := range bs {
			if acceptsAll(doc, b, depth+1) && rest(i) {
				return true
			}
		}
		if pair := complementaryPair(doc, bs); pair != nil {
			return rest(pair[0], pair[1])
		}
		return false
	case "not":
		c, ok := n.child(kw)
		return ok && rejectsAll(doc, c, depth+1)
	case "if":
		return child("then") && child("else")
	case "then", "else", "minContains", "maxContains":
		return true // without if (or contains) they do nothing; with it, decided there
	case "properties", "patternProperties", "dependentSchemas", "dependencies":
		m, _ := n.m[kw].(map[string]any)
		for _, k := range slices.Sorted(maps.Keys(m)) {
			if list, isList := m[k].([]any); isList {
				if len(list) > 0 {
					return false
				}
				continue
			}
			if !child(kw, k) {
				return false
			}
		}
		return true
	case "additionalProperties", "unevaluatedProperties", "propertyNames", "additionalItems", "unevaluatedItems":
		return child(kw)
	case "items", "prefixItems":
		if _, isList := n.m[kw].([]any); isList {
			return all(n.schemas(kw))
		}
		return child(kw)
	case "contains":
		if d7 {
			return false
		}
		min, ok := intOf(n.m["minContains"])
		_, hasMax := n.m["maxContains"]
		return ok && min.Sign() == 0 && !hasMax
	case "type":
		return DeclaredKinds(n.m) == AnyKind
	case "required":
		return len(stringList(n.m[kw])) == 0
	case "dependentRequired":
		m, _ := n.m[kw].(map[string]any)
		for _, v := range m {
			if len(stringList(v)) > 0 {
				return false
			}
		}
		return true
	case "minLength", "minItems", "minProperties":
		v, ok := intOf(n.m[kw])
		return ok && v.Sign() == 0
	case "uniqueItems":
		u, _ := n.m[kw].(bool)
		return !u
	}
	return false
}

// rejectsAll reports that the subschema n of doc accepts no value. false
// means "not shown".
func rejectsAll(doc *schema.Schema, n node, depth int) bool {
	if n.m == nil {
		b, isBool := n.v.(bool)
		return isBool && !b
	}
	if depth > maxUniversalDepth {
		return false
	}
	d7 := doc.Dialect == schema.Draft7
	if ref, ok := n.m["$ref"].(string); ok {
		v, ptr, err := doc.ResolveFrom(n.ptr, ref)
		if err == nil && rejectsAll(doc, newNode(v, ptr), depth+1) {
			return true
		}
		if d7 {
			return false
		}
	}
	if keywordKinds(n.m) == 0 {
		return true
	}
	if c, ok := n.child("not"); ok && acceptsAll(doc, c, depth+1) {
		return true
	}
	for _, b := range n.schemas("allOf") {
		if rejectsAll(doc, b, depth+1) {
			return true
		}
	}
	for _, kw := range []string{"anyOf", "oneOf"} {
		bs := n.schemas(kw)
		if len(bs) > 0 && !slices.ContainsFunc(bs, func(b node) bool { return !rejectsAll(doc, b, depth+1) }) {
			return true
		}
	}
	return false
}

// complementaryPair finds two branches X and {not: X}; every value meets
// exactly one of them.
func complementaryPair(doc *schema.Schema, bs []node) []int {
	d7 := doc.Dialect == schema.Draft7
	for j, b := range bs {
		if b.m == nil {
			continue
		}
		neg, ok := b.child("not")
		if !ok || !onlyKeyword(b.m, "not", d7) {
			continue
		}
		for i, a := range bs {
			if i != j && sameSchema(side{doc, a}, side{doc, neg}) {
				return []int{i, j}
			}
		}
	}
	return nil
}

// onlyKeyword: kw is the only keyword of m the validator asserts.
func onlyKeyword(m map[string]any, kw string, d7 bool) bool {
	for k := range m {
		if k != kw && constrains(k, d7) {
			return false
		}
	}
	return true
}

// excludedMiddle: the target t is an anyOf, and nothing else, holding a
// negation {not: X} and a branch A such that X, on the kinds the source s
// may have, is proven to fit A: every value of s is in X (so in A) or not
// (so in not X). {type: integer} fits {anyOf: [{type: integer, multipleOf:
// 2}, {not: {multipleOf: 2}}]}. The inclusion is asked of the rules within
// the target's document.
func (r *run) excludedMiddle(s view, t node) bool {
	if r.negCheck >= maxNegChecks {
		return false
	}
	branches := t.schemas("anyOf")
	if len(branches) < 2 || len(branches) > maxMiddleBranches {
		return false
	}
	for kw := range t.m {
		if kw != "anyOf" && constrains(kw, r.tgtD7) {
			return false
		}
	}
	for i, b := range branches {
		x, ok := b.child("not")
		if !ok || b.m == nil {
			continue
		}
		alone := true
		for kw := range b.m {
			if kw != "not" && constrains(kw, r.tgtD7) {
				alone = false
			}
		}
		if !alone {
			continue
		}
		for j, a := range branches {
			if j != i && r.withinTarget(x, s.types, a) {
				return true
			}
		}
	}
	return false
}

// maxMiddleBranches bounds the pairs excludedMiddle tries.
const maxMiddleBranches = 8

// withinTarget: x, on the kinds given, fits a, both subschemas of the
// target's document, as the rules prove it (a run with the target's
// document on both sides).
func (r *run) withinTarget(x node, kinds Kinds, a node) bool {
	c := *r
	c.src, c.srcD7 = r.tgt, r.tgtD7
	c.srcRoot = x
	c.inProgress = map[string]int{}
	c.caches = newRunCaches()
	c.negCheck++
	v := viewOf(x)
	v.types = kinds
	ok := len(c.sub(v, a, path{})) == 0
	r.budget, r.exhausted = c.budget, r.exhausted || c.exhausted
	return ok && !c.exhausted
}
