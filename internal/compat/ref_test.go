package compat

import "testing"

func TestRefs(t *testing.T) {
	tree := `{"$defs":{"node":{"type":"object","properties":{"name":{"type":"string"},"children":{"type":"array","items":{"$ref":"#/$defs/node"}}},"required":["name"]}},"$ref":"#/$defs/node"}`
	runRuleCases(t, []ruleCase{
		{name: "local $ref on both sides", src: `{"$defs":{"id":{"type":"integer"}},"$ref":"#/$defs/id"}`, tgt: `{"$defs":{"n":{"type":"number"}},"$ref":"#/$defs/n"}`},
		{name: "$ref with siblings in 2020-12 adds constraints", src: `{"$defs":{"id":{"type":"integer"}},"$ref":"#/$defs/id","minimum":1}`,
			tgt: `{"type":"integer","minimum":1}`},
		{name: "recursive schemas on both sides", src: tree, tgt: tree},
		{name: "recursive source into recursive target mismatch deep inside", src: tree,
			tgt:  `{"$defs":{"node":{"type":"object","properties":{"name":{"type":"integer"},"children":{"type":"array","items":{"$ref":"#/$defs/node"}}}}},"$ref":"#/$defs/node"}`,
			want: []string{"incompatible type_mismatch /$defs/node/properties/name/type /$defs/node/properties/name/type: source.name is string but target.name expects integer [witness {\"name\":\"\"} rejected at /$defs/node/properties/name/type]"}},
		{name: "recursive source into open target", src: tree, tgt: `{"type":"object","required":["name"]}`},
		{name: "anchors resolve", src: `{"$defs":{"x":{"$anchor":"pos","type":"integer","minimum":1}},"$ref":"#pos"}`, tgt: `{"type":"integer","minimum":0}`},
		{name: "pointer into a $defs subschema", src: tree, srcPtr: "/$defs/node/properties/children",
			tgt: `{"type":"array","items":{"type":"object"}}`},
	})
}
