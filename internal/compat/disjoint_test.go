package compat

import "testing"

// Target not and if decided by disjointness: intervals, lengths and sizes
// that do not meet, a double negation, a property a target requires whose
// schema the source's cannot meet.
func TestDisjointTargets(t *testing.T) {
	runRuleCases(t, []ruleCase{
		{name: "integer interval below the negated bound", src: `{"type":"integer","maximum":3}`, tgt: `{"not":{"minimum":4}}`},
		{name: "an untyped bound apart from a typed one", src: `{"minimum":5}`, tgt: `{"not":{"type":"number","maximum":4}}`},
		{name: "integers only: no integer in (3,4)", src: `{"type":"integer","exclusiveMinimum":3}`, tgt: `{"not":{"type":"integer","exclusiveMaximum":4}}`},
		{name: "fractions meet in (3,4)", src: `{"type":"number","exclusiveMinimum":3}`, tgt: `{"not":{"exclusiveMaximum":4}}`,
			want: []string{"incompatible excluded_by_not  /not: source may be a value that target refuses (not) [witness 3.1 rejected at /not]"}},
		{name: "an always empty array", src: `{"type":"array","maxItems":0}`, tgt: `{"not":{"type":"array","minItems":1}}`},
		{name: "lengths apart", src: `{"type":"string","minLength":5}`, tgt: `{"not":{"maxLength":4}}`},
		{name: "double negation", src: `{"type":"string"}`, tgt: `{"not":{"not":{"type":"string"}}}`},
		{name: "a required property the source's schema cannot meet", src: `{"type":"object","properties":{"a":{"type":"string"}}}`,
			tgt: `{"not":{"properties":{"a":{"type":"integer"}},"required":["a"]}}`},
		{name: "condition decided false by intervals", src: `{"type":"integer","maximum":-1}`, tgt: `{"if":{"minimum":5},"then":{"minimum":10},"else":{"maximum":0}}`},
		{name: "a contradictory source into false", src: `{"allOf":[{"type":"object","required":["a"]},{"not":{"required":["a"]}}]}`, tgt: `false`},
	})
}
