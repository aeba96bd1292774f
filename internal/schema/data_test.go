package schema

import (
	"errors"
	"testing"
)

// TestDataKeywordsAreValues: const, enum, default, examples and unknown
// keywords hold values, not schemas. A {"$ref": …} inside one is an object
// the instance may be equal to, never a reference to resolve or refuse;
// before, such a schema was refused at load ("schema $ref does not
// resolve", or as a remote reference).
func TestDataKeywordsAreValues(t *testing.T) {
	tests := []struct {
		name      string
		doc       string
		fits, not string
	}{
		{"enum", `{"$defs":{"s":{"type":"string"}},"enum":[{"$ref":"#/$defs/a_string"}]}`, `{"$ref":"#/$defs/a_string"}`, `"x"`},
		{"const remote", `{"const":{"$ref":"https://example.com/s.json"}}`, `{"$ref":"https://example.com/s.json"}`, `{}`},
		{"default and examples", `{"type":"object","default":{"$ref":"#/nowhere"},"examples":[{"$dynamicRef":"#x"}]}`, `{}`, `1`},
		{"unknown keyword", `{"type":"string","x-schema":{"$ref":"file:///etc/passwd","$id":"https://x/y"}}`, `"a"`, `1`},
		{"a property named $ref", `{"properties":{"$ref":{"type":"string"}},"required":["$ref"]}`, `{"$ref":"a"}`, `{"$ref":1}`},
		{"nested in a subschema's enum", `{"properties":{"a":{"enum":[[{"$ref":"#missing"}]]}}}`, `{"a":[{"$ref":"#missing"}]}`, `{"a":[]}`},
		{"draft-07 enum", `{"$schema":"http://json-schema.org/draft-07/schema#","enum":[{"$ref":"#/definitions/x"}]}`, `{"$ref":"#/definitions/x"}`, `{}`},
		{"draft-04 enum", `{"$schema":"http://json-schema.org/draft-04/schema#","enum":[{"$ref":"#/definitions/x"}]}`, `{"$ref":"#/definitions/x"}`, `{}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := Parse([]byte(tt.doc))
			if err != nil {
				t.Fatalf("refused: %v", err)
			}
			if err := s.Validate(mustDecode(t, tt.fits)); err != nil {
				t.Errorf("%s does not fit: %v", tt.fits, err)
			}
			if s.Validate(mustDecode(t, tt.not)) == nil {
				t.Errorf("%s fits", tt.not)
			}
		})
	}
}

// TestReferencesInSchemaPositionsStillChecked: only data is exempt; a
// reference in a subschema, or in data a reference points at (which the
// validator then compiles as a schema), is still refused when it leaves the
// document or lands nowhere.
func TestReferencesInSchemaPositionsStillChecked(t *testing.T) {
	tests := []struct {
		name string
		doc  string
		kind error
	}{
		{"items", `{"items":{"$ref":"#/nowhere"}}`, ErrRefUnresolved},
		{"draft-07 tuple", `{"$schema":"http://json-schema.org/draft-07/schema#","items":[{"$ref":"https://x/y"}]}`, ErrRemoteRef},
		{"definitions", `{"definitions":{"a":{"$ref":"#/nowhere"}}}`, ErrRefUnresolved},
		{"remote through a reference into an unknown keyword", `{"$ref":"#/x-s","x-s":{"$ref":"https://x/y"}}`, ErrRemoteRef},
		{"dangling through a reference into an unknown keyword", `{"$ref":"#/x-s","x-s":{"$ref":"#/nowhere"}}`, ErrRefUnresolved},
		{"a reference into data inside data", `{"$ref":"#/x-s","x-s":{"$ref":"#/x-s/y","y":{"$ref":"https://x/y"}}}`, ErrRemoteRef},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse([]byte(tt.doc))
			if !errors.Is(err, tt.kind) {
				t.Fatalf("error %v, want %v", err, tt.kind)
			}
		})
	}
}

func mustDecode(t *testing.T, s string) any {
	t.Helper()
	v, err := decode([]byte(s))
	if err != nil {
		t.Fatal(err)
	}
	return v
}
