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

// coveredByTarget tells whether the target's properties or
// patternProperties govern name (so additionalProperties does not); known
// is false when a pattern cannot be evaluated.
func (r *run) coveredByTarget(t node, name string) (covered, known bool) {
	if _, ok := t.child("properties", name); ok {
		return true, true
	}
	pats, _ := t.m["patternProperties"].(map[string]any)
	known = true
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
	return false, known
}

// possible reports whether some instance could satisfy v.
func (r *run) possible(v view) bool {
	_, empty := r.normalize(v)
	return !empty
}
