package oauth

import (
	"context"
	"testing"

	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/typeward/typeward/internal/metrics"
	"github.com/typeward/typeward/internal/registry"
	"github.com/typeward/typeward/internal/verdict"
)

// TestValidationModeGradesPerRequest: one cached validation serves both
// modes. The lenient client gets its token with the proven may_be_missing
// as a warning, the strict client ("rigorous") the 403 with it as an
// error, its verdict and witness; grading strict leaves the lenient
// client's next answer as it was; the metrics count each request's
// severity; the composition is validated once.
func TestValidationModeGradesPerRequest(t *testing.T) {
	f := newFixture(t)
	m := metrics.New(metrics.Options{})
	f.svc.Metrics = m
	ctx := context.Background()
	lists, err := registry.ParseToolsFile([]byte(`{"tools":[
		{"name":"feed","inputSchema":{"type":"object"},"outputSchema":{"type":"object",
			"properties":{"item":{"type":"object","properties":{"id":{"type":"integer"}}}},"required":["item"]}},
		{"name":"sink","inputSchema":{"type":"object","properties":{"rec":{"type":"object",
			"properties":{"id":{"type":"integer"}},"required":["id"]}},"required":["rec"]}}]}`))
	if err != nil {
		t.Fatal(err)
	}
	for _, tool := range lists[0].Tools {
		if _, err := f.registry.DeclareTool(ctx, lists[0].Server, tool); err != nil {
			t.Fatal(err)
		}
	}
	doc := details(`{"nodes":[{"id":"f","tool":"feed"},{"id":"s","tool":"sink"}],"edges":[{"from":"f","to":"s","map":{"item":"rec"}}]}`)
	ask := func(client string) (*TokenResponse, error) {
		return f.svc.Token(ctx, form("grant_type", "client_credentials", "authorization_details", doc), creds(client))
	}
	lenientWarned := func() {
		t.Helper()
		resp, err := ask("app")
		if err != nil || len(resp.Warnings) != 1 || resp.Warnings[0].Code != verdict.CodeMayBeMissing ||
			resp.Warnings[0].Severity != verdict.SeverityWarning || resp.Warnings[0].Verdict != verdict.Incompatible {
			t.Fatalf("lenient client: %+v, %v; want a token with one may_be_missing warning", resp, err)
		}
	}
	lenientWarned()
	resp, err := ask("rigorous")
	oe := AsError(err)
	if resp != nil || oe == nil || oe.Kind != KindForbidden || len(oe.Issues) != 1 ||
		oe.Description != "the composition was refused under strict validation: 1 error; see issues" {
		t.Fatalf("strict client: %+v, %v; want a 403 with one issue", resp, err)
	}
	if is := oe.Issues[0]; is.Code != verdict.CodeMayBeMissing || is.Severity != verdict.SeverityError ||
		is.Verdict != verdict.Incompatible || len(is.Witness) == 0 || is.WitnessError == nil {
		t.Errorf("strict client's issue %+v, want an incompatible error with its witness", is)
	}
	if d := f.decisions(t); len(d) != 2 || len(d[1].Issues) != 1 || d[1].Issues[0].Severity != verdict.SeverityError {
		t.Errorf("the strict refusal's record: %+v", d)
	}
	lenientWarned()
	if n := f.validator.calls.Load(); n != 1 {
		t.Errorf("validated %d times, want once for both modes", n)
	}
	if w, e := testutil.ToFloat64(m.ValidationIssues.WithLabelValues("warning", verdict.CodeMayBeMissing)),
		testutil.ToFloat64(m.ValidationIssues.WithLabelValues("error", verdict.CodeMayBeMissing)); w != 2 || e != 1 {
		t.Errorf("may_be_missing counted %v as warning and %v as error, want 2 and 1", w, e)
	}
}
