package compat

import "testing"

func TestEnumConst(t *testing.T) {
	runRuleCases(t, []ruleCase{
		{name: "enum subset", src: `{"enum":["a","b"]}`, tgt: `{"enum":["a","b","c"]}`},
		{name: "enum value outside", src: `{"enum":["a","d"]}`, tgt: `{"enum":["a","b","c"]}`,
			want: []string{`incompatible enum_mismatch /enum /enum: source may be "d", which target does not accept [witness "d" rejected at /enum]`}},
		{name: "const into enum", src: `{"const":"b"}`, tgt: `{"enum":["a","b"]}`},
		{name: "enum checked by the validator, not only by enum", src: `{"enum":["ab","abcdef"]}`, tgt: `{"type":"string","maxLength":3}`,
			want: []string{`incompatible enum_mismatch /enum : source may be "abcdef", which target does not accept [witness "abcdef" rejected at /maxLength]`}},
		{name: "enum values of the wrong kind", src: `{"enum":[1,2]}`, tgt: `{"type":"string"}`,
			want: []string{`incompatible type_mismatch /enum /type: source may be 1, 2, which target does not accept [witness 1 rejected at /type]`}},
		{name: "enum values that fail the source are not instances", src: `{"type":"string","enum":["a",1]}`, tgt: `{"type":"string"}`},
		{name: "numbers compare by value", src: `{"enum":[1.0]}`, tgt: `{"const":1}`},
		{name: "unconstrained source into enum", src: `{"type":"string"}`, tgt: `{"enum":["a","b"]}`,
			want: []string{`incompatible enum_mismatch  /enum: source is any string but target must be one of "a", "b" [witness "" rejected at /enum]`}},
		{name: "boolean source is finite", src: `{"type":"boolean"}`, tgt: `{"enum":[true,false]}`},
		{name: "nullable enum into non-null on an optional edge", src: `{"enum":["a",null]}`, tgt: `{"type":"string"}`,

			want: []string{`incompatible may_be_null /enum /type: source may be null but target does not accept null [witness null rejected at /type]`}},
	})
}
