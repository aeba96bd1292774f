package metrics

import (
	"io"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"
)

func TestClientLabelIsBounded(t *testing.T) {
	m := New(Options{LabelledClients: []string{"router-a"}})
	tests := []struct{ client, want string }{
		{"router-a", "router-a"},
		{"router-b", OtherClient},
		{"", OtherClient},
	}
	for _, tt := range tests {
		if got := m.ClientLabel(tt.client); got != tt.want {
			t.Errorf("ClientLabel(%q) = %q, want %q", tt.client, got, tt.want)
		}
	}
}

func TestExpositionNamesEveryCollector(t *testing.T) {
	m := New(Options{})
	// Vectors only appear once a series exists.
	m.TokenRequests.WithLabelValues("issued", "ok").Inc()
	m.TokensIssued.WithLabelValues(OtherClient).Inc()
	m.ValidationIssues.WithLabelValues("error", "type_mismatch").Inc()
	m.ValidationDuration.WithLabelValues("hit").Observe(0.001)
	m.ObserveHTTP("POST", "/oauth2/token", 200, 3*time.Millisecond)
	m.WatchRegistryCache(func() float64 { return 7 }, func() float64 { return 2 })
	m.WatchSigningKey(func() float64 { return 42 })
	m.WatchAuditBuffer(func() (int, uint64) { return 3, 5 })

	rec := httptest.NewRecorder()
	m.Handler().ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	body, _ := io.ReadAll(rec.Body)
	for _, name := range []string{
		"typeward_token_requests_total", "typeward_tokens_issued_total",
		"typeward_validation_duration_seconds", "typeward_composition_edges",
		"typeward_validation_issues_total", "typeward_registry_cache_hits_total",
		"typeward_registry_cache_misses_total", "typeward_compositions_stale",
		"typeward_signing_key_age_seconds", "typeward_http_request_duration_seconds",
		"typeward_audit_outage_buffered", "typeward_audit_outage_dropped_total",
		"go_goroutines", "process_start_time_seconds",
	} {
		if !strings.Contains(string(body), "\n# TYPE "+name+" ") {
			t.Errorf("exposition lacks %s", name)
		}
	}
	for _, line := range []string{
		"typeward_registry_cache_hits_total 7", "typeward_registry_cache_misses_total 2",
		"typeward_signing_key_age_seconds 42",
		"typeward_audit_outage_buffered 3", "typeward_audit_outage_dropped_total 5",
	} {
		if !strings.Contains(string(body), "\n"+line+"\n") {
			t.Errorf("exposition lacks %q", line)
		}
	}
	if !strings.Contains(string(body), `typeward_http_request_duration_seconds_count{method="POST",route="/oauth2/token",status="200"} 1`) {
		t.Errorf("HTTP duration not labelled by route pattern and status:\n%s", body)
	}
}

func TestRegistriesAreIndependent(t *testing.T) {
	a, b := New(Options{}), New(Options{})
	a.TokenRequests.WithLabelValues("issued", "ok").Inc()
	if got := testutil.ToFloat64(b.TokenRequests.WithLabelValues("issued", "ok")); got != 0 {
		t.Errorf("second registry saw the first one's count: %v", got)
	}
}
