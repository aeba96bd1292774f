package server_test

import (
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/typeward/typeward/internal/keys"
	"github.com/typeward/typeward/internal/server"
)

// FuzzTokenAuthorizationDetails sends arbitrary authorization_details
// through the real handler of the embedded server: whatever comes in, the
// answer is a 200, 400 or 403 OAuth answer, never a 500.
func FuzzTokenAuthorizationDetails(f *testing.F) {
	for _, seed := range []string{
		`[{"type":"mcp_composition","composition":{"nodes":[{"id":"q","tool":"db_query"},{"id":"s","tool":"aggregate_stats"}],"edges":[{"from":"q","to":"s","map":{"rows":"records"}}]}}]`,
		`[{"type":"mcp_composition","composition":{"edges":[{"from":"db_query","to":"transform_csv","map":{"rows[]":"data"},"each":true}]}}]`,
		`[{"type":"mcp_composition","composition":{"edges":[{"source_tool":"db_query","target_tool":"email_send","field_mappings":{"$":"body"}}]}}]`,
		`[{"type":"mcp_composition","composition":{"nodes":[{"id":"a","composition":"a"}]}}]`,
		`[{"type":"mcp_composition","composition_id":"missing"}]`,
		`[{"type":"mcp_composition","composition":{"nodes":[{"id":"x","tool":"db_query","version":99}]}}]`,
		`[{"type":"mcp_composition"}]`, `[]`, `{}`, `[null]`, "\x00", `[{"type":"mcp_composition","composition":{"edges":[{"from":"a","to":"a","map":{"x":"y"}}]}}]`,
	} {
		f.Add(seed)
	}
	cfg := &server.Config{Addr: "127.0.0.1:0", Issuer: "http://typeward.test", TokenTTL: 5 * time.Minute,
		SigningAlg: keys.ES256, JWKSMaxAge: time.Minute, RateLimit: 1e6, RateBurst: 1 << 30,
		Registry: "../../examples/registry.json", LogLevel: "error"}
	srv, err := server.New(context.Background(), cfg, slog.New(slog.DiscardHandler))
	if err != nil {
		f.Fatal(err)
	}
	handler, demo := srv.Handler(), srv.Demo
	f.Fuzz(func(t *testing.T, details string) {
		form := url.Values{"grant_type": {"client_credentials"}, "authorization_details": {details}}
		req := httptest.NewRequest(http.MethodPost, "/oauth2/token", strings.NewReader(form.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.SetBasicAuth(demo.ID, demo.Secret)
		rec := httptest.NewRecorder()
		handler.ServeHTTP(rec, req)
		switch rec.Code {
		case http.StatusOK, http.StatusBadRequest, http.StatusForbidden:
		default:
			t.Fatalf("status %d for %q: %s", rec.Code, details, rec.Body)
		}
		if rec.Header().Get("Cache-Control") != "no-store" {
			t.Fatalf("Cache-Control %q", rec.Header().Get("Cache-Control"))
		}
	})
}
