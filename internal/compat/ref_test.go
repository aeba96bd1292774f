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

// TestDataRefsAreValues: a {"$ref": …} in const or enum is a value the
// source may hold, never a reference (such schemas were refused at load).
func TestDataRefsAreValues(t *testing.T) {
	src := `{"$defs":{"a_string":{"type":"string"}},"enum":[{"$ref":"#/$defs/a_string"}]}`
	runRuleCases(t, []ruleCase{
		{name: "an enum of one object fits an object requiring its key", src: src, tgt: `{"type":"object","required":["$ref"],"properties":{"$ref":{"const":"#/$defs/a_string"}}}`},
		{name: "a const of a remote-looking object fits an object", src: `{"const":{"$ref":"https://example.com/s.json"}}`, tgt: `{"type":"object"}`},
		{name: "an enum of an object is not a string", src: src, tgt: `{"type":"string"}`,
			want: []string{`incompatible type_mismatch /enum /type: source may be {"$ref":"#/$defs/a_string"}, which target does not accept [witness {"$ref":"#/$defs/a_string"} rejected at /type]`}},
	})
}
