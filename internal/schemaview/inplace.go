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

// InPlaceSchemas is what applies to a value in place of, or beside, one
// schema object unconditionally: the targets of its references and its
// allOf branches.
type InPlaceSchemas struct {
	Ref    Sub // the $ref target, when HasRef
	HasRef bool
	// RefErr: the $ref does not resolve here: it names a standard
	// metaschema (schema.ReferencesMetaschema), the validator's to follow.
	// A source drops it, which only widens; a target cannot prove it.
	RefErr error
	// Replaced: a draft-07 $ref, so the object's other keywords (allOf and
	// dynamic references included) do not apply; with RefErr, nothing
	// known does.
	Replaced bool
	Dynamic  []Sub // static $dynamicRef/$recursiveRef targets
	// Scoped names the dynamic references whose target depends on the path
	// that reached them (a bundled document); they are not in Dynamic.
	Scoped []string
	AllOf  []Sub
}

// Refs are the reference targets: the $ref's, then the static dynamic ones.
func (a InPlaceSchemas) Refs() []Sub {
	if a.HasRef {
		return append([]Sub{a.Ref}, a.Dynamic...)
	}
	return a.Dynamic
}

// DynamicRefKeywords are the references whose target depends on the
// dynamic scope; in a document of one resource they are static.
var DynamicRefKeywords = []string{"$dynamicRef", "$recursiveRef"}

// InPlace lists what applies unconditionally to the same value as s, in
// its dialect: a draft-07 $ref replaces its siblings, and draft-07 has no
// dynamic references.
func (v View) InPlace(s Sub, follow Follow) InPlaceSchemas {
	var a InPlaceSchemas
	if s.M == nil {
		return a
	}
	if ref, ok := s.M["$ref"].(string); ok && follow&FollowRef != 0 {
		n, ptr, err := v.doc.ResolveFrom(s.Ptr, ref)
		if err != nil {
			a.RefErr = err
		} else {
			a.Ref, a.HasRef = NewSub(n, ptr), true
		}
		if v.d7 {
			a.Replaced = true
			return a
		}
	}
	if follow&FollowDynamicRef != 0 && !v.d7 {
		for _, kw := range DynamicRefKeywords {
			if ref, ok := s.M[kw].(string); ok {
				if n, ptr, static := v.doc.ResolveDynamic(s.Ptr, ref); static {
					a.Dynamic = append(a.Dynamic, NewSub(n, ptr))
				} else {
					a.Scoped = append(a.Scoped, kw)
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
