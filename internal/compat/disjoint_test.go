package compat

import (
	"testing"

	"github.com/typeward/typeward/internal/verdict"
)

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

// A union of bound-only branches covers the source's range.
func TestCoveredByBounds(t *testing.T) {
	runRuleCases(t, []ruleCase{
		{name: "two half-lines", src: `{"type":"number"}`, tgt: `{"anyOf":[{"type":"number","minimum":0},{"type":"number","exclusiveMaximum":0}]}`},
		{name: "a gap at one point", src: `{"type":"number"}`, tgt: `{"anyOf":[{"minimum":0},{"exclusiveMaximum":0,"type":"number"},{"exclusiveMinimum":0}]}`},
		{name: "no integer in the gap", src: `{"type":"integer"}`, tgt: `{"anyOf":[{"type":"integer","minimum":1},{"type":"integer","maximum":0}]}`},
		{name: "the gap between 0 and 1 has fractions", src: `{"type":"number"}`, tgt: `{"anyOf":[{"type":"number","minimum":1},{"type":"number","maximum":0}]}`,
			want: []string{"incompatible range_mismatch  /anyOf: source may be a value that target refuses (minimum) [witness 0.9 rejected at /anyOf/0/minimum]"}},
		{name: "integer branches do not cover fractions", src: `{"type":"number","minimum":0,"maximum":2}`, tgt: `{"anyOf":[{"type":"integer"},{"type":"number","minimum":1}]}`,
			want: []string{"incompatible type_mismatch  /anyOf: source may be a value that target refuses (type) [witness 0.1 rejected at /anyOf/0/type]"}},
		{name: "a split range inside the source", src: `{"type":"integer","minimum":0,"maximum":10}`, tgt: `{"anyOf":[{"maximum":5},{"minimum":6,"type":"integer"}]}`},
		{name: "lengths", src: `{"type":"string","minLength":3}`, tgt: `{"anyOf":[{"type":"string","minLength":5},{"type":"string","maxLength":4}]}`},
		{name: "the empty string and the rest", src: `{"type":"string"}`, tgt: `{"anyOf":[{"minLength":1},{"maxLength":0}]}`},
		{name: "disjoint oneOf ranges", src: `{"type":"integer","minimum":0}`, tgt: `{"oneOf":[{"type":"integer","minimum":0,"maximum":9},{"type":"integer","minimum":10}]}`},
		{name: "overlapping oneOf ranges", src: `{"type":"integer","minimum":0}`, tgt: `{"oneOf":[{"type":"integer","maximum":10},{"type":"integer","minimum":10}]}`,
			want: []string{"incompatible no_branch_matches  /oneOf: source may be a value that target refuses (oneOf) [witness 10 rejected at /oneOf]"}},
		{name: "open half-lines with the integer branch at 0", src: `{"type":"number"}`, tgt: `{"anyOf":[{"type":"integer"},{"type":"number","exclusiveMinimum":0},{"type":"number","exclusiveMaximum":0}]}`},
		{name: "open half-lines miss 0", src: `{"type":"number"}`, tgt: `{"anyOf":[{"type":"number","exclusiveMinimum":0},{"type":"number","exclusiveMaximum":0}]}`,
			want: []string{"incompatible range_mismatch  /anyOf: source may be a value that target refuses (exclusiveMinimum) [witness 0 rejected at /anyOf/0/exclusiveMinimum]"}},
		{name: "a huge bound is read exactly", src: `{"type":"integer","minimum":0}`, tgt: `{"anyOf":[{"type":"integer","maximum":1e400},{"type":"integer","minimum":1}]}`},
		{name: "a branch with another keyword is no range", src: `{"type":"integer"}`, tgt: `{"anyOf":[{"type":"integer","minimum":1,"multipleOf":1},{"type":"integer","maximum":0,"not":{"const":5}}]}`,
			want: []string{"unknown cannot_prove  /anyOf: cannot prove source fits target: it fits none of the branches as a whole (anyOf)"}},
	})
}

// A negated bound beside a type lowers to the opposite bound when the
// source's numbers are all of that type.
func TestNegatedTypedBound(t *testing.T) {
	runRuleCases(t, []ruleCase{
		{name: "integers below 5", src: `{"type":"integer","not":{"type":"integer","minimum":5}}`, tgt: `{"type":"integer","maximum":4}`},
		{name: "reals below 5", src: `{"type":"number","not":{"type":"number","minimum":5}}`, tgt: `{"type":"number","exclusiveMaximum":5}`},
		{name: "fractions escape an integer negation", src: `{"type":"number","not":{"type":"integer","minimum":5}}`, tgt: `{"type":"number","exclusiveMaximum":5}`,
			want: []string{"incompatible range_mismatch  /exclusiveMaximum: source allows values ≥ 5 but target requires < 5 [witness 5.5 rejected at /exclusiveMaximum]"}},
	})
}

