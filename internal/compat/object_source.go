package compat

import (
	"maps"
	"slices"
)

// What the source's conjuncts say about its object members.

// srcRequired is the set of names the source guarantees an object has:
// required of some conjunct, the view's own names, and the closure under
// dependentRequired (and draft-07's list-valued dependencies) of those.
func (r *run) srcRequired(s view) map[string]bool {
	out := map[string]bool{}
	for _, name := range s.req {
		out[name] = true
	}
	for _, n := range s.conj {
		for _, name := range stringList(n.m["required"]) {
			out[name] = true
		}
	}
	for grown := true; grown; {
		grown = false
		for _, n := range s.conj {
			for _, kw := range []string{"dependentRequired", "dependencies"} {
				if kw == "dependentRequired" && r.srcD7 {
					continue
				}
				deps, _ := n.m[kw].(map[string]any)
				for _, key := range slices.Sorted(maps.Keys(deps)) {
					if !out[key] {
						continue
					}
					for _, name := range stringList(deps[key]) {
						if !out[name] {
							out[name], grown = true, true
						}
					}
				}
			}
		}
	}
	return out
}

// srcProp is the source schema of the member called name: in each conjunct
// its properties entry and every matching patternProperties entry, or else
// additionalProperties. declared is false when no conjunct says anything
// beyond `true` about the name.
func (r *run) srcProp(s view, name string) (view, bool) {
	var nodes []node
	declared := false
	for _, n := range s.conj {
		matched, unknown := false, false
		if c, ok := n.child("properties", name); ok {
			nodes, matched = append(nodes, c), true
		}
		pats, _ := n.m["patternProperties"].(map[string]any)
		for _, pat := range slices.Sorted(maps.Keys(pats)) {
			re := r.checker.regexps.get(pat)
			if re == nil {
				unknown = true // dropping a constraint only widens the source
				continue
			}
			if re.MatchString(name) {
				if c, ok := n.child("patternProperties", pat); ok {
					nodes, matched = append(nodes, c), true
				}
			}
		}
		if matched {
			declared = true
			continue
		}
		if unknown {
			continue
		}
		if c, ok := r.srcAdditional(n); ok {
			nodes = append(nodes, c)
			if b, isBool := c.v.(bool); !isBool || !b {
				declared = true
			}
		}
	}
	v := viewOf(nodes...)
	if len(nodes) == 0 || !declared {
		v.at = r.srcPtr(s)
	}
	return v, declared
}

// srcAdditional is the schema a conjunct applies to names it does not
// declare: additionalProperties, or an unevaluatedProperties that means the
// same because nothing else in the conjunct evaluates properties.
func (r *run) srcAdditional(n node) (node, bool) {
	if c, ok := n.child("additionalProperties"); ok {
		return c, true
	}
	if r.srcD7 || hasApplicator(n.m) {
		return node{}, false
	}
	return n.child("unevaluatedProperties")
}

// srcExtra is the source schema of names no conjunct declares; possible is
// false when the source is closed to them.
func (r *run) srcExtra(s view) (view, bool) {
	var nodes []node
	for _, n := range s.conj {
		if c, ok := r.srcAdditional(n); ok {
			if b, isBool := c.v.(bool); isBool && b {
				continue
			}
			nodes = append(nodes, c)
		}
	}
	v := viewOf(nodes...)
	v.at = r.srcPtr(s)
	return v, r.possible(v)
}

// srcNames lists the property names the source declares, sorted.
func (r *run) srcNames(s view) []string {
	var names []string
	for _, n := range s.conj {
		props, _ := n.m["properties"].(map[string]any)
		for name := range props {
			names = append(names, name)
		}
	}
	slices.Sort(names)
	return slices.Compact(names)
}

type srcPattern struct {
	pattern string
	n       node
}

func (r *run) srcPatterns(s view) []srcPattern {
	var out []srcPattern
	for _, n := range s.conj {
		pats, _ := n.m["patternProperties"].(map[string]any)
		for _, pat := range slices.Sorted(maps.Keys(pats)) {
			if c, ok := n.child("patternProperties", pat); ok {
				out = append(out, srcPattern{pat, c})
			}
		}
	}
	return out
}

// coveredByTarget tells whether the properties or patternProperties of
// one of the evaluating target nodes govern name (so additionalProperties
// or unevaluatedProperties does not); known is false when a pattern cannot
// be evaluated.
func (r *run) coveredByTarget(evaluators []node, name string) (covered, known bool) {
	known = true
	for _, t := range evaluators {
		if _, ok := t.child("properties", name); ok {
			return true, true
		}
		pats, _ := t.m["patternProperties"].(map[string]any)
		for pat := range pats {
			re := r.checker.regexps.get(pat)
			if re == nil {
				known = false
				continue
			}
			if re.MatchString(name) {
				return true, true
			}
		}
	}
	return false, known
}

// tgtPropertyEvaluators lists the target nodes whose properties count as
// evaluated for t's unevaluatedProperties: t and every subschema always
// applied in place ($ref, static $dynamicRef, allOf, transitively). all is
// set when one of them evaluates every property (additionalProperties or
// its own unevaluatedProperties); exact is false when a conditional
// applicator (anyOf, oneOf, if/then/else, dependentSchemas) might evaluate
// properties too, which depends on the instance.
func (r *run) tgtPropertyEvaluators(t node) (nodes []node, all, exact bool) {
	seen := map[string]bool{}
	queue := []node{t}
	exact = true
	for len(queue) > 0 {
		n := queue[0]
		queue = queue[1:]
		if n.m == nil || seen[n.ptr] {
			continue
		}
		seen[n.ptr] = true
		nodes = append(nodes, n)
		if n.ptr != t.ptr {
			if _, ok := n.m["additionalProperties"]; ok {
				all = true
			}
			if _, ok := n.m["unevaluatedProperties"]; ok {
				all = true
			}
		}
		if ref, ok := n.m["$ref"].(string); ok {
			if v, ptr, err := r.tgt.ResolveFrom(n.ptr, ref); err == nil {
				queue = append(queue, newNode(v, ptr))
			}
		}
		for _, kw := range dynamicRefKeywords {
			if ref, ok := n.m[kw].(string); ok {
				v, ptr, static := r.tgt.ResolveDynamic(n.ptr, ref)
				if !static {
					exact = false
					continue
				}
				queue = append(queue, newNode(v, ptr))
			}
		}
		queue = append(queue, n.schemas("allOf")...)
		for _, kw := range []string{"anyOf", "oneOf", "if", "then", "else", "dependentSchemas", "dependencies"} {
			if v, ok := n.m[kw]; ok && evaluatesProperties(v) {
				exact = false
			}
		}
	}
	return nodes, all, exact
}

// evaluatesProperties: some subschema inside v could evaluate a property
// (looked for as text, which over-approximates safely).
func evaluatesProperties(v any) bool {
	switch v := v.(type) {
	case map[string]any:
		for k, e := range v {
			switch k {
			case "properties", "patternProperties", "additionalProperties", "unevaluatedProperties", "$ref", "$dynamicRef", "$recursiveRef":
				return true
			}
			if evaluatesProperties(e) {
				return true
			}
		}
	case []any:
		for _, e := range v {
			if evaluatesProperties(e) {
				return true
			}
		}
	}
	return false
}

// possible reports whether some instance could satisfy v.
func (r *run) possible(v view) bool {
	_, empty := r.normalize(v)
	return !empty
}
