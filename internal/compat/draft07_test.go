package compat

import "testing"

func TestDraft07(t *testing.T) {
	runRuleCases(t, []ruleCase{
		{name: "definitions and $ref", src: `{"$schema":"http://json-schema.org/draft-07/schema#","definitions":{"s":{"type":"string"}},"$ref":"#/definitions/s"}`,
			tgt: `{"type":"string"}`},
		{name: "draft-07 ignores $ref siblings on the source", src: `{"$schema":"http://json-schema.org/draft-07/schema#","definitions":{"n":{"type":"number"}},"properties":{"v":{"$ref":"#/definitions/n","minimum":5}}}`,
			srcPtr: "/properties/v", tgt: `{"type":"number","minimum":5}`,
			want: []string{"incompatible range_mismatch /definitions/n /minimum: source allows values < 5 but target requires ≥ 5 [witness 4 rejected at /minimum]"}},
		{name: "items array is a tuple", src: `{"$schema":"http://json-schema.org/draft-07/schema#","type":"array","items":[{"type":"integer"},{"type":"string"}],"additionalItems":false}`,
			tgt: `{"type":"array","prefixItems":[{"type":"number"},{"type":"string"}],"items":false}`},
		{name: "additionalItems against 2020 items", src: `{"$schema":"http://json-schema.org/draft-07/schema#","type":"array","items":[{"type":"integer"}],"additionalItems":{"type":"string"}}`,
			tgt:  `{"type":"array","items":{"type":"integer"}}`,
			want: []string{"incompatible type_mismatch /additionalItems/type /items/type: source[] is string but target[] expects integer [witness [0,\"\"] rejected at /items/type]"}},
		{name: "prefixItems means nothing in a draft-07 source", src: `{"$schema":"http://json-schema.org/draft-07/schema#","type":"array","prefixItems":[{"type":"string"}],"items":{"type":"string"}}`,
			tgt: `{"type":"array","prefixItems":[{"type":"string"}]}`},
		{name: "draft-07 dependencies", src: `{"type":"object","properties":{"a":{}}}`,
			tgt:  `{"$schema":"http://json-schema.org/draft-07/schema#","type":"object","dependencies":{"a":["b"]}}`,
			want: []string{`incompatible dependency_missing  /dependencies: source may have "a" without "b", which target requires together (dependencies) [witness {"a":null} rejected at /dependency/a]`}},
	})
}
