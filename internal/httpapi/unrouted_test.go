package httpapi

import (
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/typeward/typeward/internal/metrics"
	"github.com/typeward/typeward/internal/oauth"
)

// TestUnroutedAnswers: a 404 and a 405 carry their JSON bodies, a 405 its
// Allow header (RFC 9110), and an admin request refused before routing is
// counted under the route it asked for, not under "/admin/v1/*" (under
// "unmatched" when no admin route has its path and method).
func TestUnroutedAnswers(t *testing.T) {
	m := metrics.New(metrics.Options{})
	h := NewRouter(Config{OAuth: &oauth.Service{}, Admin: &Admin{}, Metrics: m, Log: slog.New(slog.DiscardHandler)})
	tests := []struct {
		method, path string
		status       int
		allow, body  string
	}{
		{http.MethodGet, "/nope", 404, "", `{"error":"not_found"}`},
		{http.MethodGet, "/oauth2/token", 405, "POST", `{"error":"method_not_allowed"}`},
		{http.MethodDelete, "/.well-known/jwks.json", 405, "GET", `{"error":"method_not_allowed"}`},
		{http.MethodGet, "/admin/v1/tools/a%2Fsearch", 401, "", "a bearer token with scope typeward:admin is required"},
		// Refused before routing, and no route would have taken them:
		// "unmatched", as on the public paths, not the mount.
		{http.MethodGet, "/admin/v1/nope", 401, "", "a bearer token with scope typeward:admin is required"},
		{http.MethodDelete, "/admin/v1/tools", 401, "", "a bearer token with scope typeward:admin is required"},
	}
	for _, tt := range tests {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(tt.method, tt.path, nil))
		if rec.Code != tt.status || rec.Header().Get("Allow") != tt.allow || !strings.Contains(rec.Body.String(), tt.body) {
			t.Errorf("%s %s: %d Allow %q %s, want %d Allow %q %s", tt.method, tt.path, rec.Code, rec.Header().Get("Allow"),
				rec.Body, tt.status, tt.allow, tt.body)
		}
	}
	exp := httptest.NewRecorder()
	m.Handler().ServeHTTP(exp, httptest.NewRequest(http.MethodGet, "/metrics", nil))
	for _, want := range []string{
		`typeward_http_request_duration_seconds_count{method="GET",route="/admin/v1/tools/{name}",status="401"} 1`,
		`typeward_http_request_duration_seconds_count{method="GET",route="unmatched",status="404"} 1`,
		`typeward_http_request_duration_seconds_count{method="GET",route="unmatched",status="401"} 1`,
		`typeward_http_request_duration_seconds_count{method="DELETE",route="unmatched",status="401"} 1`,
	} {
		if !strings.Contains(exp.Body.String(), want) {
			t.Errorf("metrics lack %s", want)
		}
	}
	if strings.Contains(exp.Body.String(), `route="/admin/v1/*"`) {
		t.Error("a refused admin request is counted under the mount /admin/v1/*")
	}
}
