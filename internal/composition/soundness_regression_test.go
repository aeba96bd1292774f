package composition

import (
	"context"
	"fmt"
	"testing"

	"github.com/typeward/typeward/internal/schema"
	"github.com/typeward/typeward/internal/verdict"
)

// mappingIssues validates one edge gen/src -> gen/tgt whose tools have the
// given output and input schemas.
func mappingIssues(t *testing.T, output, input, mapping, extra string) []verdict.Issue {
	t.Helper()
	out, err := schema.Parse([]byte(output))
	if err != nil {
		t.Fatalf("output schema: %v", err)
	}
	in, err := schema.Parse([]byte(input))
	if err != nil {
		t.Fatalf("input schema: %v", err)
	}
	tools := fixedTools{
		"gen/src": {Server: "gen", Name: "src", Version: 1, Input: in, Output: out},
		"gen/tgt": {Server: "gen", Name: "tgt", Version: 1, Input: in, Output: out},
	}
	c, err := Parse([]byte(fmt.Sprintf(`{"nodes":[{"id":"a","tool":"gen/src"},{"id":"b","tool":"gen/tgt"}],
		"edges":[{"from":"a","to":"b","map":%s%s}]}`, mapping, extra)))
	if err != nil {
		t.Fatal(err)
	}
	r, err := NewValidator(tools, nil, nil).Validate(context.Background(), c)
	if err != nil {
		t.Fatal(err)
	}
	return r.Issues
}

