package compat

import (
	"encoding/json"
	"testing"
)

const d4 = `"$schema":"http://json-schema.org/draft-04/schema#",`

// TestDraft04 reads draft-04 sources and targets through their draft-07
// translation: boolean exclusive bounds in both directions, keywords
// draft-04 does not have, $ref siblings, id anchors; every refusal carries
// a witness the real validators confirm (TestDraft04WitnessesConfirmed).
func TestDraft04(t *testing.T) {
	runRuleCases(t, draft04Cases)
}

var draft04Cases = []ruleCase{
	{name: "exclusive draft-04 source into an inclusive 2020-12 target", src: `{` + d4 + `"type":"number","minimum":0,"exclusiveMinimum":true}`,
		tgt: `{"type":"number","minimum":0}`},
	{name: "inclusive 2020-12 source into an exclusive draft-04 target", src: `{"type":"number","minimum":0}`,
		tgt:  `{` + d4 + `"type":"number","minimum":0,"exclusiveMinimum":true}`,
		want: []string{"incompatible range_mismatch /minimum /exclusiveMinimum: source allows values ≤ 0 but target requires > 0 [witness 0 rejected at /exclusiveMinimum]"}},
	{name: "exclusiveMinimum false is inclusive", src: `{"type":"integer","minimum":0}`,
		tgt: `{` + d4 + `"type":"integer","minimum":0,"exclusiveMinimum":false}`},
	{name: "exclusive maximum, draft-04 on both sides", src: `{` + d4 + `"type":"integer","maximum":10,"exclusiveMaximum":true}`,
		tgt: `{` + d4 + `"type":"integer","maximum":9}`},
	{name: "exclusive maximum too wide", src: `{` + d4 + `"type":"number","maximum":10,"exclusiveMaximum":true}`,
		tgt:  `{` + d4 + `"type":"number","maximum":9}`,
		want: []string{"incompatible range_mismatch /exclusiveMaximum /maximum: source allows values > 9 but target requires ≤ 9 [witness 9.5 rejected at /maximum]"}},
	{name: "draft-04 target's exclusive maximum against a draft-07 one", src: `{"$schema":"http://json-schema.org/draft-07/schema#","type":"number","exclusiveMaximum":5}`,
		tgt: `{` + d4 + `"type":"number","maximum":5,"exclusiveMaximum":true}`},
	{name: "const is not a draft-04 keyword: the source is any integer", src: `{` + d4 + `"type":"integer","const":1}`,
		tgt:  `{"type":"integer","const":1}`,
		want: []string{"incompatible enum_mismatch  /const: source is any integer but target must be one of 1 [witness 0 rejected at /const]"}},
	{name: "const is not a draft-04 keyword: the target does not constrain", src: `{"type":"integer"}`,
		tgt: `{` + d4 + `"type":"integer","const":1}`},
	{name: "if/then is ignored in a draft-04 target", src: `{"type":"string"}`,
		tgt: `{` + d4 + `"type":"string","if":{},"then":false}`},
	{name: "contains is ignored in a draft-04 source", src: `{` + d4 + `"type":"array","contains":{"type":"string"}}`,
		tgt:  `{"type":"array","contains":{"type":"string"}}`,
		want: []string{"incompatible contains_mismatch  /contains: source may have fewer than 1 matching items but target requires them (contains) [witness [] rejected at /contains]"}},
	{name: "draft-04 ignores $ref siblings", src: `{` + d4 + `"definitions":{"n":{"type":"number"}},"properties":{"v":{"$ref":"#/definitions/n","minimum":5}}}`,
		srcPtr: "/properties/v", tgt: `{"type":"number","minimum":5}`,
		want: []string{"incompatible range_mismatch /definitions/n /minimum: source allows values < 5 but target requires ≥ 5 [witness 4 rejected at /minimum]"}},
	{name: "id anchor with an exclusive bound", src: `{` + d4 + `"definitions":{"p":{"id":"#pos","type":"integer","minimum":0,"exclusiveMinimum":true}},"type":"array","items":{"$ref":"#pos"}}`,
		tgt: `{"type":"array","items":{"type":"integer","minimum":1}}`},
	{name: "embedded id resource: its # is its own", src: `{` + d4 + `"id":"http://x/root","definitions":{"b":{"id":"http://x/b","definitions":{"c":{"type":"integer","minimum":1,"exclusiveMinimum":true}},"properties":{"q":{"$ref":"#/definitions/c"}}}},"properties":{"p":{"$ref":"b"}}}`,
		srcPtr: "/properties/p", tgt: `{"properties":{"q":{"minimum":2}}}`},
	{name: "embedded id resource, too wide", src: `{` + d4 + `"id":"http://x/root","definitions":{"b":{"id":"http://x/b","definitions":{"c":{"type":"number","minimum":1,"exclusiveMinimum":true}},"properties":{"q":{"$ref":"#/definitions/c"}}}},"properties":{"p":{"$ref":"b"}}}`,
		srcPtr: "/properties/p", tgt: `{"properties":{"q":{"minimum":2}}}`,
		want: []string{`incompatible range_mismatch /definitions/b/definitions/c/exclusiveMinimum /properties/q/minimum: source.q allows values < 2 but target.q requires ≥ 2 [witness {"q":1.5} rejected at /properties/q/minimum]`}},
	{name: "mixed: draft-04 object source, 2020-12 target with an exclusive bound", src: `{` + d4 + `"type":"object","required":["n"],"properties":{"n":{"type":"integer","minimum":1,"exclusiveMinimum":false}},"additionalProperties":false}`,
		tgt: `{"type":"object","required":["n"],"properties":{"n":{"type":"integer","exclusiveMinimum":0}}}`},
}

// TestDraft04WitnessesConfirmed asks the validators themselves: each
// refusal's witness is accepted by the draft-04 (or 2020-12) source and
// rejected by the target, independently of the checker's own confirmation.
func TestDraft04WitnessesConfirmed(t *testing.T) {
	c := NewChecker()
	checked := 0
	for _, tc := range draft04Cases {
		src, tgt := mustParse(t, tc.src), mustParse(t, tc.tgt)
		r := c.Check(Node{src, tc.srcPtr}, Node{tgt, tc.tgtPtr}, tc.opts)
		for _, is := range r.Issues {
			if is.Witness == nil {
				continue
			}
			var w any
			if err := json.Unmarshal(is.Witness, &w); err != nil {
				t.Fatalf("%s: witness %s: %v", tc.name, is.Witness, err)
			}
			if err := src.ValidateAt(tc.srcPtr, w); err != nil {
				t.Errorf("%s: the source rejects the witness %s: %v", tc.name, is.Witness, err)
			}
			if tgt.ValidateAt(tc.tgtPtr, w) == nil {
				t.Errorf("%s: the target accepts the witness %s", tc.name, is.Witness)
			}
			checked++
		}
	}
	if checked != 6 {
		t.Errorf("%d witnesses checked, want the 6 refusals'", checked)
	}
}
