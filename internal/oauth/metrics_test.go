package oauth

import (
	"context"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	dto "github.com/prometheus/client_model/go"

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
	// invalid one once; the answers the cache gave are observed too (at
	// least the second valid request with a resource), and every decision
	// observes its composition's edges.
	misses := histogramCount(t, m.ValidationDuration.WithLabelValues("miss"))
	hits := histogramCount(t, m.ValidationDuration.WithLabelValues("hit"))
	if misses != 2 || hits < 1 {
		t.Errorf("validations observed: %d misses, %d hits; want 2 and at least 1", misses, hits)
	}
	if got := histogramCount(t, m.CompositionEdges); got != misses+hits {
		t.Errorf("composition edges observed %d times, want %d (one per decision)", got, misses+hits)
	}
	if got := f.validator.calls.Load(); got != 2 {
		t.Errorf("validations = %d, want 2", got)
	}
}

// histogramCount is how many observations a histogram holds.
func histogramCount(t *testing.T, h prometheus.Observer) uint64 {
	t.Helper()
	var out dto.Metric
	if err := h.(prometheus.Metric).Write(&out); err != nil {
		t.Fatal(err)
	}
	return out.GetHistogram().GetSampleCount()
}
