package compat

import (
	"testing"

	"github.com/typeward/typeward/internal/verdict"
)

func TestCombinators(t *testing.T) {
	runRuleCases(t, []ruleCase{
		{name: "source anyOf: every branch fits", src: `{"anyOf":[{"type":"integer"},{"type":"string"}]}`, tgt: `{"type":["number","string"]}`},
		{name: "source oneOf: a branch does not fit", src: `{"oneOf":[{"type":"integer"},{"type":"boolean"}]}`, tgt: `{"type":"number"}`,
			want: []string{"incompatible type_mismatch /oneOf/1/type /type: source is boolean but target expects number [witness true rejected at /type]"}},
		{name: "target anyOf: some branch fits", src: `{"type":"integer"}`, tgt: `{"anyOf":[{"type":"string"},{"type":"number"}]}`},
		{name: "target anyOf: split by kind", src: `{"type":["integer","string"]}`, tgt: `{"anyOf":[{"type":"string"},{"type":"number"}]}`},
		{name: "target anyOf: no branch of the right kind", src: `{"type":"boolean"}`, tgt: `{"anyOf":[{"type":"string"},{"type":"null"}]}`,
			want: []string{"incompatible type_mismatch /type /anyOf: source is boolean but target expects string or null [witness true rejected at /anyOf/0/type]"}},
		{name: "target anyOf: no branch possible", src: `{"type":"object","properties":{"n":{"type":"string"}},"required":["n"]}`,
			tgt:  `{"anyOf":[{"type":"object","properties":{"n":{"type":"integer"}}},{"type":"null"}]}`,
			want: []string{"incompatible no_branch_matches  /anyOf: source can match none of the branches of target (anyOf) [witness {\"n\":\"\"} rejected at /anyOf/0/properties/n/type]"}},
		{name: "target anyOf: only one branch possible gives its exact reason", src: `{"type":"object","properties":{"n":{"type":"string"}}}`,
			tgt:  `{"anyOf":[{"type":"object","properties":{"n":{"type":"integer"}}},{"type":"null"}]}`,
			want: []string{"incompatible type_mismatch /properties/n/type /anyOf/0/properties/n/type: source.n is string but target.n expects integer [witness {\"n\":\"\"} rejected at /anyOf/0/properties/n/type]"}},
		{name: "target anyOf: undecidable", src: `{"type":"object","properties":{"a":{"type":["string","integer"]}},"required":["a"]}`,
			tgt:  `{"anyOf":[{"type":"object","properties":{"a":{"type":"string"}}},{"type":"object","properties":{"a":{"type":"integer"}}}]}`,
			want: []string{"unknown cannot_prove  /anyOf: cannot prove source fits target: it fits none of the branches as a whole (anyOf)"}},
		{name: "target oneOf with disjoint kinds", src: `{"type":"string"}`, tgt: `{"oneOf":[{"type":"string"},{"type":"integer"}]}`},
		{name: "target oneOf with overlapping branches", src: `{"type":"integer"}`, tgt: `{"oneOf":[{"type":"integer"},{"type":"number"}]}`,
			want: []string{"incompatible no_branch_matches  /oneOf: source fits both branch 0 and branch 1 of target, so no value matches exactly one (oneOf) [witness 0 rejected at /oneOf]"}},
		{name: "target oneOf overlapping elsewhere", src: `{"type":"string"}`, tgt: `{"oneOf":[{"type":"string"},{"type":["integer","null"]},{"type":"number"}]}`},
		{name: "target oneOf: tagged union", src: `{"type":"object","properties":{"kind":{"const":"a"},"x":{"type":"string"}},"required":["kind","x"]}`,
			tgt: `{"oneOf":[{"type":"object","properties":{"kind":{"const":"a"},"x":{"type":"string"}},"required":["kind"]},{"type":"object","properties":{"kind":{"const":"b"}},"required":["kind"]}]}`},
		{name: "allOf in the source combines facts", src: `{"allOf":[{"type":"object","properties":{"a":{"type":"string"}},"required":["a"]},{"required":["b"],"properties":{"b":{"type":"integer"}}}]}`,
			tgt: `{"type":"object","properties":{"a":{"type":"string"},"b":{"type":"number"}},"required":["a","b"]}`},
		{name: "allOf in the target checks each", src: `{"type":"integer","minimum":0}`, tgt: `{"allOf":[{"type":"number"},{"minimum":1}]}`,
			want: []string{"incompatible range_mismatch /minimum /allOf/1/minimum: source allows values < 1 but target requires ≥ 1 [witness 0 rejected at /allOf/1/minimum]"}},
		{name: "not: disjoint kinds", src: `{"type":"string"}`, tgt: `{"not":{"type":"null"}}`},
		{name: "not: excluded", src: `{"type":"string","minLength":1}`, tgt: `{"not":{"type":"string"}}`,
			want: []string{"incompatible excluded_by_not  /not: source is excluded by target (not) [witness \"a\" rejected at /not]"}},
		{name: "not: undecidable", src: `{"type":"string"}`, tgt: `{"not":{"const":"x"}}`,
			want: []string{"incompatible excluded_by_not  /not: source may be a value that target refuses (not) [witness \"x\" rejected at /not]"}},
		{name: "if/then/else: source always meets if", src: `{"type":"object","properties":{"k":{"const":"a"},"n":{"type":"integer"}},"required":["k","n"]}`,
			tgt: `{"if":{"properties":{"k":{"const":"a"}},"required":["k"]},"then":{"required":["n"]},"else":{"required":["m"]}}`},
		{name: "if/then/else: source never meets if", src: `{"type":"object","properties":{"k":{"const":"b"}},"required":["k"]}`,
			tgt:  `{"if":{"properties":{"k":{"const":"a"}},"required":["k"]},"then":{"required":["n"]},"else":{"required":["m"]}}`,
			want: []string{`incompatible missing_required  /else/required: source does not provide "m", which target requires [witness {"k":"b"} rejected at /else/required]`}},
		{name: "if/then/else: undecidable", src: `{"type":"object","properties":{"k":{"type":"string"}},"required":["k"]}`,
			tgt:  `{"if":{"properties":{"k":{"const":"a"}},"required":["k"]},"then":{"required":["n"]}}`,
			want: []string{"incompatible missing_required  /if: source may be a value that target refuses (required) [witness {\"k\":\"a\"} rejected at /then/required]"}},
		{name: "source if/then/else branches", src: `{"type":"integer","if":{"minimum":5},"then":{"maximum":10},"else":{"minimum":0}}`,
			tgt: `{"type":"integer","minimum":0,"maximum":10}`},
		{name: "source else branch outside the target", src: `{"type":"integer","if":{"minimum":5},"then":{"maximum":10},"else":{"minimum":-3}}`,
			tgt:  `{"type":"integer","minimum":0,"maximum":10}`,
			want: []string{"incompatible range_mismatch /else/minimum /minimum: source allows values < 0 but target requires ≥ 0 [witness -1 rejected at /minimum]"}},
		{name: "source if/then/else: both branches fit", src: `{"type":"integer","if":{"minimum":5},"then":{"maximum":10},"else":{"minimum":0,"maximum":4}}`,
			tgt: `{"type":"integer","minimum":0,"maximum":10}`},
	})
}