// Finite sources listed value by value: numbers in steps, a single point,
// closed objects of finite properties.
func TestListedSources(t *testing.T) {
	runRuleCases(t, []ruleCase{
		{name: "quarter steps", src: `{"type":"number","minimum":0,"maximum":1,"multipleOf":0.25}`, tgt: `{"enum":[0,0.25,0.5,0.75,1]}`},
		{name: "a quarter step missing", src: `{"type":"number","minimum":0,"maximum":1,"multipleOf":0.25}`, tgt: `{"enum":[0,0.25,0.5,1]}`,
			want: []string{"incompatible enum_mismatch /type /enum: source may be 0.75, which target does not accept [witness 0.75 rejected at /enum]"}},
		{name: "one fraction", src: `{"type":"number","minimum":1.5,"maximum":1.5}`, tgt: `{"const":1.5}`},
		{name: "tagged objects into a oneOf", src: `{"type":"object","properties":{"a":{"enum":[1,2]}},"required":["a"],"additionalProperties":false}`,
			tgt: `{"oneOf":[{"properties":{"a":{"const":1}}},{"properties":{"a":{"const":2}}}]}`},
		{name: "an optional tag matches both branches", src: `{"type":"object","properties":{"a":{"enum":[1,2]}},"additionalProperties":false}`,
			tgt:  `{"oneOf":[{"properties":{"a":{"const":1}}},{"properties":{"a":{"const":2}}}]}`,
			want: []string{"incompatible enum_mismatch /type : source may be {}, which target does not accept [witness {} rejected at /oneOf]"}},
		{name: "only the empty object", src: `{"type":"object","maxProperties":0}`, tgt: `{"type":"object","properties":{"a":{"type":"integer"}},"additionalProperties":false}`},
	})
}

// A negation of keywords of one kind, without a type, keeps only that kind
// (every other value meets them); a negated range is a hole in coverage.
func TestNegatedKindFamily(t *testing.T) {
	runRuleCases(t, []ruleCase{
		{name: "not required keeps objects", src: `{"not":{"required":["a"]}}`, tgt: `{"type":"object"}`},
		{name: "not minimum keeps numbers below", src: `{"not":{"minimum":5}}`, tgt: `{"type":"number","exclusiveMaximum":5}`},
		{name: "a typed negation keeps the other kinds", src: `{"not":{"type":"array","minItems":1}}`, tgt: `{"type":"array","maxItems":0}`,
			want: []string{"incompatible may_be_null  /type: source may be null but target does not accept null [witness null rejected at /type]",
				"incompatible type_mismatch  /type: source may be object or string or boolean or number but target expects array [witness true rejected at /type]"}},
		{name: "a hole between disjoint branches", src: `{"type":"string","not":{"minLength":3,"maxLength":4}}`, tgt: `{"oneOf":[{"type":"string","maxLength":2},{"type":"string","minLength":5}]}`},
		{name: "a value beside the hole", src: `{"type":"integer","not":{"minimum":3,"maximum":4}}`, tgt: `{"anyOf":[{"type":"integer","maximum":2},{"type":"integer","minimum":6}]}`,
			want: []string{"incompatible range_mismatch  /anyOf: source may be a value that target refuses (maximum) [witness 5 rejected at /anyOf/0/maximum]"}},
	})
}

// A target inside a schema the source negates is disjoint from the source.
func TestDisjointByNegation(t *testing.T) {
	runRuleCases(t, []ruleCase{
		{name: "odd numbers are not multiples of 4", src: `{"type":"integer","not":{"multipleOf":2}}`, tgt: `{"type":"integer","not":{"multipleOf":4}}`},
		{name: "a wider negated prefix", src: `{"type":"string","not":{"pattern":"^a"}}`, tgt: `{"type":"string","not":{"pattern":"^ab"}}`},
		{name: "a narrower negated prefix", src: `{"type":"string","not":{"pattern":"^ab"}}`, tgt: `{"type":"string","not":{"pattern":"^a"}}`,
			want: []string{`incompatible excluded_by_not  /not: source may be a value that target refuses (not) [witness "a" rejected at /not]`}},
	})
}

// TestDisjointFromFiniteTarget: a target's negated schema that is finite
// as a source reads (a bounded integer range) is avoided when the source
// rejects each of its values (containment negation#22 was unknown before).
func TestDisjointFromFiniteTarget(t *testing.T) {
	runRuleCases(t, []ruleCase{
		{name: "no multiple of 6 in 1..5", src: `{"type":"integer","multipleOf":3}`, tgt: `{"not":{"type":"integer","multipleOf":2,"minimum":1,"maximum":5}}`},
		{name: "numbers that are multiples of 2 are integers", src: `{"type":"integer","multipleOf":3}`, tgt: `{"not":{"type":"number","multipleOf":2,"minimum":1,"maximum":5}}`},
	})
	c := NewChecker()
	for _, p := range [][2]string{
		{`{"type":"integer","multipleOf":3}`, `{"not":{"type":"integer","multipleOf":2,"minimum":1,"maximum":6}}`},
		{`{"type":"integer","multipleOf":3}`, `{"not":{"type":"number","multipleOf":1.5,"minimum":1,"maximum":5}}`},
		{`{"type":"number","multipleOf":3}`, `{"not":{"type":"integer","minimum":2,"maximum":4}}`},
	} {
		if got := c.Check(Node{mustParse(t, p[0]), ""}, Node{mustParse(t, p[1]), ""}, Options{}); got.Verdict == verdict.Compatible {
			t.Errorf("%s into %s: compatible", p[0], p[1])
		}
	}
}
