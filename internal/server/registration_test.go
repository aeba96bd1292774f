package server_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/typeward/typeward/internal/registration"
	"github.com/typeward/typeward/internal/server"
)

const hostMetadata = `{"client_name":"Desk host","redirect_uris":["http://127.0.0.1:3334/callback"],"token_endpoint_auth_method":"none","grant_types":["authorization_code","refresh_token"]}`

func (h *harness) register(body, bearer string) response {
	h.t.Helper()
	req, _ := http.NewRequest(http.MethodPost, h.base+"/oauth2/register", strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	if bearer != "" {
		req.Header.Set("Authorization", "Bearer "+bearer)
	}
	return h.do(req)
}

func (h *harness) asMetadata(t *testing.T) map[string]any {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, h.base+"/.well-known/oauth-authorization-server", nil)
	var md map[string]any
	h.do(req).json(t, &md)
	return md
}

// TestDynamicRegistration: open on the embedded default (advertised,
// answering 201 with a public host stored), off with a database unless
// asked (404, not advertised), token mode spending the admin API's
// initial access tokens once.
func TestDynamicRegistration(t *testing.T) {
	t.Run("embedded open", func(t *testing.T) {
		t.Parallel()
		h := start(t, embedded, nil)
		md := h.asMetadata(t)
		if md["registration_endpoint"] != h.base+"/oauth2/register" || md["client_id_metadata_document_supported"] != true {
			t.Errorf("metadata = %v", md)
		}
		r := h.register(hostMetadata, "")
		var out struct {
			ClientID string `json:"client_id"`
			Secret   string `json:"client_secret"`
		}
		r.json(t, &out)
		if r.status != http.StatusCreated || out.ClientID == "" || out.Secret != "" || r.header.Get("Cache-Control") != "no-store" {
			t.Fatalf("register: %d %s", r.status, r.body)
		}
		if got := h.admin(http.MethodGet, "/admin/v1/clients/"+out.ClientID, h.adminToken(), nil); got.status != http.StatusOK ||
			!strings.Contains(string(got.body), `"token_endpoint_auth_method":"none"`) {
			t.Errorf("stored client: %d %s", got.status, got.body)
		}
		req, _ := http.NewRequest(http.MethodPost, h.base+"/oauth2/register", strings.NewReader(hostMetadata))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		if r := h.do(req); r.status != http.StatusBadRequest || !strings.Contains(string(r.body), "invalid_client_metadata") {
			t.Errorf("a form body: %d %s", r.status, r.body)
		}
		if r := h.register(`{"redirect_uris":["http://evil.example/cb"],"token_endpoint_auth_method":"none"}`, ""); r.status != http.StatusBadRequest ||
			!strings.Contains(string(r.body), `"error":"invalid_redirect_uri"`) {
			t.Errorf("an open redirect: %d %s", r.status, r.body)
		}
		if r := h.register(`{"client_name":"`+strings.Repeat("a", 70<<10)+`"}`, ""); r.status != http.StatusBadRequest {
			t.Errorf("a 70 KiB body: %d %s", r.status, r.body)
		}
	})
	t.Run("postgres off by default", func(t *testing.T) {
		t.Parallel()
		h := start(t, database, nil)
		if md := h.asMetadata(t); md["registration_endpoint"] != nil || md["client_id_metadata_document_supported"] != true {
			t.Errorf("metadata = %v", md)
		}
		if r := h.register(hostMetadata, ""); r.status != http.StatusNotFound {
			t.Errorf("register while off: %d %s", r.status, r.body)
		}
	})
	t.Run("postgres token", func(t *testing.T) {
		t.Parallel()
		h := start(t, database, func(c *server.Config) { c.Registration = registration.Token })
		if r := h.register(hostMetadata, ""); r.status != http.StatusUnauthorized || !strings.Contains(r.header.Get("WWW-Authenticate"), "invalid_token") {
			t.Errorf("without a token: %d %s %v", r.status, r.body, r.header)
		}
		r := h.admin(http.MethodPost, "/admin/v1/registration-tokens", h.adminToken(), []byte(`{"expires_in":600}`))
		var tok struct{ Token string }
		r.json(t, &tok)
		if r.status != http.StatusCreated || tok.Token == "" {
			t.Fatalf("registration token: %d %s", r.status, r.body)
		}
		if r := h.admin(http.MethodPost, "/admin/v1/registration-tokens", h.adminToken(), []byte(`{"expires_in":5}`)); r.status != http.StatusBadRequest {
			t.Errorf("a 5 s token: %d %s", r.status, r.body)
		}
		if r := h.register(hostMetadata, tok.Token); r.status != http.StatusCreated {
			t.Fatalf("with the token: %d %s", r.status, r.body)
		}
		if r := h.register(hostMetadata, tok.Token); r.status != http.StatusUnauthorized {
			t.Errorf("the token twice: %d %s", r.status, r.body)
		}
	})
}
