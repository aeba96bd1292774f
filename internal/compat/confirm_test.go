package compat

import (
	"testing"

	"github.com/typeward/typeward/internal/verdict"
)

// TestClaimsConfirmedWithoutSearch: claims the rules make without a
// candidate (a required property the source lacks, a property the target
// forbids) are confirmed by a plain instance of the source, so the
// pair-specific search never runs; the witness is still the validator's.
func TestClaimsConfirmedWithoutSearch(t *testing.T) {
	cases := []struct{ name, src, tgt, code string }{
		{"missing required", `{"type":"object","properties":{"a":{"type":"string"}},"required":["a"]}`,
			`{"type":"object","required":["b"]}`, verdict.CodeMissingRequired},
		{"forbidden property", `{"type":"object","properties":{"a":{"type":"string"}},"required":["a"]}`,
			`{"type":"object","properties":{"b":{}},"additionalProperties":false}`, verdict.CodeAdditionalProperty},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			src, tgt := Node{mustParse(t, tc.src), ""}, Node{mustParse(t, tc.tgt), ""}
			c := NewChecker()
			inner, searches := c.search, 0
			c.search = func(s, g Node) (any, error, bool) {
				if g.Schema != nothing {
					searches++
				}
				return inner(s, g)
			}
			r := c.Check(src, tgt, Options{})
			if r.Verdict != verdict.Incompatible {
				t.Fatalf("verdict %s: %q", r.Verdict, summarize(r))
			}
			if searches != 0 {
				t.Errorf("%d pair searches; the source instance should have confirmed the claim", searches)
			}
			confirmed := false
			for _, is := range r.Issues {
				if is.Verdict == verdict.Incompatible {
					assertWitness(t, src, tgt, is)
					confirmed = confirmed || is.Code == tc.code
				}
			}
			if !confirmed {
				t.Errorf("no confirmed %s issue: %q", tc.code, summarize(r))
			}
		})
	}
}
