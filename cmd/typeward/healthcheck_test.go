package main

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// TestHealthcheck: the container's HEALTHCHECK passes only on a 200.
func TestHealthcheck(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/healthz" {
			w.WriteHeader(http.StatusServiceUnavailable)
		}
	}))
	defer srv.Close()
	tests := []struct {
		url    string
		code   int
		stderr string
	}{
		{srv.URL + "/healthz", exitOK, ""},
		{srv.URL + "/down", exitFailure, "answered 503"},
		{"http://127.0.0.1:1/healthz", exitFailure, "connect"}, // nothing listens
		{"::not a url", exitBadInput, "--url"},
	}
	for _, tt := range tests {
		code, _, stderr := run("healthcheck", "--url", tt.url)
		if code != tt.code || !strings.Contains(stderr, tt.stderr) {
			t.Errorf("%s: exit %d (%q), want %d with %q", tt.url, code, stderr, tt.code, tt.stderr)
		}
	}
}
