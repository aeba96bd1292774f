package schemaview

import (
	"encoding/json"
	"maps"
	"math/big"
	"slices"
)

// Member is what one schema object says about its member called name.
type Member struct {
	Named    Sub // its properties entry, when HasNamed
	HasNamed bool
	Patterns []Sub // every matching patternProperties entry, patterns sorted
	// Unknown: a pattern Go's engine refuses may match the name, so whether
	// additionalProperties applies to it is unknown.
	Unknown bool
}

// Member looks name up in the properties and patternProperties of s.
func (v View) Member(s Sub, name string) Member {
	var m Member
	m.Named, m.HasNamed = s.Child("properties", name)
	pats, _ := s.M["patternProperties"].(map[string]any)
	for _, pat := range slices.Sorted(maps.Keys(pats)) {
		re := Regexp(pat)
		if re == nil {
			m.Unknown = true
			continue
		}
		if re.MatchString(name) {
			if c, ok := s.Child("patternProperties", pat); ok {
				m.Patterns = append(m.Patterns, c)
			}
		}
	}
	return m
}

// Matched: the name is declared (named or matched by a pattern).
func (m Member) Matched() bool { return m.HasNamed || len(m.Patterns) > 0 }

// Schemas are the named entry, then the matching patterns' entries.
func (m Member) Schemas() []Sub {
	if m.HasNamed {
		return append([]Sub{m.Named}, m.Patterns...)
	}
	return m.Patterns
}

// Additional is the schema s applies to every name that it does not
// declare and that unevaluatedProperties does not see evaluated elsewhere:
// its additionalProperties, or an unevaluatedProperties when nothing
// applied in place beside it evaluates properties (so it means the same).
func (v View) Additional(s Sub) (Sub, bool) {
	if c, ok := s.Child("additionalProperties"); ok {
		return c, true
	}
	if v.d7 || HasApplicator(s.M) {
		return Sub{}, false
	}
	return s.Child("unevaluatedProperties")
}

// Guaranteed is the set of names every object satisfying all of subs has:
// those given, those some sub requires, and the closure of these under
// dependentRequired (and draft-07's list-valued dependencies).
func (v View) Guaranteed(subs []Sub, given ...string) map[string]bool {
	out := map[string]bool{}
	for _, name := range given {
		out[name] = true
	}
	for _, s := range subs {
		req, _ := s.M["required"].([]any)
		for _, r := range req {
			if name, ok := r.(string); ok {
				out[name] = true
			}
		}
	}
	closedNames(subs, out)
	for grown := true; grown; {
		grown = false
		for _, s := range subs {
			for _, kw := range []string{"dependentRequired", "dependencies"} {
				if kw == "dependentRequired" && v.d7 {
					continue
				}
				deps, _ := s.M[kw].(map[string]any)
				for _, key := range slices.Sorted(maps.Keys(deps)) {
					if !out[key] {
						continue
					}
					names, _ := deps[key].([]any)
					for _, n := range names {
						if name, ok := n.(string); ok && !out[name] {
							out[name], grown = true, true
						}
					}
				}
			}
		}
	}
	return out
}

// closedNames adds to out the names of a closed sub (additionalProperties
// false, no patternProperties) when the objects must have at least as many
// properties as it declares: every declared name is then present.
func closedNames(subs []Sub, out map[string]bool) {
	least := 0
	for _, s := range subs {
		if k, ok := s.M["minProperties"].(json.Number); ok {
			if r, ok := new(big.Rat).SetString(string(k)); ok && r.IsInt() && r.Num().IsInt64() && int(r.Num().Int64()) > least {
				least = int(r.Num().Int64())
			}
		}
	}
	if least == 0 {
		return
	}
	for _, s := range subs {
		props, _ := s.M["properties"].(map[string]any)
		if _, patterns := s.M["patternProperties"]; patterns || s.M["additionalProperties"] != false || len(props) == 0 || least < len(props) {
			continue
		}
		for name := range props {
			out[name] = true
		}
	}
}
