package composition

import (
	"maps"
	"regexp"
	"slices"

	"github.com/typeward/typeward/internal/schema"
)

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
			for _, pattern := range slices.Sorted(maps.Keys(patterns)) {
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
		p.applyCatchAll(obj["additionalProperties"], atom+"/additionalProperties")
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
		p.applyCatchAll(extra, atom+"/unevaluatedProperties")
	}
	return p
}

// applyCatchAll applies an additionalProperties or unevaluatedProperties
// (at ptr, value extra) that covers the property: false forbids it (the
// first such pointer is the one reported), a schema describes it.
func (p *property) applyCatchAll(extra any, ptr string) {
	switch extra := extra.(type) {
	case bool:
		if !extra && p.forbidden == "" {
			p.forbidden = ptr
		}
	case map[string]any:
		p.ptrs = append(p.ptrs, ptr)
		p.declared = true
	}
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
