package compat

import (
	"encoding/json"
	"testing"

	"github.com/typeward/typeward/internal/schema"
	"github.com/typeward/typeward/internal/verdict"
)

// FuzzCheck loads two documents and checks them both ways: no panic, every
// issue carries a code and a message, and a "compatible" answer survives
// the fixed instance pool (a cheap soundness oracle).
func FuzzCheck(f *testing.F) {
	seeds := [][2]string{
		{`{"type":"array","items":{"type":"object"}}`, `{"type":"array","items":{"type":"string"}}`},
		{`{"type":"object","properties":{"a":{"type":"integer"}},"required":["a"]}`, `{"type":"object","properties":{"a":{"type":"number"}},"additionalProperties":false}`},
		{`{"$defs":{"n":{"type":"object","properties":{"next":{"$ref":"#/$defs/n"}}}},"$ref":"#/$defs/n"}`, `{"$defs":{"m":{"type":"object","properties":{"next":{"$ref":"#/$defs/m"}}}},"$ref":"#/$defs/m"}`},
		{`{"$defs":{"a":{"$ref":"#/$defs/b"},"b":{"$ref":"#/$defs/a"}},"$ref":"#/$defs/a"}`, `{"type":"string"}`},
		{`{"anyOf":[{"type":"string"},{"type":"null"}]}`, `{"oneOf":[{"type":"string"},{"type":"integer"}]}`},
		{`{"enum":["a",1,null]}`, `{"not":{"type":"null"}}`},
		{`{"type":"number","multipleOf":0.01,"minimum":0}`, `{"type":"number","multipleOf":0.1,"exclusiveMinimum":-1}`},
		{`{"$schema":"http://json-schema.org/draft-07/schema#","items":[{"type":"string"}],"additionalItems":false}`, `{"prefixItems":[{"type":"string"}],"items":false,"minItems":1}`},
		{`{"if":{"type":"string"},"then":{"minLength":1},"else":{"type":"integer"}}`, `{"if":{"type":"integer"},"then":{"minimum":0}}`},
		{`true`, `false`},
		// Literals at schema.MaxExponent (larger ones are refused at load).
		{`{"enum":[1e-400,{"a":1e-400}]}`, `{"minimum":0,"multipleOf":1e400,"properties":{"a":{"minimum":0}}}`},
		{`{}`, `{"propertyNames":{"maxLength":3},"patternProperties":{"^x":{"type":"string"}},"dependentSchemas":{"a":{"required":["b"]}}}`},
	}
	for _, s := range seeds {
		f.Add([]byte(s[0]), []byte(s[1]))
	}
	f.Fuzz(func(t *testing.T, a, b []byte) {
		sa, err := schema.Parse(a)
		if err != nil {
			return
		}
		sb, err := schema.Parse(b)
		if err != nil {
			return
		}
		c := NewChecker()
		for _, pair := range [][2]*schema.Schema{{sa, sb}, {sb, sa}} {
			res := c.Check(Node{pair[0], ""}, Node{pair[1], ""}, Options{})
			for _, is := range res.Issues {
				if is.Code == "" || is.Message == "" || (is.Verdict != verdict.Incompatible && is.Verdict != verdict.Unknown) {
					t.Fatalf("malformed issue %+v", is)
				}
				if is.Verdict == verdict.Incompatible {
					assertWitness(t, Node{pair[0], ""}, Node{pair[1], ""}, is)
				}
			}
			if (res.Verdict == verdict.Compatible) != (len(res.Issues) == 0) {
				t.Fatalf("verdict %s with %d issues", res.Verdict, len(res.Issues))
			}
			if res.Verdict != verdict.Compatible {
				continue
			}
			for _, v := range genValues {
				if pair[0].Validate(v) == nil && pair[1].Validate(v) != nil {
					raw, _ := json.Marshal(v)
					t.Fatalf("compatible, yet %s fits %s and not %s", raw, pair[0].Canonical, pair[1].Canonical)
				}
			}
		}
	})
}
