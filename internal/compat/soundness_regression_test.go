package compat

import (
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// TestSoundnessRegressions pins the pairs a red-team pass found answered
// wrongly (the first group) and the edge cases it probed that were already
// right, so they stay right. Each expectation was checked against the real
// validator: a pair with no issue has no counterexample, and each ERROR has
// a witness (noted in the case name or comment).
func TestSoundnessRegressions(t *testing.T) {
	cases := soundnessCases()
	runRuleCases(t, cases)
	// The witnesses named in the cases: valid under the source, invalid
	// under the target, so each of those verdicts must not be "compatible".
	witnesses := map[string]string{
		"a self-negating $ref accepts every value (witness null)":                `null`,
		"not of the root itself excludes nothing (witness 0)":                    `0`,
		"an if of the root itself never holds (witness 0)":                       `0`,
		"a negated positive cycle excludes nothing (witness \"s\")":              `"s"`,
		"an anchor inside const data is not an anchor (witness 1)":               `1`,
		"an anchor inside a default is not an anchor (witness 1)":                `1`,
		"format annotated in 2020-12 does not prove format asserted in draft-07": `""`,
		"multipleOf 0.01 into 0.1 (witness 0.01)":                                `0.01`,
		"2020-12 applies $ref siblings (witness \"abc\")":                        `"abc"`,
		"draft-07 items array with additionalItems false (witness [1,2])":        `[1,2]`,
		"objects equal as JSON repeat (witness [{a:1},{a:1.0}])":                 `[{"a":1},{"a":1.0}]`,
		"recursion on both sides (witness {next:{v:1.5}})":                       `{"next":{"v":1.5}}`,
		"required with a false property still lets non-objects through":          `"s"`,
	}
	for _, tc := range cases {
		w, ok := witnesses[tc.name]
		if !ok {
			continue
		}
		v, err := jsonschema.UnmarshalJSON(strings.NewReader(w))
		if err != nil {
			t.Fatal(err)
		}
		if mustParse(t, tc.src).Validate(v) != nil || mustParse(t, tc.tgt).Validate(v) == nil {
			t.Errorf("%s: %s is not a witness (valid under the source, invalid under the target)", tc.name, w)
		}
		delete(witnesses, tc.name)
	}
	for name := range witnesses {
		t.Errorf("witness for unknown case %q", name)
	}
}

func soundnessCases() []ruleCase {
	const d7 = `"$schema":"http://json-schema.org/draft-07/schema#",`
	return []ruleCase{
		// Were compatible: the validator fails a reference cycle that does
		// not descend at the repeated schema, so a negation of one accepts
		// every value; the rules read the cycle as assumed, so the negation
		// as "nothing", and the source as empty.
		{name: "a self-negating $ref accepts every value (witness null)",
			src:  `{"$defs":{"leaf":{"not":{"$ref":"#/$defs/leaf"}}},"$ref":"#/$defs/leaf"}`,
			tgt:  `{"enum":[{"a":1,"b":"x"}]}`,
			want: []string{`incompatible enum_mismatch  /enum: source is any value but target must be one of {"a":1,"b":"x"} [witness null rejected at /enum]`}},
		{name: "not of the root itself excludes nothing (witness 0)",
			src:  `{"type":"integer","not":{"$ref":"#"}}`,
			tgt:  `{"type":"string"}`,
			want: []string{"incompatible type_mismatch /type /type: source is integer but target expects string [witness 0 rejected at /type]"}},
		{name: "an if of the root itself never holds (witness 0)",
			src:  `{"type":"integer","if":{"$ref":"#"},"then":false}`,
			tgt:  `{"type":"string"}`,
			want: []string{"incompatible type_mismatch /type /type: source is integer but target expects string [witness 0 rejected at /type]"}},
		{name: "a negated positive cycle excludes nothing (witness \"s\")",
			src:  `{"$defs":{"c":{"type":"string","allOf":[{"$ref":"#/$defs/c"}]}},"type":["integer","string"],"not":{"$ref":"#/$defs/c"}}`,
			tgt:  `{"type":"integer"}`,
			want: []string{"incompatible type_mismatch /type /type: source may be string but target expects integer [witness \"\" rejected at /type]"}},
		// Was compatible: "#foo" resolved to the {"$anchor":"foo"} inside a
		// const value (data, not a schema) instead of the real anchor.
		{name: "an anchor inside const data is not an anchor (witness 1)",
			src:  `{"type":"integer"}`,
			tgt:  `{"$defs":{"c":{"const":{"$anchor":"foo"}},"s":{"$anchor":"foo","type":"string"}},"$ref":"#foo"}`,
			want: []string{"incompatible type_mismatch /type /$defs/s/type: source is integer but target expects string [witness 0 rejected at /$defs/s/type]"}},
		{name: "an anchor inside a default is not an anchor (witness 1)",
			src:  `{"type":"integer"}`,
			tgt:  `{"$defs":{"a":{"default":{"$anchor":"foo"}},"s":{"$anchor":"foo","type":"string"}},"$ref":"#foo"}`,
			want: []string{"incompatible type_mismatch /type /$defs/s/type: source is integer but target expects string [witness 0 rejected at /$defs/s/type]"}},
		// Was compatible: 2020-12 only annotates format, draft-07 asserts
		// it, so "" passes the source and fails the target.
		{name: "format annotated in 2020-12 does not prove format asserted in draft-07",
			src:  `{"type":"string","format":"email"}`,
			tgt:  `{` + d7 + `"type":"string","format":"email"}`,
			want: []string{`incompatible format_mismatch /format /format: source may be a value that target refuses (format) [witness "" rejected at /format]`}},
		{name: "format asserted on both sides is proven",
			src: `{` + d7 + `"type":"string","format":"email"}`,
			tgt: `{` + d7 + `"type":"string","format":"email"}`},
		// Was an ERROR (precision): no object has a required property whose
		// schema is false, so this source has no instance at all.
		{name: "a required property with schema false leaves no object",
			src: `{"type":"object","properties":{"a":false},"required":["a"]}`,
			tgt: `{"type":"string"}`},
		{name: "required with a false property still lets non-objects through",
			src:  `{"properties":{"a":false},"required":["a"],"type":["object","string"]}`,
			tgt:  `{"type":"integer"}`,
			want: []string{"incompatible type_mismatch /type /type: source is string but target expects integer [witness \"\" rejected at /type]"}},

		// Probed and already right.
		{name: "1.0 is an integer", src: `{"enum":[1.0,2]}`, tgt: `{"type":"integer"}`},
		{name: "multipleOf 0.1 into 0.01 holds exactly", src: `{"type":"number","multipleOf":0.1}`, tgt: `{"multipleOf":0.01}`},
		{name: "multipleOf 0.01 into 0.1 (witness 0.01)", src: `{"type":"number","multipleOf":0.01}`, tgt: `{"multipleOf":0.1}`,
			want: []string{"incompatible multiple_of_mismatch /multipleOf /multipleOf: source need not be a multiple of 1/10 as target requires [witness 0.01 rejected at /multipleOf]"}},
		{name: "integer > 0 is integer ≥ 1", src: `{"type":"integer","exclusiveMinimum":0}`, tgt: `{"minimum":1}`},
		{name: "enum 1 matches 1.0, null does not fit", src: `{"enum":[1,"1",null]}`, tgt: `{"enum":[1.0,"1"]}`,
			want: []string{"incompatible may_be_null /enum : source may be null but target does not accept null [witness null rejected at /enum]"}},
		{name: "two emoji are two code points", src: `{"enum":["😀😀"]}`, tgt: `{"maxLength":2}`},
		{name: "draft-07 ignores $ref siblings", src: `{"type":"string"}`,
			tgt: `{` + d7 + `"definitions":{"s":{"type":"string"}},"$ref":"#/definitions/s","maxLength":2}`},
		{name: "2020-12 applies $ref siblings (witness \"abc\")", src: `{"type":"string"}`,
			tgt:  `{"$defs":{"s":{"type":"string"}},"$ref":"#/$defs/s","maxLength":2}`,
			want: []string{"incompatible length_mismatch  /maxLength: source may be longer than 2 characters, the maxLength of target [witness \"aaa\" rejected at /maxLength]"}},
		{name: "draft-07 items array with additionalItems false (witness [1,2])",
			src:  `{"type":"array","items":{"type":"integer"}}`,
			tgt:  `{` + d7 + `"type":"array","items":[{"type":"integer"}],"additionalItems":false}`,
			want: []string{"incompatible size_mismatch  /additionalItems: source may have more than 1 items but target allows 1 [witness [0,0] rejected at /additionalItems]"}},
		{name: "objects equal as JSON repeat (witness [{a:1},{a:1.0}])",
			src: `{"type":"array","items":{"enum":[{"a":1},{"a":1.0}]},"maxItems":2}`, tgt: `{"uniqueItems":true}`,
			want: []string{"incompatible unique_items  /uniqueItems: source may repeat items but target requires unique items [witness [{\"a\":1},{\"a\":1}] rejected at /uniqueItems]"}},
		{name: "overlapping patterns: the witness search proves the overlap",
			src:  `{"type":"object","patternProperties":{"^a":{"type":"string"}},"additionalProperties":false}`,
			tgt:  `{"type":"object","patternProperties":{"^ab":{"type":"integer"}}}`,
			want: []string{`incompatible type_mismatch /patternProperties/^a /patternProperties/^ab: source may be a value that target refuses (type) [witness {"ab":""} rejected at /patternProperties/^ab/type]`}},
		{name: "if without then: the else branch and the condition cover it",
			src: `{"type":"integer","if":{"minimum":0},"else":{"minimum":10}}`, tgt: `{"minimum":0}`},
		{name: "recursion on both sides (witness {next:{v:1.5}})",
			src:  `{"$defs":{"n":{"type":"object","properties":{"next":{"$ref":"#/$defs/n"},"v":{"type":"number"}}}},"$ref":"#/$defs/n"}`,
			tgt:  `{"$defs":{"m":{"type":"object","properties":{"next":{"$ref":"#/$defs/m"},"v":{"type":"integer"}}}},"$ref":"#/$defs/m"}`,
			want: []string{"incompatible type_mismatch /$defs/n/properties/v/type /$defs/m/properties/v/type: source.v is number but target.v expects integer [witness {\"v\":0.5} rejected at /$defs/m/properties/v/type]"}},
	}
}
