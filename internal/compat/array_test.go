package compat

import (
	"testing"

	"github.com/typeward/typeward/internal/verdict"
)

func TestArrays(t *testing.T) {
	runRuleCases(t, []ruleCase{
		{name: "items compared", src: `{"type":"array","items":{"type":"integer"}}`, tgt: `{"type":"array","items":{"type":"number"}}`},
		{name: "items mismatch", src: `{"type":"array","items":{"type":"object"}}`, tgt: `{"type":"array","items":{"type":"string"}}`,
			opts: Options{SourceLabel: "rows", TargetLabel: "data"},
			want: []string{"incompatible type_mismatch /items/type /items/type: rows[] is object but data[] expects string [witness [{}] rejected at /items/type]"}},
		{name: "unconstrained items into typed items", src: `{"type":"array"}`, tgt: `{"type":"array","items":{"type":"boolean"}}`,
			want: []string{
				"incompatible may_be_null  /items/type: source[] may be null but target[] does not accept null [witness [null] rejected at /items/type]",
				"incompatible type_mismatch  /items/type: source[] may be object or array or string or number but target[] expects boolean [witness [0] rejected at /items/type]",
			}},
		{name: "tuple into tuple", src: `{"type":"array","prefixItems":[{"type":"integer"},{"type":"string"}],"items":false}`,
			tgt: `{"type":"array","prefixItems":[{"type":"number"}],"items":{"type":"string"}}`},
		{name: "tuple position mismatch", src: `{"type":"array","prefixItems":[{"type":"integer"},{"type":"integer"}],"items":false}`,
			tgt:  `{"type":"array","prefixItems":[{"type":"number"}],"items":{"type":"string"}}`,
			want: []string{"incompatible type_mismatch /prefixItems/1/type /items/type: source[1] is integer but target[1] expects string [witness [0,0] rejected at /items/type]"}},
		{name: "items false against a longer source", src: `{"type":"array","items":{"type":"integer"}}`,
			tgt:  `{"type":"array","prefixItems":[{"type":"integer"}],"items":false}`,
			want: []string{"incompatible size_mismatch  /items: source may have more than 1 items but target allows 1 [witness [0,0] rejected at /items]"}},
		{name: "maxItems makes a short source fit a tuple", src: `{"type":"array","items":{"type":"integer"},"maxItems":1}`,
			tgt: `{"type":"array","prefixItems":[{"type":"integer"}],"items":false}`},
		{name: "unevaluatedItems does not bind items that contains evaluated",
			src: `{"type":"array","contains":{"type":"object"},"unevaluatedItems":{"type":"string"}}`,
			tgt: `{"type":"array","items":{"type":["string","null"]}}`,
			want: []string{
				"incompatible type_mismatch  /items/type: source[] may be object or array or boolean or number but target[] expects string or null [witness [{}] rejected at /items/type]",
			}},
		{name: "minItems contained", src: `{"type":"array","minItems":3}`, tgt: `{"type":"array","minItems":2}`},
		{name: "minItems not guaranteed", src: `{"type":"array","minItems":1}`, tgt: `{"type":"array","minItems":2}`,
			want: []string{"incompatible size_mismatch /minItems /minItems: source may have fewer than 2 items, the minItems of target [witness [null] rejected at /minItems]"}},
		{name: "maxItems unbounded", src: `{"type":"array"}`, tgt: `{"type":"array","maxItems":5}`,
			want: []string{"unknown cannot_prove  /maxItems: cannot confirm that source may have more than 5 items, the maxItems of target (size_mismatch): no value accepted by source and rejected by target was found"}},
		{name: "uniqueItems required", src: `{"type":"array","maxItems":4}`, tgt: `{"type":"array","uniqueItems":true}`,
			want: []string{"incompatible unique_items  /uniqueItems: source may repeat items but target requires unique items [witness [null,null] rejected at /uniqueItems]"}},
		{name: "uniqueItems trivially true for one item", src: `{"type":"array","maxItems":1}`, tgt: `{"type":"array","uniqueItems":true}`},
		{name: "contains proven by source contains", src: `{"type":"array","contains":{"type":"integer"}}`, tgt: `{"type":"array","contains":{"type":"number"}}`},
		{name: "contains proven by every item", src: `{"type":"array","items":{"type":"string"},"minItems":1}`, tgt: `{"type":"array","contains":{"type":"string"}}`},
		{name: "contains against a possibly empty source", src: `{"type":"array","items":{"type":"string"}}`, tgt: `{"type":"array","contains":{"type":"string"}}`,
			want: []string{"incompatible contains_mismatch  /contains: source may have fewer than 1 matching items but target requires them (contains) [witness [] rejected at /contains]"}},
		{name: "contains not provable", src: `{"type":"array","contains":{"type":"string"}}`, tgt: `{"type":"array","contains":{"const":"x"}}`,
			want: []string{"incompatible enum_mismatch  /contains: source may be a value that target refuses (const) [witness [\"\"] rejected at /contains/const]"}},
	})
}

