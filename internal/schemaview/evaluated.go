package schemaview

import "slices"

// What unevaluatedProperties and unevaluatedItems leave over.

// Evaluation lists the subschemas whose annotations count for the
// unevaluatedProperties (or unevaluatedItems) of one schema object s: s
// and every subschema applied to the value in place unconditionally ($ref,
// static $dynamicRef, allOf, transitively; the one anyOf/oneOf branch that
// admits the value's kind at all). Annotations of a sibling or parent
// schema do not count, which is why it is asked per schema object.
type Evaluation struct {
	Subs []Sub
	// All: one of them other than s evaluates every member (its
	// additionalProperties or unevaluatedProperties; for items, its items
	// or unevaluatedItems), so nothing is left over.
	All bool
	// Exact is false when an applicator that depends on the instance (a
	// union of several branches, if/then/else, dependentSchemas, a dynamic
	// reference, contains for items) might evaluate more.
	Exact bool
}

// memberKind tells Evaluation which keywords evaluate what.
type memberKind struct {
	kind      string   // the JSON type that has members: "object" or "array"
	evaluate  []string // keywords that evaluate some members
	evalAll   []string // keywords that, beside s, evaluate every member
	dependent []string // keywords whose evaluations depend on the instance
}

var (
	propertyMembers = memberKind{kind: "object",
		evaluate: []string{"properties", "patternProperties", "additionalProperties", "unevaluatedProperties"},
		evalAll:  []string{"additionalProperties", "unevaluatedProperties"}}
	itemMembers = memberKind{kind: "array",
		evaluate:  []string{"prefixItems", "items", "contains", "unevaluatedItems"},
		evalAll:   []string{"items", "unevaluatedItems"},
		dependent: []string{"contains"}}
)

// PropertyEvaluation is the Evaluation for s's unevaluatedProperties.
func (v View) PropertyEvaluation(s Sub) Evaluation { return v.evaluation(s, propertyMembers) }

// ItemEvaluation is the Evaluation for s's unevaluatedItems.
func (v View) ItemEvaluation(s Sub) Evaluation { return v.evaluation(s, itemMembers) }

func (v View) evaluation(s Sub, mk memberKind) Evaluation {
	ev := Evaluation{Exact: true}
	seen := map[string]bool{}
	queue := []Sub{s}
	for len(queue) > 0 {
		n := queue[0]
		queue = queue[1:]
		if n.M == nil || seen[n.Ptr] {
			continue
		}
		seen[n.Ptr] = true
		ev.Subs = append(ev.Subs, n)
		for _, kw := range mk.evalAll {
			if _, ok := n.M[kw]; ok && n.Ptr != s.Ptr {
				ev.All = true
			}
		}
		for _, kw := range mk.dependent {
			if _, ok := n.M[kw]; ok {
				ev.Exact = false
			}
		}
		a := v.InPlace(n, FollowAll)
		if len(a.Scoped) > 0 || a.RefErr != nil {
			ev.Exact = false
		}
		queue = append(append(queue, a.Refs()...), a.AllOf...)
		for _, kw := range []string{"anyOf", "oneOf"} {
			if _, ok := n.M[kw]; !ok {
				continue
			}
			var live []Sub // the branches a value with members may pass
			for _, b := range n.Schemas(kw) {
				if admitsKind(b, mk.kind) {
					live = append(live, b)
				}
			}
			switch {
			case len(live) == 1:
				queue = append(queue, live[0]) // a value with members passes it, or fails s
			case slices.ContainsFunc(live, func(b Sub) bool { return evaluates(b.V, mk) }):
				ev.Exact = false
			}
		}
		for _, kw := range conditional[2:] { // if, then, else, dependentSchemas, dependencies
			if e, ok := n.M[kw]; ok && evaluates(e, mk) {
				ev.Exact = false
			}
		}
	}
	return ev
}

// admitsKind over-approximates: false only when the schema plainly
// rejects every value of the JSON type (false, or a type list without it).
func admitsKind(s Sub, kind string) bool {
	if s.IsFalse() {
		return false
	}
	switch t := s.M["type"].(type) {
	case string:
		return t == kind
	case []any:
		return slices.Contains(t, any(kind))
	}
	return true
}

// evaluates: some subschema inside v could evaluate a member (looked for
// as text, which over-approximates safely).
func evaluates(v any, mk memberKind) bool {
	switch v := v.(type) {
	case map[string]any:
		for k, e := range v {
			if k == "$ref" || k == "$dynamicRef" || k == "$recursiveRef" || slices.Contains(mk.evaluate, k) {
				return true
			}
			if evaluates(e, mk) {
				return true
			}
		}
	case []any:
		for _, e := range v {
			if evaluates(e, mk) {
				return true
			}
		}
	}
	return false
}

// Covers tells whether the properties or patternProperties of one of the
// evaluating subschemas govern name; known is false when a pattern cannot
// be evaluated.
func (ev Evaluation) Covers(name string) (covered, known bool) {
	known = true
	for _, n := range ev.Subs {
		if _, ok := n.Child("properties", name); ok {
			return true, true
		}
		pats, _ := n.M["patternProperties"].(map[string]any)
		for pat := range pats {
			re := Regexp(pat)
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

// EvaluatedPrefix is how many leading items the evaluating subschemas'
// prefixItems (draft-07 has no unevaluatedItems) evaluate.
func (ev Evaluation) EvaluatedPrefix() int {
	n := 0
	for _, s := range ev.Subs {
		n = max(n, len(s.Schemas("prefixItems")))
	}
	return n
}

// Use says whether an unevaluatedProperties applies to a property name.
type Use int

const (
	Applied Use = iota
	NotApplied
	MayApply // an applicator that depends on the instance may evaluate the name
)

// UnevaluatedProperty decides whether the unevaluatedProperties of s
// applies to name: it does unless s or a subschema applied in place
// evaluates the name.
func (v View) UnevaluatedProperty(s Sub, name string) Use {
	if _, ok := s.M["unevaluatedProperties"]; !ok || v.d7 {
		return NotApplied // draft-07 has no unevaluatedProperties: the validator ignores it
	}
	if _, ok := s.M["additionalProperties"]; ok {
		return NotApplied
	}
	ev := v.PropertyEvaluation(s)
	if ev.All {
		return NotApplied
	}
	covered, known := ev.Covers(name)
	switch {
	case covered:
		return NotApplied
	case !known || !ev.Exact:
		return MayApply
	}
	return Applied
}
