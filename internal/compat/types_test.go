package compat

import "testing"

func TestTypes(t *testing.T) {
	runRuleCases(t, []ruleCase{
		{name: "same type", src: `{"type":"string"}`, tgt: `{"type":"string"}`},
		{name: "integer widens to number", src: `{"type":"integer"}`, tgt: `{"type":"number"}`},
		{name: "number into integer", src: `{"type":"number"}`, tgt: `{"type":"integer"}`,
			want: []string{"error type_mismatch /type /type: source is number but target expects integer"}},
		{name: "integral multipleOf makes a number an integer", src: `{"type":"number","multipleOf":2}`, tgt: `{"type":"integer"}`},
		{name: "string into integer", src: `{"type":"string"}`, tgt: `{"type":"integer"}`,
			want: []string{"error type_mismatch /type /type: source is string but target expects integer"}},
		{name: "type array into wider array", src: `{"type":["string","integer"]}`, tgt: `{"type":["number","string","null"]}`},
		{name: "type array partly outside", src: `{"type":["string","boolean"]}`, tgt: `{"type":"string"}`,
			want: []string{"error type_mismatch /type /type: source may be boolean but target expects string"}},
		{name: "untyped source", src: `{"description":"anything"}`, tgt: `{"type":"string"}`,
			want: []string{
				"error type_mismatch  /type: source may be null but target does not accept null",
				"error type_mismatch  /type: source may be object or array or boolean or number but target expects string",
			}},
		{name: "untyped target", src: `{"type":"object"}`, tgt: `{"title":"anything"}`},
		{name: "nullable into non-null", src: `{"type":["string","null"]}`, tgt: `{"type":"string"}`,
			opts: Options{SourceLabel: "name", TargetLabel: "title"},
			want: []string{"error type_mismatch /type /type: name may be null but title does not accept null"}},
		{name: "nullable into non-null on an optional edge", src: `{"type":["string","null"]}`, tgt: `{"type":"string"}`,
			opts: Options{SourceLabel: "name", TargetLabel: "title", Conditional: true},
			want: []string{"warning may_be_null /type /type: name may be null but title does not accept null"}},
		{name: "nullable anyOf into non-null", src: `{"anyOf":[{"type":"string"},{"type":"null"}]}`, tgt: `{"type":"string"}`,
			want: []string{"error type_mismatch /anyOf/1/type /type: source may be null but target does not accept null"}},
		{name: "null alone is a plain mismatch", src: `{"type":"null"}`, tgt: `{"type":"string"}`,
			want: []string{"error type_mismatch /type /type: source may be null but target does not accept null"}},
		{name: "boolean schemas: false source", src: `false`, tgt: `{"type":"string"}`},
		{name: "boolean schemas: true target", src: `{"type":"array"}`, tgt: `true`},
		{name: "boolean schemas: false target", src: `{"type":"string"}`, tgt: `false`,
			want: []string{"error target_accepts_nothing  : source may have a value but target accepts none (false schema)"}},
		{name: "contradictory source is empty", src: `{"allOf":[{"type":"string"},{"type":"integer"}]}`, tgt: `{"type":"boolean"}`},
		{name: "integer source bounded to 1..3 into enum", src: `{"type":"integer","minimum":1,"maximum":3}`, tgt: `{"enum":[1,2,3]}`},
	})
}