func TestTuplePositions(t *testing.T) {
	runRuleCases(t, []ruleCase{
		{name: "a present position that matches contains", src: `{"type":"array","prefixItems":[{"type":"integer"}],"items":{"type":"string"},"minItems":1}`,
			tgt: `{"type":"array","contains":{"type":"integer"}}`},
		{name: "distinct constants are unique", src: `{"type":"array","prefixItems":[{"const":"a"},{"const":"b"}],"items":false}`, tgt: `{"type":"array","uniqueItems":true}`},
		{name: "1 and 1.0 are the same item", src: `{"type":"array","prefixItems":[{"const":1},{"const":1.0}],"items":false}`, tgt: `{"type":"array","uniqueItems":true}`,
			want: []string{"incompatible unique_items  /uniqueItems: source may repeat items but target requires unique items [witness [1,1.0] rejected at /uniqueItems]"}},
	})
}

// TestUniqueRepeatedPosition: unique items where two positions every array
// has allow one same value: no such array (containment array#45 was unknown
// before). Where a position may differ, or the array may stop before the
// repeat, an instance exists and the pair is never compatible.
func TestUniqueRepeatedPosition(t *testing.T) {
	runRuleCases(t, []ruleCase{
		{name: "two equal required values cannot be unique", src: `{"type":"array","prefixItems":[{"const":1},{"const":1}],"minItems":2,"uniqueItems":true}`, tgt: `{"type":"string"}`},
		{name: "through a reference and an enum", src: `{"$defs":{"a":{"enum":[{"k":"v"}]}},"type":"array","prefixItems":[{"$ref":"#/$defs/a"},{"const":0},{"const":{"k":"v"}}],"minItems":3,"uniqueItems":true}`, tgt: `false`},
	})
	c := NewChecker()
	for _, src := range []string{
		`{"type":"array","prefixItems":[{"const":1},{"const":1}],"minItems":1,"uniqueItems":true}`,
		`{"type":"array","prefixItems":[{"const":1},{"enum":[1,2]}],"minItems":2,"uniqueItems":true}`,
		`{"type":"array","prefixItems":[{"const":1},{"const":1}],"minItems":2}`,
		`{"type":"array","prefixItems":[{"const":1},{"const":1.0}],"minItems":2,"uniqueItems":false}`,
	} {
		if got := c.Check(Node{mustParse(t, src), ""}, Node{mustParse(t, `{"type":"string"}`), ""}, Options{}); got.Verdict == verdict.Compatible {
			t.Errorf("%s: compatible with strings", src)
		}
	}
}

// TestUniqueFiniteContains: unique items from a finite set, at least as
// many as the set minus the values a contains refuses, hold a match
// (containment arrays2#2 was unknown before).
func TestUniqueFiniteContains(t *testing.T) {
	runRuleCases(t, []ruleCase{
		{name: "two distinct of two values include 1", src: `{"type":"array","items":{"enum":[1,2]},"uniqueItems":true,"minItems":2}`, tgt: `{"type":"array","contains":{"const":1}}`},
		{name: "three of four hold a match", src: `{"type":"array","items":{"enum":["a","b","c","d"]},"uniqueItems":true,"minItems":3}`, tgt: `{"type":"array","contains":{"enum":["a","b"]},"minContains":1}`},
	})
	c := NewChecker()
	for _, p := range [][2]string{
		{`{"type":"array","items":{"enum":[1,2]},"uniqueItems":true,"minItems":1}`, `{"type":"array","contains":{"const":1}}`},
		{`{"type":"array","items":{"enum":[1,2]},"minItems":2}`, `{"type":"array","contains":{"const":1}}`},
		{`{"type":"array","items":{"enum":[1,2,3]},"uniqueItems":true,"minItems":2}`, `{"type":"array","contains":{"const":1}}`},
		{`{"type":"array","items":{"enum":["a","b","c","d"]},"uniqueItems":true,"minItems":3}`, `{"type":"array","contains":{"enum":["a","b"]},"minContains":2}`},
	} {
		if got := c.Check(Node{mustParse(t, p[0]), ""}, Node{mustParse(t, p[1]), ""}, Options{}); got.Verdict == verdict.Compatible {
			t.Errorf("%s into %s: compatible", p[0], p[1])
		}
	}
}
