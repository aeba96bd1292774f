package oauth

import (
	"context"
	"testing"

	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/typeward/typeward/internal/metrics"
)

func TestTokenMetrics(t *testing.T) {
	f := newFixture()
	m := metrics.New(metrics.Options{LabelledClients: []string{"app"}})
	f.svc.Metrics = m
	ctx := context.Background()
	_, _ = f.svc.Token(ctx, form("grant_type", "client_credentials", "authorization_details", details(caseDoc("valid"))), creds("app"))
	_, _ = f.svc.Token(ctx, form("grant_type", "client_credentials", "authorization_details", details(caseDoc("warn"))), creds("multi"))
	_, _ = f.svc.Token(ctx, form("grant_type", "client_credentials", "authorization_details", details(caseDoc("bad"))), creds("app"))
	_, _ = f.svc.Token(ctx, form("grant_type", "client_credentials"), basicAuth("app", "wrong"))

	tests := []struct {
		name string
		got  float64
		want float64
	}{
		{"issued ok", testutil.ToFloat64(m.TokenRequests.WithLabelValues("issued", "ok")), 1},
		{"denied target", testutil.ToFloat64(m.TokenRequests.WithLabelValues("denied", CodeInvalidTarget)), 1}, // multi gave no resource
		{"denied refused", testutil.ToFloat64(m.TokenRequests.WithLabelValues("denied", CodeInvalidAuthorizationDetails)), 1},
		{"denied client", testutil.ToFloat64(m.TokenRequests.WithLabelValues("denied", CodeInvalidClient)), 1},
		{"issued to app", testutil.ToFloat64(m.TokensIssued.WithLabelValues("app")), 1},
		{"issued to others", testutil.ToFloat64(m.TokensIssued.WithLabelValues(metrics.OtherClient)), 0},
		{"type mismatch issues", testutil.ToFloat64(m.ValidationIssues.WithLabelValues("error", "type_mismatch")), 1},
		{"warning issues", testutil.ToFloat64(m.ValidationIssues.WithLabelValues("warning", "untyped_source")), 1},
	}
	for _, tt := range tests {
		if tt.got != tt.want {
			t.Errorf("%s = %v, want %v", tt.name, tt.got, tt.want)
		}
	}
	if n := testutil.CollectAndCount(m.ValidationDuration); n != 1 {
		t.Errorf("validation duration series: %d", n)
	}
}
