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

// TestGraftIntoAContainerTheSourceAccepts: a candidate deep below the root
// whose container the source's plain instance lacks is put into an
// instance that has the container, with the members the source requires
// of it; a bare container (here an element holding only a, without the y
// a requires) is no source's. This pair was Unknown before: the lifted and
// the grafted candidates were rejected by the source and the search found
// nothing.
func TestGraftIntoAContainerTheSourceAccepts(t *testing.T) {
	const (
		a = `{"type":"object","properties":{"x":{"type":"integer"},"y":{"type":"string","pattern":"^q[0-9]{3}z$"}},"required":["y"]}`
		b = `{"type":"object","properties":{"k":{"type":"string","pattern":"^r[0-9]{2}$"}},"required":["k"]}`
	)
	src := `{"type":"object","properties":{"list":{"type":"array","items":{"type":"object","properties":{"b":` + b + `,"a":` + a + `},
		"oneOf":[{"required":["b"]},{"required":["a"]}]}}}}`
	tgt := `{"properties":{"list":{"items":{"properties":{"a":{"properties":{"x":{"type":"string"}}}}}}}}`
	runRuleCases(t, []ruleCase{{name: "an element's member's member", src: src, tgt: tgt, want: []string{
		"incompatible type_mismatch /properties/list/items/properties/a/properties/x/type /properties/list/items/properties/a/properties/x/type: " +
			"source.list[].a.x is integer but target.list[].a.x expects string " +
			`[witness {"list":[{"a":{"x":0,"y":"q000z"}}]} rejected at /properties/list/items/properties/a/properties/x/type]`}}})
	r := NewChecker().Check(Node{mustParse(t, src), ""}, Node{mustParse(t, tgt), ""}, Options{})
	for _, is := range r.Issues {
		assertWitness(t, Node{mustParse(t, src), ""}, Node{mustParse(t, tgt), ""}, is)
	}
}
