package schemaview

// Follow selects the in-place applicators InPlace follows: a caller that
// has already accounted for one (the checker compared a target's $ref on
// its own) leaves it out.
type Follow uint8

const (
	FollowRef Follow = 1 << iota
	FollowDynamicRef
	FollowAllOf

	FollowAll = FollowRef | FollowDynamicRef | FollowAllOf
)

// InPlaceSchemas is what applies to a value in place of, or beside, one schema
// object unconditionally: the targets of its references and its allOf
// branches.
type InPlaceSchemas struct {
	Refs  []Sub // the $ref target, then static $dynamicRef/$recursiveRef targets
	AllOf []Sub
	// Replaced: a draft-07 $ref resolved, so the object's other keywords
	// (allOf included) do not apply; Refs holds the target alone.
	Replaced bool
	// Dynamic: a dynamic reference whose target depends on the path that
	// reached it (a bundled document); it is not in Refs.
	Dynamic bool
}

// DynamicRefKeywords are the references whose target depends on the
// dynamic scope; in a document of one resource they are static.
var DynamicRefKeywords = []string{"$dynamicRef", "$recursiveRef"}

// InPlace lists what applies unconditionally to the same value as s. An
// unresolvable $ref cannot occur in a loaded schema; it is left out, which
// only widens a source (a target's callers see every keyword anyway).
func (v View) InPlace(s Sub, follow Follow) InPlaceSchemas {
	var a InPlaceSchemas
	if s.M == nil {
		return a
	}
	if ref, ok := s.M["$ref"].(string); ok && follow&FollowRef != 0 {
		if n, ptr, err := v.doc.ResolveFrom(s.Ptr, ref); err == nil {
			a.Refs = append(a.Refs, NewSub(n, ptr))
			if v.d7 {
				a.Replaced = true
				return a
			}
		}
	}
	if follow&FollowDynamicRef != 0 && !v.d7 {
		for _, kw := range DynamicRefKeywords {
			if ref, ok := s.M[kw].(string); ok {
				if n, ptr, static := v.doc.ResolveDynamic(s.Ptr, ref); static {
					a.Refs = append(a.Refs, NewSub(n, ptr))
				} else {
					a.Dynamic = true
				}
			}
		}
	}
	if follow&FollowAllOf != 0 {
		a.AllOf = s.Schemas("allOf")
	}
	return a
}

// Applicators evaluate properties or items "in place" (on the same value);
// with one present, what unevaluated* covers depends on them.
var Applicators = []string{"$ref", "$dynamicRef", "$recursiveRef", "allOf", "anyOf", "oneOf", "not", "if", "then", "else", "dependentSchemas", "dependencies"}

// conditional applicators apply (or count) depending on the instance.
var conditional = []string{"anyOf", "oneOf", "if", "then", "else", "dependentSchemas", "dependencies"}

// HasApplicator tells whether a schema object holds an in-place applicator.
func HasApplicator(m map[string]any) bool {
	for _, k := range Applicators {
		if _, ok := m[k]; ok {
			return true
		}
	}
	return false
}
