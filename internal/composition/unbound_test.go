package composition

import (
	"slices"
	"strings"
	"testing"

	"github.com/typeward/typeward/internal/compat"
	"github.com/typeward/typeward/internal/grading"
	"github.com/typeward/typeward/internal/schema"
	"github.com/typeward/typeward/internal/verdict"
)

// TestUnboundOnOptionalEdges: a required input only optional edges feed
// is a proven may_be_missing, with the input the tool receives when they
// do not run as its witness (the real validator rejects it for a missing
// required property), a WARNING lenient and an ERROR strict; when the
// input schema has no instance to make one from, it is Unknown
// (cannot_prove), a WARNING in both modes.
func TestUnboundOnOptionalEdges(t *testing.T) {
	cat := parseCatalog(t, `{"servers":[{"server":"lab","tools":[
		{"name":"src","inputSchema":{"type":"object"},"outputSchema":{"type":"object","properties":{"s":{"type":"string"},"n":{"type":"integer"}},"required":["s","n"]}},
		{"name":"sink","inputSchema":{"type":"object","properties":{"text":{"type":"string","minLength":2},"id":{"type":"integer"},"extra":{"type":"string"}},"required":["text","id"]}},
		{"name":"never","inputSchema":{"type":"object","properties":{"text":{"type":"string"},"id":{"not":{}}},"required":["text","id"]}}
	]}]}`)
	v := NewValidator(cat, nil, compat.NewChecker())
	tests := []struct {
		name, doc       string
		lenient, strict []string
		verdict         verdict.Verdict
	}{
		{"fed only by an optional edge", `{"nodes":[{"id":"a","tool":"src"},{"id":"o","tool":"src"},{"id":"t","tool":"sink"}],
			"edges":[{"from":"a","to":"t","map":{"n":"id"}},{"from":"o","to":"t","optional":true,"map":{"s":"text"}}]}`,
			[]string{"warning may_be_missing - lab/sink - ->text"}, []string{"error may_be_missing - lab/sink - ->text"}, verdict.Incompatible},
		{"two optional edges, both required", `{"nodes":[{"id":"o","tool":"src"},{"id":"p","tool":"src"},{"id":"t","tool":"sink"}],
			"edges":[{"from":"o","to":"t","optional":true,"map":{"s":"text"}},{"from":"p","to":"t","optional":true,"map":{"n":"id","s":"extra"}}]}`,
			[]string{"warning may_be_missing - lab/sink - ->id", "warning may_be_missing - lab/sink - ->text"},
			[]string{"error may_be_missing - lab/sink - ->id", "error may_be_missing - lab/sink - ->text"}, verdict.Incompatible},
		{"no input at all: unknown", `{"nodes":[{"id":"a","tool":"src"},{"id":"o","tool":"src"},{"id":"t","tool":"never"}],
			"edges":[{"from":"a","to":"t","map":{"s":"text"}},{"from":"o","to":"t","optional":true,"map":{"n":"id"}}]}`,
			[]string{"warning cannot_prove - lab/never - ->id"}, []string{"warning cannot_prove - lab/never - ->id"}, verdict.Unknown},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := validate(t, v, tc.doc)
			var unbound []verdict.Issue
			for _, is := range r.Issues {
				if is.Edge == "" {
					unbound = append(unbound, is)
				}
			}
			strict := r.Under(grading.Strict)
			var gotL, gotS []string
			for i, is := range r.Issues {
				if is.Edge == "" {
					gotL = append(gotL, brief(is))
					gotS = append(gotS, brief(strict.Issues[i]))
				}
			}
			slices.Sort(gotL)
			slices.Sort(gotS)
			if !slices.Equal(gotL, tc.lenient) || !slices.Equal(gotS, tc.strict) {
				t.Errorf("lenient %q\nstrict  %q", gotL, gotS)
			}
			for _, is := range unbound {
				if is.Verdict != tc.verdict {
					t.Errorf("%s: verdict %q, want %q", is.FieldPath, is.Verdict, tc.verdict)
				}
				if tc.verdict == verdict.Unknown {
					if len(is.Witness) != 0 || !strings.Contains(is.Message, "cannot confirm that node t: lab/never requires input id") {
						t.Errorf("%s: %s (witness %s)", is.FieldPath, is.Message, is.Witness)
					}
					continue
				}
				tool, err := v.tools.ResolveTool(t.Context(), "sink", 0)
				if err != nil {
					t.Fatal(err)
				}
				assertInputWitness(t, tool.Input, is, strings.TrimPrefix(is.FieldPath, "->"))
			}
		})
	}
}

// assertInputWitness re-validates an unbound input's witness: an object
// without name, which the input schema rejects as the issue says, for a
// missing required property.
func assertInputWitness(t *testing.T, in *schema.Schema, is verdict.Issue, name string) {
	t.Helper()
	w, isObj := decodeWitness(t, is.Witness).(map[string]any)
	if !isObj || is.WitnessError == nil {
		t.Fatalf("%s: witness %s, error %v: want an object and the validator's complaint", is.FieldPath, is.Witness, is.WitnessError)
	}
	if _, has := w[name]; has {
		t.Errorf("%s: witness %s holds %s", is.FieldPath, is.Witness, name)
	}
	err := in.Validate(w)
	if err == nil || !strings.HasSuffix(is.WitnessError.KeywordLocation, "/required") ||
		!strings.Contains(is.WitnessError.Message, "missing propert") {
		t.Errorf("%s: witness %s validates to %v; witness_error %+v, want required", is.FieldPath, is.Witness, err, *is.WitnessError)
	}
}
