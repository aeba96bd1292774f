package oauth

import (
	"context"
	"testing"

	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/typeward/typeward/internal/metrics"
)

func TestTokenMetrics(t *testing.T) {
	f := newFixture(t)
	m := metrics.New(metrics.Options{LabelledClients: []string{"app"}})
	f.svc.Metrics = m
	ctx := context.Background()
	valid, invalid := details(exampleDoc(t, "pipeline-valid.json")), details(exampleDoc(t, "pipeline-invalid.json"))
	_, _ = f.svc.Token(ctx, form("grant_type", "client_credentials", "authorization_details", valid), creds("app"))
	_, _ = f.svc.Token(ctx, form("grant_type", "client_credentials", "authorization_details", valid), creds("multi"))
	_, _ = f.svc.Token(ctx, form("grant_type", "client_credentials", "resource", routerAud, "authorization_details", valid), creds("multi"))
	_, _ = f.svc.Token(ctx, form("grant_type", "client_credentials", "authorization_details", invalid), creds("app"))
	_, _ = f.svc.Token(ctx, form("grant_type", "client_credentials"), basicAuth("app", "wrong"))

	tests := []struct {
		name string
		got  float64
		want float64
	}{
		{"issued ok", testutil.ToFloat64(m.TokenRequests.WithLabelValues("issued", "ok")), 2},
		{"denied target", testutil.ToFloat64(m.TokenRequests.WithLabelValues("denied", CodeInvalidTarget)), 1}, // multi gave no resource
		{"denied refused", testutil.ToFloat64(m.TokenRequests.WithLabelValues("denied", CodeInvalidAuthorizationDetails)), 1},
		{"denied client", testutil.ToFloat64(m.TokenRequests.WithLabelValues("denied", CodeInvalidClient)), 1},
		{"issued to app", testutil.ToFloat64(m.TokensIssued.WithLabelValues("app")), 1},
		{"issued to others", testutil.ToFloat64(m.TokensIssued.WithLabelValues(metrics.OtherClient)), 1},
		{"type mismatch issues", testutil.ToFloat64(m.ValidationIssues.WithLabelValues("error", "type_mismatch")), 1},
		// Counted per decision, cached validations included.
		{"warning issues", testutil.ToFloat64(m.ValidationIssues.WithLabelValues("warning", "unbound_required_input")), 3},
	}
	for _, tt := range tests {
		if tt.got != tt.want {
			t.Errorf("%s = %v, want %v", tt.name, tt.got, tt.want)
		}
	}
	// Two documents were validated: the valid one once (then cached), the
	// invalid one once.
	if n := testutil.CollectAndCount(m.ValidationDuration); n != 1 {
		t.Errorf("validation duration series: %d", n)
	}
	if got := f.validator.calls.Load(); got != 2 {
		t.Errorf("validations = %d, want 2", got)
	}
}
