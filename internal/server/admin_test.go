package server_test

import (
	"encoding/json"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/typeward/typeward/internal/server"
)

// TestAdminAPI walks the admin routes the end-to-end scenario does not:
// server snapshots with drift and approval, stored compositions (dry run,
// store, revalidate, use by composition_id), tool versions, keys and
// client listing, on both stores.
func TestAdminAPI(t *testing.T) {
	for _, m := range []mode{embedded, database} {
		t.Run(string(m), func(t *testing.T) {
			t.Parallel()
			adminAPI(t, start(t, m, func(c *server.Config) { c.Registry = "" }))
		})
	}
}

func adminAPI(t *testing.T, h *harness) {
	admin := h.adminToken()
	registryFile, err := os.ReadFile("../../examples/registry.json")
	if err != nil {
		t.Fatal(err)
	}

	// Import the example server's tools/list: all four are drift ("added")
	// until approved.
	r := h.admin(http.MethodPost, "/admin/v1/servers/analytics/snapshots?source=examples", admin, registryFile)
	var snap struct {
		ID     int64                         `json:"id"`
		Tools  int                           `json:"tool_count"`
		Source string                        `json:"source"`
		Drift  []struct{ Tool, Code string } `json:"drift"`
	}
	r.json(t, &snap)
	if r.status != http.StatusCreated || snap.Tools != 4 || snap.Source != "examples" || len(snap.Drift) != 4 || snap.Drift[0].Code != "added" {
		t.Fatalf("import: %d %s", r.status, r.body)
	}
	id := strconv.FormatInt(snap.ID, 10)
	r = h.admin(http.MethodPost, "/admin/v1/servers/analytics/snapshots/"+id+"/approve", admin, nil)
	var approval struct {
		Declared []struct {
			Created bool
			Version struct {
				Name    string `json:"name"`
				Version int    `json:"version"`
			} `json:"version"`
		} `json:"declared"`
	}
	r.json(t, &approval)
	if r.status != http.StatusOK || len(approval.Declared) != 4 || approval.Declared[0].Version.Name != "analytics/db_query" {
		t.Fatalf("approve: %d %s", r.status, r.body)
	}
	// Against itself, the approved snapshot has no drift.
	r = h.admin(http.MethodGet, "/admin/v1/servers/analytics/snapshots/"+id, admin, nil)
	r.json(t, &snap)
	if r.status != http.StatusOK || len(snap.Drift) != 0 {
		t.Errorf("approved snapshot drift: %d %s", r.status, r.body)
	}
	for _, method := range []string{http.MethodGet, http.MethodPost} {
		path := "/admin/v1/servers/analytics/snapshots/one"
		if method == http.MethodPost {
			path += "/approve"
		}
		if r := h.admin(method, path, admin, nil); r.status != http.StatusBadRequest || !strings.Contains(string(r.body), "snapshot id must be an integer") {
			t.Errorf("%s %s: %d %s, want 400 naming the id", method, path, r.status, r.body)
		}
	}
	// A qualified name travels with its slash escaped.
	var versions struct {
		Versions []struct {
			Name    string `json:"name"`
			Version int    `json:"version"`
		} `json:"versions"`
	}
	r = h.admin(http.MethodGet, "/admin/v1/tools/analytics%2Fdb_query/versions", admin, nil)
	r.json(t, &versions)
	if r.status != http.StatusOK || len(versions.Versions) != 1 || versions.Versions[0].Name != "analytics/db_query" {
		t.Errorf("versions: %d %s", r.status, r.body)
	}

	// Dry run: nothing stored, issues returned.
	invalid, _ := os.ReadFile("../../examples/pipeline-invalid.json")
	r = h.admin(http.MethodPost, "/admin/v1/compositions:validate", admin, invalid)
	var dry struct {
		Valid  bool                    `json:"valid"`
		Issues []struct{ Code string } `json:"issues"`
	}
	r.json(t, &dry)
	if r.status != http.StatusOK || dry.Valid || len(dry.Issues) != 2 || dry.Issues[0].Code != "type_mismatch" {
		t.Errorf("dry run: %d %s", r.status, r.body)
	}
	if r := h.admin(http.MethodPost, "/admin/v1/compositions:validate", admin, []byte(`{"nodes":7}`)); r.status != http.StatusBadRequest {
		t.Errorf("malformed dry run: %d %s", r.status, r.body)
	}

	// Store the valid pipeline; a client then asks for it by name.
	valid, _ := os.ReadFile("../../examples/pipeline-valid.json")
	r = h.admin(http.MethodPut, "/admin/v1/compositions/nightly", admin, valid)
	var stored struct {
		Composition struct {
			Name       string `json:"name"`
			Validation struct {
				Valid bool `json:"valid"`
				Tools []struct {
					Server string `json:"server"`
					Name   string `json:"name"`
				} `json:"tools"`
			} `json:"validation"`
		} `json:"composition"`
	}
	r.json(t, &stored)
	if r.status != http.StatusOK || !stored.Composition.Validation.Valid || len(stored.Composition.Validation.Tools) != 3 ||
		stored.Composition.Validation.Tools[0].Server != "analytics" {
		t.Fatalf("store composition: %d %s", r.status, r.body)
	}
	if r := h.admin(http.MethodPost, "/admin/v1/compositions/nightly/revalidate", admin, nil); r.status != http.StatusOK {
		t.Errorf("revalidate: %d %s", r.status, r.body)
	}
	var list struct {
		Compositions []struct{ Name string } `json:"compositions"`
	}
	h.admin(http.MethodGet, "/admin/v1/compositions", admin, nil).json(t, &list)
	if len(list.Compositions) != 1 || list.Compositions[0].Name != "nightly" {
		t.Errorf("compositions %+v", list)
	}
	c := h.createClient(admin, map[string]any{"client_name": "nightly runner", "allowed_tools": []string{"analytics/*"},
		"allowed_audiences": []string{routerAud}})
	r = h.postForm("/oauth2/token", c.ID, c.Secret, url.Values{"grant_type": {"client_credentials"},
		"authorization_details": {`[{"type":"mcp_composition","composition_id":"nightly"}]`}})
	var tok tokenAnswer
	r.json(t, &tok)
	if r.status != http.StatusOK || tok.Scope != "mcp:tool:analytics/aggregate_stats mcp:tool:analytics/db_query mcp:tool:analytics/email_send" {
		t.Errorf("token by composition_id: %d %s", r.status, r.body)
	}

	// The approval policy: set at creation, shown, changed by a patch, and
	// then the same request waits for a person.
	r = h.admin(http.MethodPost, "/admin/v1/clients", admin, map[string]any{"client_name": "bad policy",
		"allowed_tools": []string{"*"}, "allowed_audiences": []string{routerAud}, "approval": "sometimes"})
	if r.status != http.StatusBadRequest || !strings.Contains(string(r.body), "/approval") {
		t.Errorf("unknown approval policy: %d %s", r.status, r.body)
	}
	var shown struct {
		Approval string `json:"approval"`
	}
	h.admin(http.MethodGet, "/admin/v1/clients/"+c.ID, admin, nil).json(t, &shown)
	if shown.Approval != "never" {
		t.Errorf("default approval %q, want never", shown.Approval)
	}
	r = h.admin(http.MethodPatch, "/admin/v1/clients/"+c.ID, admin, map[string]any{"approval": "destructive"})
	r.json(t, &shown)
	if r.status != http.StatusOK || shown.Approval != "destructive" {
		t.Errorf("patch approval: %d %s", r.status, r.body)
	}
	for _, bad := range []any{map[string]any{}, map[string]any{"approval": "later"}, map[string]any{"disabled": false}} {
		if r := h.admin(http.MethodPatch, "/admin/v1/clients/"+c.ID, admin, bad); r.status != http.StatusBadRequest {
			t.Errorf("patch %v: %d %s", bad, r.status, r.body)
		}
	}
	if r := h.admin(http.MethodPatch, "/admin/v1/clients/nobody", admin, map[string]any{"approval": "always"}); r.status != http.StatusNotFound {
		t.Errorf("patch of an unknown client: %d %s", r.status, r.body)
	}
	h.admin(http.MethodPatch, "/admin/v1/clients/"+c.ID, admin, map[string]any{"approval": "mutating"})
	r = h.postForm("/oauth2/token", c.ID, c.Secret, url.Values{"grant_type": {"client_credentials"},
		"authorization_details": {`[{"type":"mcp_composition","composition_id":"nightly"}]`}})
	var refused errorAnswer
	r.json(t, &refused)
	if r.status != http.StatusForbidden || refused.Error != "approval_required" {
		t.Errorf("after the patch the mutating pipeline was %d %s, want approval_required", r.status, r.body)
	}

	// Keys and clients listings.
	var keys struct {
		Keys []struct {
			KID, Alg, State string
		} `json:"keys"`
	}
	h.admin(http.MethodGet, "/admin/v1/keys", admin, nil).json(t, &keys)
	if len(keys.Keys) != 1 || keys.Keys[0].Alg != "ES256" || keys.Keys[0].KID == "" {
		t.Errorf("keys %+v", keys)
	}
	r = h.admin(http.MethodGet, "/admin/v1/clients", admin, nil)
	var clientsList struct {
		Clients []map[string]json.RawMessage `json:"clients"`
	}
	r.json(t, &clientsList)
	if len(clientsList.Clients) < 2 {
		t.Errorf("clients: %s", r.body)
	}
	for _, cl := range clientsList.Clients {
		if _, leaked := cl["client_secret"]; leaked {
			t.Errorf("a listed client shows a secret: %v", cl)
		}
	}
}

