package oauth

import (
	"errors"
	"strings"
	"testing"
)

func TestParseAuthorizationDetails(t *testing.T) {
	tests := []struct {
		in     string
		inline string
		id     string
		err    string // part of the description
	}{
		{`[{"type":"mcp_composition","composition":{"edges":[]}}]`, `{"edges":[]}`, "", ""},
		{`[{"type":"mcp_composition","composition_id":"nightly"}]`, "", "nightly", ""},
		{`{"type":"mcp_composition"}`, "", "", "JSON array"},
		{`[]`, "", "", "got 0 entries"},
		{`[{"type":"mcp_composition","composition_id":"a"},{"type":"mcp_composition","composition_id":"b"}]`, "", "", "got 2 entries"},
		{`[1]`, "", "", "must be an object"},
		{`[{"type":"payment_initiation"}]`, "", "", `'payment_initiation' is not supported`},
		{`[{"type":7}]`, "", "", "type must be a string"},
		{`[{"type":"mcp_composition"}]`, "", "", "needs composition or composition_id"},
		{`[{"type":"mcp_composition","composition":{},"composition_id":"x"}]`, "", "", "not both"},
		{`[{"type":"mcp_composition","composition":[1]}]`, "", "", "must be a JSON object"},
		{`[{"type":"mcp_composition","composition_id":""}]`, "", "", "non-empty string"},
		{`[{"type":"mcp_composition","composition_id":"x","locations":[]}]`, "", "", `unknown member 'locations'`},
		{`[{"type":"mcp_composition","composition_id":"` + strings.Repeat("x", 300) + `"}]`, "", "", "longer than 256"},
	}
	for _, tt := range tests {
		got, err := ParseAuthorizationDetails(tt.in)
		if tt.err != "" {
			var oe *Error
			if !errors.As(err, &oe) || oe.Code != CodeInvalidAuthorizationDetails || oe.Kind != KindBadRequest || !strings.Contains(oe.Description, tt.err) {
				t.Errorf("%s: err = %v, want invalid_authorization_details containing %q", tt.in, err, tt.err)
			}
			continue
		}
		if err != nil || string(got.Inline) != tt.inline || got.ID != tt.id {
			t.Errorf("%s: got %+v, %v", tt.in, got, err)
		}
	}
}

// FuzzParseAuthorizationDetails: any input is either one composition
// request or a 400-class invalid_authorization_details, and descriptions
// stay ASCII.
func FuzzParseAuthorizationDetails(f *testing.F) {
	for _, s := range []string{
		`[{"type":"mcp_composition","composition":{"edges":[]}}]`,
		`[{"type":"mcp_composition","composition_id":"x"}]`,
		`[{"type":"mcp_composition","composition":null}]`,
		`[{"type":"\u00e9"}]`, `[`, `null`, `[null]`, `[{}]`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		got, err := ParseAuthorizationDetails(in)
		if err != nil {
			var oe *Error
			if !errors.As(err, &oe) || oe.Kind != KindBadRequest || oe.Code != CodeInvalidAuthorizationDetails {
				t.Fatalf("err = %#v", err)
			}
			if ASCII(oe.Description) != oe.Description {
				t.Fatalf("description not ASCII: %q", oe.Description)
			}
			return
		}
		if (got.ID == "") == (got.Inline == nil) {
			t.Fatalf("exactly one of ID and Inline must be set: %+v", got)
		}
	})
}
