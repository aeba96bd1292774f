package compat

import "testing"

func TestTypes(t *testing.T) {
	runRuleCases(t, []ruleCase{
		{name: "same type", src: `{"type":"string"}`, tgt: `{"type":"string"}`},
		{name: "integer widens to number", src: `{"type":"integer"}`, tgt: `{"type":"number"}`},
		{name: "number into integer", src: `{"type":"number"}`, tgt: `{"type":"integer"}`,
			want: []string{"incompatible type_mismatch /type /type: source is number but target expects integer [witness 0.5 rejected at /type]"}},
		{name: "integral multipleOf makes a number an integer", src: `{"type":"number","multipleOf":2}`, tgt: `{"type":"integer"}`},
		{name: "string into integer", src: `{"type":"string"}`, tgt: `{"type":"integer"}`,
			want: []string{"incompatible type_mismatch /type /type: source is string but target expects integer [witness \"\" rejected at /type]"}},
		{name: "type array into wider array", src: `{"type":["string","integer"]}`, tgt: `{"type":["number","string","null"]}`},
		{name: "type array partly outside", src: `{"type":["string","boolean"]}`, tgt: `{"type":"string"}`,
			want: []string{"incompatible type_mismatch /type /type: source may be boolean but target expects string [witness true rejected at /type]"}},
		{name: "untyped source", src: `{"description":"anything"}`, tgt: `{"type":"string"}`,
			want: []string{
				"incompatible may_be_null  /type: source may be null but target does not accept null [witness null rejected at /type]",
				"incompatible type_mismatch  /type: source may be object or array or boolean or number but target expects string [witness true rejected at /type]",
			}},
		{name: "untyped target", src: `{"type":"object"}`, tgt: `{"title":"anything"}`},
		{name: "nullable into non-null", src: `{"type":["string","null"]}`, tgt: `{"type":"string"}`,
			opts: Options{SourceLabel: "name", TargetLabel: "title"},
			want: []string{"incompatible may_be_null /type /type: name may be null but title does not accept null [witness null rejected at /type]"}},
		{name: "nullable into non-null on an optional edge", src: `{"type":["string","null"]}`, tgt: `{"type":"string"}`,
			opts: Options{SourceLabel: "name", TargetLabel: "title"},
			want: []string{"incompatible may_be_null /type /type: name may be null but title does not accept null [witness null rejected at /type]"}},
		{name: "nullable anyOf into non-null", src: `{"anyOf":[{"type":"string"},{"type":"null"}]}`, tgt: `{"type":"string"}`,
			want: []string{"incompatible may_be_null /anyOf/1/type /type: source may be null but target does not accept null [witness null rejected at /type]"}},
		{name: "null alone is a plain mismatch", src: `{"type":"null"}`, tgt: `{"type":"string"}`,
			want: []string{"incompatible may_be_null /type /type: source may be null but target does not accept null [witness null rejected at /type]"}},
		{name: "boolean schemas: false source", src: `false`, tgt: `{"type":"string"}`},
		{name: "boolean schemas: true target", src: `{"type":"array"}`, tgt: `true`},
		{name: "boolean schemas: false target", src: `{"type":"string"}`, tgt: `false`,
			want: []string{"incompatible target_accepts_nothing  : source may have a value but target accepts none (false schema) [witness \"\" rejected at ]"}},
		{name: "contradictory source is empty", src: `{"allOf":[{"type":"string"},{"type":"integer"}]}`, tgt: `{"type":"boolean"}`},
		{name: "integer source bounded to 1..3 into enum", src: `{"type":"integer","minimum":1,"maximum":3}`, tgt: `{"enum":[1,2,3]}`},
	})
}