// A target condition of required names alone: the source with the names
// required must fit then, the whole source else.
func TestRequiredCondition(t *testing.T) {
	runRuleCases(t, []ruleCase{
		{name: "dependentRequired as the condition", src: `{"type":"object","dependentRequired":{"a":["b"]}}`, tgt: `{"if":{"required":["a"]},"then":{"required":["b"]}}`},
		{name: "dependentSchemas as the condition", src: `{"type":"object","dependentSchemas":{"a":{"required":["b"]}}}`, tgt: `{"if":{"required":["a"]},"then":{"required":["b"]}}`},
		{name: "non-objects meet the condition", src: `{"type":["object","string"],"required":["a"]}`, tgt: `{"if":{"required":["a"]},"then":{"type":"object"}}`,
			want: []string{`incompatible type_mismatch /type /then/type: source may be string but target expects object [witness "" rejected at /then/type]`}},
	})
}

// TestExcludedMiddle: an anyOf of a negation {not: X} and a branch A that
// X fits (on the source's kinds) holds every value of the source (the
// containment case anyof#14 was unknown before); where X escapes A on
// those kinds the pair is never compatible.
func TestExcludedMiddle(t *testing.T) {
	even := `{"anyOf":[{"type":"integer","multipleOf":2},{"not":{"multipleOf":2}}]}`
	runRuleCases(t, []ruleCase{
		{name: "even or not even", src: `{"type":"integer"}`, tgt: even},
		{name: "a bounded integer", src: `{"type":"integer","minimum":3}`, tgt: `{"anyOf":[{"not":{"minimum":0}},{"type":"integer","minimum":0}]}`},
	})
	c := NewChecker()
	for _, p := range [][2]string{
		{`{"type":"string"}`, even},
		{`{}`, even},
		{`{"type":"integer"}`, `{"anyOf":[{"type":"integer","multipleOf":4},{"not":{"multipleOf":2}}]}`},
		{`{"type":"integer"}`, `{"type":"integer","maximum":5,"anyOf":[{"type":"integer","multipleOf":2},{"not":{"multipleOf":2}}]}`},
		{`{"type":"integer"}`, `{"anyOf":[{"type":"integer","multipleOf":2},{"not":{"multipleOf":2},"maximum":5}]}`},
	} {
		if got := c.Check(Node{mustParse(t, p[0]), ""}, Node{mustParse(t, p[1]), ""}, Options{}); got.Verdict == verdict.Compatible {
			t.Errorf("%s into %s: compatible", p[0], p[1])
		}
	}
}
