package compat

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/typeward/typeward/internal/verdict"
)

// TestRequiredChains: a schema whose every instance needs, at a required
// property, an instance of itself is empty (instances are finite), so it
// fits every target; ref#13 of the containment corpus was unknown before.
// A chain with a way out (a union, a kind without the requirement, a
// condition, a negation) is not empty: an instance is named and the pair
// must never be compatible.
func TestRequiredChains(t *testing.T) {
	tests := []struct {
		name     string
		src      string
		instance string // an instance of a chain that is not empty
	}{
		{name: "itself at a required property", src: `{"type":"object","properties":{"a":{"$ref":"#"}},"required":["a"]}`},
		{name: "two definitions requiring each other", src: `{"$defs":{"n":{"type":"object","properties":{"a":{"$ref":"#/$defs/m"}},"required":["a"]},"m":{"type":"object","properties":{"b":{"$ref":"#/$defs/n"}},"required":["b"]}},"$ref":"#/$defs/n"}`},
		{name: "closed, beside", src: `{"type":"object","properties":{"a":{"$ref":"#"}},"required":["a"],"additionalProperties":false}`},
		{name: "a null way out", src: `{"type":"object","properties":{"a":{"anyOf":[{"$ref":"#"},{"type":"null"}]}},"required":["a"]}`, instance: `{"a":null}`},
		{name: "strings need nothing", src: `{"type":["object","string"],"properties":{"a":{"$ref":"#"}},"required":["a"]}`, instance: `{"a":"x"}`},
		{name: "a const way out through oneOf", src: `{"$defs":{"n":{"type":"object","properties":{"a":{"$ref":"#/$defs/m"}},"required":["a"]},"m":{"oneOf":[{"$ref":"#/$defs/n"},{"const":1}]}},"$ref":"#/$defs/n"}`, instance: `{"a":1}`},
		{name: "a negated chain", src: `{"type":"object","properties":{"a":{"not":{"$ref":"#"}}},"required":["a"]}`, instance: `{"a":1}`},
		{name: "required only under a condition", src: `{"type":"object","properties":{"a":{"$ref":"#"}},"if":{"required":["b"]},"then":{"required":["a"]}}`, instance: `{}`},
		{name: "an array way out", src: `{"type":"object","properties":{"a":{"anyOf":[{"$ref":"#"},{"type":"array","items":{"$ref":"#"}}]}},"required":["a"]}`, instance: `{"a":[]}`},
	}
	c := NewChecker()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := Node{mustParse(t, tt.src), ""}
			tgt := Node{mustParse(t, `{"type":"string","maxLength":0}`), ""}
			got := c.Check(src, tgt, Options{})
			if tt.instance == "" {
				if got.Verdict != verdict.Compatible {
					t.Errorf("an empty source: %s %v", got.Verdict, summarize(got))
				}
				return
			}
			v := decodeJSON(t, tt.instance)
			if err := src.Schema.Validate(v); err != nil {
				t.Fatalf("%s is not an instance: %v", tt.instance, err)
			}
			if got.Verdict == verdict.Compatible {
				t.Errorf("compatible, yet %s fits the source and not the target", tt.instance)
			}
		})
	}
}

func decodeJSON(t *testing.T, s string) any {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader([]byte(s)))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		t.Fatal(err)
	}
	return v
}