// TestMappingSoundnessRegressions pins the mappings a red-team pass found
// called clean although the source could produce a value the target field
// rejects (each checked against the real validator), with the issue list
// the validator now gives.
func TestMappingSoundnessRegressions(t *testing.T) {
	const ab = "gen/src gen/tgt a->b"
	const anyInput = `{"type":"object","properties":{"f":{"type":"integer"}}}`
	tests := []struct {
		name                          string
		output, input, mapping, extra string
		want                          []string
	}{
		// [{"a":null,"c":"y"}] projects to an array with no value for b.
		{name: "a hole in a projection matters to an optional target field",
			output:  `{"type":"array","items":{"type":"object","properties":{"b":{"type":"integer"}}}}`,
			input:   `{"type":"object","properties":{"f":{"type":"array","items":{"type":"integer"}}}}`,
			mapping: `{"$[].b":"f"}`,
			want:    []string{"warning may_be_missing " + ab + " $[].b->f"}},
		{name: "per item, an absent field only leaves an optional target unset",
			output:  `{"type":"array","items":{"type":"object","properties":{"b":{"type":"integer"}}}}`,
			input:   `{"type":"object","properties":{"f":{"type":"integer"}}}`,
			mapping: `{"$[].b":"f"}`, extra: `,"each":true`},
		// draft-07 ignores unevaluatedProperties: {"zz":"s"} is valid.
		{name: "draft-07 unevaluatedProperties does not type an undeclared source field",
			output:  `{"$schema":"http://json-schema.org/draft-07/schema#","type":"object","properties":{"f":{}},"unevaluatedProperties":{"type":"integer"}}`,
			input:   anyInput,
			mapping: `{"zz":"f"}`,
			want:    []string{"error unknown_source_field " + ab + " zz->f"}},
		// {"f":"s"} matches the first branch, which evaluates f.
		{name: "source unevaluatedProperties beside a union does not type the field",
			output:  `{"type":"object","anyOf":[{"properties":{"f":{"type":"string"}}},{"properties":{"g":{}}}],"unevaluatedProperties":{"type":"integer"}}`,
			input:   anyInput,
			mapping: `{"f":"f"}`,
			want:    []string{"warning undeclared_property " + ab + " f->f", "error type_mismatch " + ab + " f->f"}},
		// The input's $dynamicRef makes f an integer: in a document of one
		// resource it is static, and the path resolver follows it.
		{name: "target static $dynamicRef is followed",
			output:  `{"type":"object","properties":{"f":{"type":"string"}},"required":["f"]}`,
			input:   `{"$dynamicRef":"#meta","$defs":{"m":{"$dynamicAnchor":"meta","properties":{"f":{"type":"integer"}}}},"type":"object","properties":{"f":{}}}`,
			mapping: `{"f":"f"}`,
			want:    []string{"error type_mismatch " + ab + " f->f"}},
		// A bundle of two resources makes the $dynamicRef depend on the path
		// that reached it: not followed, so f cannot be resolved.
		{name: "target scope-dependent $dynamicRef is not followed",
			output:  `{"type":"object","properties":{"f":{"type":"string"}},"required":["f"]}`,
			input:   `{"$id":"https://x/root","$dynamicAnchor":"m","$dynamicRef":"#m","$defs":{"b":{"$id":"https://x/b","$dynamicAnchor":"m","properties":{"f":{"type":"integer"}}}},"type":"object","properties":{"f":{}}}`,
			mapping: `{"f":"f"}`,
			want:    []string{"warning cannot_prove " + ab + " f->f"}},
		// With x given, {"f":"s","x":1} is rejected.
		{name: "target dependencies with a schema is not followed",
			output:  `{"type":"object","properties":{"f":{"type":"string"}},"required":["f"]}`,
			input:   `{"type":"object","properties":{"f":{},"x":{}},"dependencies":{"x":{"properties":{"f":{"type":"integer"}}}}}`,
			mapping: `{"f":"f"}`,
			want:    []string{"warning cannot_prove " + ab + " f->f"}},
		{name: "target dependencies with only name lists constrains no value",
			output:  `{"type":"object","properties":{"f":{"type":"string"}},"required":["f"]}`,
			input:   `{"type":"object","properties":{"f":{},"x":{}},"dependencies":{"x":["f"]}}`,
			mapping: `{"f":"f"}`},
		// A parent's properties do not count as evaluated for a subschema's
		// unevaluatedProperties: the input rejects every f.
		{name: "target unevaluatedProperties false in a subschema forbids the field",
			output:  `{"type":"object","properties":{"f":{"type":"string"}},"required":["f"]}`,
			input:   `{"type":"object","properties":{"f":{}},"allOf":[{"unevaluatedProperties":false}]}`,
			mapping: `{"f":"f"}`,
			want:    []string{"error unknown_target_field " + ab + " f->f"}},
		{name: "target unevaluatedProperties false beside an allOf that names the field",
			output:  `{"type":"object","properties":{"f":{"type":"string"}},"required":["f"]}`,
			input:   `{"type":"object","allOf":[{"properties":{"f":{"type":"string"}}}],"unevaluatedProperties":false}`,
			mapping: `{"f":"f"}`},
		// {"f":"s"} without zz matches neither branch: the first one's not
		// refuses a string f.
		{name: "a target union branch with not constrains the field",
			output:  `{"type":"object","properties":{"f":{"type":"string"}},"required":["f"]}`,
			input:   `{"type":"object","properties":{"f":{}},"anyOf":[{"not":{"properties":{"f":{"type":"string"}},"required":["f"]}},{"required":["zz"]}]}`,
			mapping: `{"f":"f"}`,
			want:    []string{"warning cannot_prove " + ab + " f->f"}},
		{name: "a target union branch with a nested union constrains the field",
			output:  `{"type":"object","properties":{"f":{"type":"string"}},"required":["f"]}`,
			input:   `{"type":"object","properties":{"f":{}},"anyOf":[{"anyOf":[{"properties":{"f":{"type":"integer"}}},{"required":["y"]}]},{"required":["zz"]}]}`,
			mapping: `{"f":"f"}`,
			want:    []string{"warning cannot_prove " + ab + " f->f"}},
		{name: "a target union of required lists does not constrain the value",
			output:  `{"type":"object","properties":{"f":{"type":"string"}},"required":["f"]}`,
			input:   `{"type":"object","properties":{"f":{"type":"string"},"y":{}},"anyOf":[{"required":["f"]},{"required":["y"]}]}`,
			mapping: `{"f":"f"}`},
		// Nothing evaluates the items but unevaluatedItems: ["s"] is invalid,
		// every element is an integer, as the projection says.
		{name: "source unevaluatedItems types the projected elements",
			output:  `{"type":"object","properties":{"xs":{"type":"array","minItems":1,"unevaluatedItems":{"type":"integer"}}},"required":["xs"]}`,
			input:   `{"type":"object","properties":{"f":{"type":"array","items":{"type":"integer"}}},"required":["f"]}`,
			mapping: `{"xs[]":"f"}`},
		// xs[] is xs itself: its uniqueItems and contains hold of the value
		// ([0,0] and [] are not outputs).
		{name: "a path ending in [] is the whole array",
			output:  `{"type":"object","properties":{"xs":{"type":"array","items":{"type":"integer"},"uniqueItems":true,"contains":{"const":1}}},"required":["xs"]}`,
			input:   `{"type":"object","properties":{"f":{"type":"array","uniqueItems":true,"contains":{"const":1}}},"required":["f"]}`,
			mapping: `{"xs[]":"f"}`},
		// Every output's rows holds a row named x, so rows[].name contains
		// "x"; the projection of the items cannot say so, and its witness []
		// is no output's: unknown, not a refusal.
		{name: "a projection that drops the array's contains proves nothing",
			output:  `{"type":"object","properties":{"rows":{"type":"array","items":{"type":"object","properties":{"name":{"type":"string"}},"required":["name"]},"contains":{"properties":{"name":{"const":"x"}}}}},"required":["rows"]}`,
			input:   `{"type":"object","properties":{"f":{"type":"array","contains":{"const":"x"}}},"required":["f"]}`,
			mapping: `{"rows[].name":"f"}`,
			want:    []string{"warning cannot_prove " + ab + " rows[].name->f"}},
		// allOf's prefixItems makes the first element differ: a tuple.
		{name: "source unevaluatedItems past an in-place tuple is a tuple",
			output:  `{"type":"object","properties":{"xs":{"type":"array","allOf":[{"prefixItems":[{"type":"string"}]}],"unevaluatedItems":{"type":"integer"}}},"required":["xs"]}`,
			input:   `{"type":"object","properties":{"f":{"type":"array","items":{"type":"integer"}}},"required":["f"]}`,
			mapping: `{"xs[]":"f"}`,
			want:    []string{"warning cannot_prove " + ab + " xs[]->f"}},
		// a is required and requires b: every output has b, which the path
		// resolver reads from dependentRequired as the checker does.
		{name: "a name dependentRequired guarantees is not missing",
			output:  `{"type":"object","properties":{"a":{"type":"string"},"b":{"type":"string"}},"required":["a"],"dependentRequired":{"a":["b"]}}`,
			input:   `{"type":"object","properties":{"f":{"type":"string"}},"required":["f"]}`,
			mapping: `{"b":"f"}`},
		// An input that requires a, and b with a, requires b.
		{name: "an input's dependentRequired makes a name required",
			output:  `{"type":"object","properties":{"a":{"type":"string"}},"required":["a"]}`,
			input:   `{"type":"object","properties":{"a":{"type":"string"},"b":{"type":"string"}},"required":["a"],"dependentRequired":{"a":["b"]}}`,
			mapping: `{"a":"a"}`,
			want:    []string{"warning unbound_required_input - gen/tgt - ->b"}},
		// Every output has b (the if always holds), which the path resolver
		// does not see: "b is not required" has no witness, and stays
		// unknown instead of refusing.
		{name: "a path finding no output value confirms is unknown",
			output:  `{"type":"object","properties":{"a":{"type":"string"},"b":{"type":"string"}},"required":["a"],"if":{"required":["a"]},"then":{"required":["b"]}}`,
			input:   `{"type":"object","properties":{"f":{"type":"string"}},"required":["f"]}`,
			mapping: `{"b":"f"}`,
			want:    []string{"warning cannot_prove " + ab + " b->f"}},
		// a may be null: {"a":null} is a witness, the mapping reads nothing.
		{name: "a path finding the output confirms is incompatible",
			output:  `{"type":"object","properties":{"a":{"type":["object","null"],"properties":{"b":{"type":"string"}},"required":["b"]}},"required":["a"]}`,
			input:   `{"type":"object","properties":{"f":{"type":"string"}},"required":["f"]}`,
			mapping: `{"a.b":"f"}`,
			want:    []string{"error may_be_null " + ab + " a.b->f"}},
		// {"b":{"kind":"p","zz":true}}: the p shape is open and zz is any value.
		{name: "an open union branch may carry the field undeclared",
			output: `{"type":"object","properties":{"b":{"anyOf":[
				{"type":"object","properties":{"kind":{"const":"p"}},"required":["kind"]},
				{"type":"object","properties":{"kind":{"const":"q"}},"patternProperties":{"^z":{"type":"null"}},"required":["kind"]}]}},"required":["b"]}`,
			input:   `{"type":"object","properties":{"f":{"type":["string","null"]}}}`,
			mapping: `{"b.zz":"f"}`, extra: `,"optional":true`,
			want: []string{"warning undeclared_property " + ab + " b.zz->f"}},
		{name: "a closed union branch without the field only makes it missing",
			output: `{"type":"object","properties":{"b":{"anyOf":[
				{"type":"object","properties":{"kind":{"const":"p"}},"required":["kind"],"additionalProperties":false},
				{"type":"object","properties":{"kind":{"const":"q"},"zz":{"type":"null"}},"required":["kind"]}]}},"required":["b"]}`,
			input:   `{"type":"object","properties":{"f":{"type":["string","null"]}}}`,
			mapping: `{"b.zz":"f"}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			assertIssues(t, mappingIssues(t, tc.output, tc.input, tc.mapping, tc.extra), tc.want)
		})
	}
}
