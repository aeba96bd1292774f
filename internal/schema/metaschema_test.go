package schema

import (
	"errors"
	"testing"
)

// TestMetaschemaReferences: a reference to a standard metaschema resolves
// from the validator's built-in copy, with no loader call; before, each was
// refused as remote (ErrRemoteRef). Any other remote reference still is.
func TestMetaschemaReferences(t *testing.T) {
	tests := []struct {
		name      string
		doc       string
		fits, not string
	}{
		{"2020-12", `{"$ref":"https://json-schema.org/draft/2020-12/schema"}`, `{"minLength":1}`, `{"minLength":-1}`},
		{"2020-12 as a property", `{"type":"object","properties":{"schema":{"$ref":"https://json-schema.org/draft/2020-12/schema"}}}`, `{"schema":{"type":"string"}}`, `{"schema":{"type":"strnig"}}`},
		{"2019-09", `{"$ref":"https://json-schema.org/draft/2019-09/schema"}`, `true`, `{"type":1}`},
		{"draft-07 with hash over http", `{"$ref":"http://json-schema.org/draft-07/schema#"}`, `{"items":[{}]}`, `{"minItems":"a"}`},
		{"draft-04", `{"$ref":"http://json-schema.org/draft-04/schema#"}`, `{"exclusiveMinimum":true,"minimum":1}`, `{"exclusiveMinimum":1}`},
		{"a fragment of one", `{"$ref":"http://json-schema.org/draft-07/schema#/definitions/nonNegativeInteger"}`, `3`, `-1`},
		{"from a draft-07 document", `{"$schema":"http://json-schema.org/draft-07/schema#","properties":{"s":{"$ref":"http://json-schema.org/draft-07/schema#"}}}`, `{"s":{}}`, `{"s":7}`},
		{"relative to an embedded base", `{"$id":"https://json-schema.org/draft/2020-12/x","$ref":"schema"}`, `{}`, `{"type":{}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := Parse([]byte(tt.doc))
			if err != nil {
				t.Fatalf("refused: %v", err)
			}
			if !s.ReferencesMetaschema() {
				t.Error("ReferencesMetaschema is false")
			}
			if err := s.Validate(mustDecode(t, tt.fits)); err != nil {
				t.Errorf("%s does not fit: %v", tt.fits, err)
			}
			if s.Validate(mustDecode(t, tt.not)) == nil {
				t.Errorf("%s fits", tt.not)
			}
		})
	}
	for _, doc := range []string{
		`{"$ref":"https://json-schema.org/draft/2020-12/meta/core"}`,
		`{"$ref":"https://json-schema.org/draft-06/schema"}`,
		`{"$ref":"https://json-schema.org.evil.example/draft-07/schema"}`,
		`{"$ref":"https://json-schema.org:8443/draft-07/schema"}`,
		`{"$ref":"https://json-schema.org/draft-07/schema?x=1"}`,
		`{"$ref":"file:///draft-07/schema"}`,
	} {
		if _, err := Parse([]byte(doc)); !errors.Is(err, ErrRemoteRef) {
			t.Errorf("%s: error %v, want ErrRemoteRef", doc, err)
		}
	}
	for _, doc := range []string{
		`{"$ref":"http://json-schema.org/draft-07/schema#/definitions/nope"}`,
		`{"$ref":"http://json-schema.org/draft-07/schema#nope"}`,
	} {
		if _, err := Parse([]byte(doc)); !errors.Is(err, ErrInvalid) {
			t.Errorf("%s: error %v, want ErrInvalid", doc, err)
		}
	}
	if s, err := Parse([]byte(`{"type":"object"}`)); err != nil || s.ReferencesMetaschema() {
		t.Errorf("a plain schema: %v, ReferencesMetaschema %v", err, s.ReferencesMetaschema())
	}
}
