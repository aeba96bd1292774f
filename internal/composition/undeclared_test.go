package composition

import (
	"strings"
	"testing"

	"github.com/typeward/typeward/internal/compat"
	"github.com/typeward/typeward/internal/grading"
	"github.com/typeward/typeward/internal/verdict"
)

// TestUndeclaredThroughAnOpenBranch: a field an open union branch may
// carry undeclared is a proven undeclared_property, its witness a value
// the target field refuses that the output schema accepts there (a
// WARNING lenient, an ERROR strict); across a projection the mapped value
// is no single field's, so it is Unknown, a WARNING in both modes.
func TestUndeclaredThroughAnOpenBranch(t *testing.T) {
	cat := parseCatalog(t, `{"servers":[{"server":"lab","tools":[
		{"name":"src","inputSchema":{"type":"object"},"outputSchema":{"type":"object","properties":{
			"u":{"anyOf":[{"type":"object","properties":{"b":{"type":"string"}},"required":["b"]},{"type":"object","properties":{"c":{"type":"integer"}}}]},
			"list":{"type":"array","items":{"anyOf":[{"type":"object","properties":{"b":{"type":"string"}},"required":["b"]},{"type":"object","properties":{"c":{"type":"integer"}}}]}}},
			"required":["u","list"]}},
		{"name":"sink","inputSchema":{"type":"object","properties":{"text":{"type":"string"},"texts":{"type":"array","items":{"type":"string"}}}}}
	]}]}`)
	v := NewValidator(cat, nil, compat.NewChecker())
	for _, tc := range []struct {
		name, maps, want string
		verdict          verdict.Verdict
		strict           verdict.Severity
		refusals         int // strict ERRORs, each with its witness
	}{
		{"one field", `{"u.b":"text"}`, "undeclared_property", verdict.Incompatible, verdict.SeverityError, 1},
		// The hole the other branch leaves is a proven may_be_missing.
		{"a projection", `{"list[].b":"texts"}`, "cannot_prove", verdict.Unknown, verdict.SeverityWarning, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := validate(t, v, `{"nodes":[{"id":"s","tool":"src"},{"id":"t","tool":"sink"}],"edges":[{"from":"s","to":"t","map":`+tc.maps+`}]}`)
			strict := r.Under(grading.Strict)
			found := 0
			for i, is := range r.Issues {
				if is.Code != tc.want || (tc.want == "cannot_prove" && !strings.Contains(is.Message, "undeclared_property")) {
					continue
				}
				found++
				if is.Verdict != tc.verdict || is.Severity != verdict.SeverityWarning || strict.Issues[i].Severity != tc.strict {
					t.Errorf("%+v: want %s, warning lenient, %s strict", is, tc.verdict, tc.strict)
				}
			}
			if found != 1 {
				t.Errorf("%d %s issues in %+v", found, tc.want, r.Issues)
			}
			if n := assertStrictRefusalsWitnessed(t, cat, r); n != tc.refusals {
				t.Errorf("%d strict refusals", n)
			}
		})
	}
}
