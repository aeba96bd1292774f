package server_test

import (
	"net/http"
	"net/url"
	"testing"
)

// TestDisabledAdminTokenCannotAdminister: the token of an admin client
// that has been disabled no longer opens the admin API (it used to create
// a client, 201), and is inactive to introspection.
func TestDisabledAdminTokenCannotAdminister(t *testing.T) {
	t.Parallel()
	for _, m := range []mode{embedded, database} {
		t.Run(string(m), func(t *testing.T) {
			t.Parallel()
			h := start(t, m, nil)
			root := h.adminToken()
			second := h.createClient(root, map[string]any{"client_name": "second admin", "allowed_scopes": []string{"typeward:admin"}})
			r := h.postForm("/oauth2/token", second.ID, second.Secret, url.Values{"grant_type": {"client_credentials"}, "scope": {"typeward:admin"}})
			var tok struct {
				AccessToken string `json:"access_token"`
			}
			r.json(t, &tok)
			newClient := map[string]any{"client_name": "made by a disabled admin", "allowed_tools": []string{"*"},
				"allowed_audiences": []string{"https://router.example.com/mcp"}}
			if r := h.admin(http.MethodPost, "/admin/v1/clients", tok.AccessToken, newClient); r.status != http.StatusCreated {
				t.Fatalf("the second admin's token before disabling: %d %s", r.status, r.body)
			}
			if r := h.admin(http.MethodPost, "/admin/v1/clients/"+second.ID+"/disable", root, nil); r.status != http.StatusOK {
				t.Fatalf("disable: %d %s", r.status, r.body)
			}
			if r := h.admin(http.MethodPost, "/admin/v1/clients", tok.AccessToken, newClient); r.status != http.StatusUnauthorized {
				t.Errorf("a disabled admin's token creating a client: %d %s", r.status, r.body)
			}
			var intro struct {
				Active bool `json:"active"`
			}
			h.postForm("/oauth2/introspect", h.adminID, h.adminSK, url.Values{"token": {tok.AccessToken}}).json(t, &intro)
			if intro.Active {
				t.Error("a disabled client's token introspects as active")
			}
		})
	}
}

// TestRevokedAdminToken: an admin token revoked through RFC 7009 no longer
// opens the admin API.
func TestRevokedAdminToken(t *testing.T) {
	t.Parallel()
	h := start(t, embedded, nil)
	tok := h.adminToken()
	if r := h.admin(http.MethodGet, "/admin/v1/clients", tok, nil); r.status != http.StatusOK {
		t.Fatalf("before revocation: %d %s", r.status, r.body)
	}
	if r := h.postForm("/oauth2/revoke", h.adminID, h.adminSK, url.Values{"token": {tok}}); r.status != http.StatusOK {
		t.Fatalf("revoke: %d %s", r.status, r.body)
	}
	if r := h.admin(http.MethodGet, "/admin/v1/clients", tok, nil); r.status != http.StatusUnauthorized {
		t.Errorf("a revoked admin token: %d %s", r.status, r.body)
	}
}
