package server_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/typeward/typeward/internal/server"
)

// TestOversizedClientID: a 3 MiB client_id is refused with a clear 400
// before anything uses it, and neither the log nor the audit record gets
// more than a marked prefix of it (it used to reach both whole: on
// Postgres the audit insert failed, and each refusal logged 3 MiB).
func TestOversizedClientID(t *testing.T) {
	t.Parallel()
	for _, m := range []mode{embedded, database} {
		t.Run(string(m), func(t *testing.T) {
			t.Parallel()
			h := start(t, m, func(c *server.Config) { c.Registry = "../../examples/registry.json" })
			huge := strings.Repeat("x", 3<<20)
			logged := h.logs.Len()
			for _, path := range []string{"/oauth2/token", "/oauth2/introspect", "/oauth2/revoke"} {
				r := h.postForm(path, "", "", url.Values{"grant_type": {"client_credentials"},
					"client_id": {huge}, "client_secret": {"s"}, "token": {"t"}})
				var got errorAnswer
				r.json(t, &got)
				if r.status != http.StatusBadRequest || got.Error != "invalid_request" ||
					got.Description != "client_id is 3145728 bytes, at most 256" {
					t.Errorf("%s: %d %s", path, r.status, r.body)
				}
			}
			if n := h.logs.Len() - logged; n > 4<<10 {
				t.Errorf("three refusals logged %d bytes", n)
			}
			var page struct {
				Items []struct {
					ClientID string `json:"client_id"`
					Outcome  string `json:"outcome"`
					Reason   string `json:"reason"`
				} `json:"items"`
			}
			h.admin(http.MethodGet, "/admin/v1/issuances?outcome=denied", h.adminToken(), nil).json(t, &page)
			if len(page.Items) != 1 {
				t.Fatalf("%d denied records, want the one token request's: %+v", len(page.Items), page.Items)
			}
			rec := page.Items[0]
			want := strings.Repeat("x", 64) + "...[truncated, 3145728 bytes]"
			if rec.ClientID != want || rec.Reason != "oversized_parameter" {
				t.Errorf("audit record %+v, want client_id %q", rec, want)
			}
		})
	}
}
