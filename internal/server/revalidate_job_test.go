package server_test

import (
	"context"
	"net/http"
	"testing"

	"github.com/typeward/typeward/internal/server"
)

// TestHousekeepingRevalidatesStaleCompositions: a tool change leaves the
// stored compositions that used it stale; the housekeeping round after it
// validates them again against the registry as it is now and records the
// results, so a stored composition says what it is worth without anyone
// asking (before, only POST …/revalidate recorded a new result).
func TestHousekeepingRevalidatesStaleCompositions(t *testing.T) {
	t.Parallel()
	for _, m := range []mode{embedded, database} {
		t.Run(string(m), func(t *testing.T) {
			t.Parallel()
			h := start(t, m, func(c *server.Config) { c.Registry = "" })
			admin := h.adminToken()
			put := func(path, body string, want int) {
				t.Helper()
				if r := h.admin(http.MethodPut, "/admin/v1"+path, admin, []byte(body)); r.status != want {
					t.Fatalf("PUT %s: %d %s", path, r.status, r.body)
				}
			}
			type stored struct {
				Stale      *bool `json:"stale"`
				Validation struct {
					Valid  bool             `json:"valid"`
					Issues []map[string]any `json:"issues"`
				} `json:"validation"`
			}
			get := func() stored {
				t.Helper()
				var c stored
				r := h.admin(http.MethodGet, "/admin/v1/compositions/pipe", admin, nil)
				r.json(t, &c)
				if r.status != http.StatusOK || c.Stale == nil {
					t.Fatalf("GET pipe: %d %s", r.status, r.body)
				}
				return c
			}
			put("/tools/src", `{"name":"src","inputSchema":{"type":"object"},"outputSchema":{"type":"object","properties":{"x":{"type":"string"}},"required":["x"]}}`, http.StatusCreated)
			put("/tools/dst", `{"name":"dst","inputSchema":{"type":"object","properties":{"x":{"type":"string"}},"required":["x"]}}`, http.StatusCreated)
			put("/compositions/pipe", `{"edges":[{"from":"src","to":"dst","map":{"x":"x"}}]}`, http.StatusOK)

			// A new dst that pipe's mapping breaks: stale until housekeeping.
			put("/tools/dst", `{"name":"dst","inputSchema":{"type":"object","properties":{"x":{"type":"integer"}},"required":["x"]}}`, http.StatusCreated)
			if c := get(); !*c.Stale || !c.Validation.Valid {
				t.Fatalf("after dst changed: stale %v valid %v, want stale and still recorded valid", *c.Stale, c.Validation.Valid)
			}
			h.srv.Housekeep(context.Background())
			if c := get(); *c.Stale || c.Validation.Valid || len(c.Validation.Issues) == 0 {
				t.Errorf("after housekeeping: stale %v valid %v issues %d, want fresh, invalid, with its issues",
					*c.Stale, c.Validation.Valid, len(c.Validation.Issues))
			}

			// A dst that fits again: valid once more after the next round.
			put("/tools/dst", `{"name":"dst","inputSchema":{"type":"object","properties":{"x":{"type":"string"}}}}`, http.StatusCreated)
			h.srv.Housekeep(context.Background())
			if c := get(); *c.Stale || !c.Validation.Valid {
				t.Errorf("after the fix and housekeeping: stale %v valid %v, want fresh and valid", *c.Stale, c.Validation.Valid)
			}
		})
	}
}
