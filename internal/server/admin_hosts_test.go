package server_test

import (
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
)

// An MCP host registered through the admin API: a public client with its
// redirect URIs and grant types, shown as stored; it can never use
// client_credentials, having nothing to authenticate with; a bad redirect
// URI is refused with its problem.
func TestAdminRegistersAnMCPHost(t *testing.T) {
	for _, m := range []mode{embedded, database} {
		t.Run(string(m), func(t *testing.T) {
			t.Parallel()
			h := start(t, m, nil)
			admin := h.adminToken()
			r := h.admin(http.MethodPost, "/admin/v1/clients", admin, map[string]any{"client_name": "host",
				"token_endpoint_auth_method": "none", "allowed_tools": []string{"*"}, "allowed_audiences": []string{routerAud},
				"redirect_uris": []string{"https://host.example/cb#frag"}})
			if r.status != http.StatusBadRequest || !strings.Contains(string(r.body), "/redirect_uris/0") || !strings.Contains(string(r.body), "fragment") {
				t.Errorf("a redirect URI with a fragment: %d %s", r.status, r.body)
			}
			c := h.createClient(admin, map[string]any{"client_name": "host", "token_endpoint_auth_method": "none",
				"allowed_tools": []string{"*"}, "allowed_audiences": []string{routerAud},
				"redirect_uris": []string{"http://127.0.0.1/cb"}, "grant_types": []string{"authorization_code", "refresh_token"}})
			if c.Secret != "" {
				t.Errorf("a public client was given a secret")
			}
			var shown struct {
				Method       string   `json:"token_endpoint_auth_method"`
				RedirectURIs []string `json:"redirect_uris"`
				GrantTypes   []string `json:"grant_types"`
			}
			h.admin(http.MethodGet, "/admin/v1/clients/"+c.ID, admin, nil).json(t, &shown)
			if shown.Method != "none" || !slices.Equal(shown.RedirectURIs, []string{"http://127.0.0.1/cb"}) ||
				!slices.Equal(shown.GrantTypes, []string{"authorization_code", "refresh_token"}) {
				t.Errorf("shown %+v", shown)
			}
			r = h.postForm("/oauth2/token", "", "", url.Values{"grant_type": {"client_credentials"}, "client_id": {c.ID},
				"authorization_details": {`[{"type":"mcp_composition","composition_id":"nightly"}]`}})
			if r.status != http.StatusUnauthorized || !strings.Contains(string(r.body), "invalid_client") {
				t.Errorf("client_credentials of a public client: %d %s", r.status, r.body)
			}
		})
	}
}