// TestAdminRecordsPinsByQualifiedName: a composition stored through the
// admin API with a/search@1 and a floating b/search pins a/search only,
// so a new b/search version makes it stale (the API used to compare bare
// names and pin both).
func TestAdminRecordsPinsByQualifiedName(t *testing.T) {
	for _, m := range []mode{embedded, database} {
		t.Run(string(m), func(t *testing.T) {
			t.Parallel()
			h := start(t, m, func(c *server.Config) { c.Registry = "" })
			admin := h.adminToken()
			for _, name := range []string{"a%2Fsearch", "b%2Fsearch"} {
				if r := h.admin(http.MethodPut, "/admin/v1/tools/"+name, admin, map[string]any{
					"inputSchema": map[string]any{"type": "object"}, "outputSchema": map[string]any{"type": "object"}}); r.status != http.StatusCreated {
					t.Fatalf("declare %s: %d %s", name, r.status, r.body)
				}
			}
			def := `{"nodes":[{"id":"x","tool":"a/search","version":1},{"id":"y","tool":"b/search"}],"edges":[]}`
			for _, step := range []struct{ method, path string }{
				{http.MethodPut, "/admin/v1/compositions/both"},
				{http.MethodPost, "/admin/v1/compositions/both/revalidate"},
			} {
				var body any
				if step.method == http.MethodPut {
					body = []byte(def)
				}
				r := h.admin(step.method, step.path, admin, body)
				var got struct {
					Composition struct {
						Validation struct {
							Valid bool `json:"valid"`
							Tools []struct {
								Server string `json:"server"`
								Pinned bool   `json:"pinned"`
							} `json:"tools"`
						} `json:"validation"`
					} `json:"composition"`
				}
				r.json(t, &got)
				pinned := map[string]bool{}
				for _, ref := range got.Composition.Validation.Tools {
					pinned[ref.Server] = ref.Pinned
				}
				if r.status != http.StatusOK || !got.Composition.Validation.Valid || len(pinned) != 2 || !pinned["a"] || pinned["b"] {
					t.Errorf("%s %s: pinned %v: %d %s", step.method, step.path, pinned, r.status, r.body)
				}
			}
		})
	}
}
