package server_test

import (
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/typeward/typeward/internal/registration"
	"github.com/typeward/typeward/internal/server"
)

const registeredScope = "mcp:tool:db_query mcp:tool:aggregate_stats offline_access"

// TestRegisteredScopeAtTheAuthorizationEndpoint: a host that registered
// a scope (RFC 7591) and whose request names neither scope nor
// authorization_details asks for that scope: the consent page draws its
// composition and the token names its tools, for a host the admin API
// made, one that registered itself (POST /oauth2/register) and one that
// publishes a client ID metadata document; a host without one still gets
// a token naming no tool. Both stores.
func TestRegisteredScopeAtTheAuthorizationEndpoint(t *testing.T) {
	for _, m := range []mode{embedded, database} {
		t.Run(string(m), func(t *testing.T) {
			t.Parallel()
			ca, mux, docs := documentServer(t)
			docID := docs.URL + "/host.json"
			mux.HandleFunc("GET /host.json", func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "application/json")
				_, _ = fmt.Fprintf(w, `{"client_id":%q,"client_name":"Doc Host","redirect_uris":["http://127.0.0.1/callback"],"scope":%q}`, docID, registeredScope)
			})
			h := start(t, m, func(c *server.Config) {
				c.Registry = "../../examples/registry.json"
				c.ConsoleUser, c.ConsolePassword = consoleUser, consolePassword
				c.Resources = []string{routerAud}
				c.CIMDRoots, c.CIMDAllowLoopback = ca.Pool(), true
				c.Registration = registration.Open
			})
			admin := h.adminToken()
			registerExamples(t, h, admin)

			made := h.createClient(admin, map[string]any{"client_name": "Admin Host", "token_endpoint_auth_method": "none",
				"allowed_tools": []string{"*"}, "allowed_audiences": []string{routerAud},
				"redirect_uris": []string{"http://127.0.0.1/callback"}, "scope": registeredScope})
			if got := h.admin(http.MethodGet, "/admin/v1/clients/"+url.PathEscape(made.ID), admin, nil); !strings.Contains(string(got.body), `"scope":"`+registeredScope+`"`) {
				t.Errorf("the admin API's client: %s", got.body)
			}
			r := h.register(`{"client_name":"Self Host","redirect_uris":["http://127.0.0.1/callback"],"token_endpoint_auth_method":"none","scope":"`+registeredScope+`"}`, "")
			var self struct {
				ClientID string `json:"client_id"`
				Scope    string `json:"scope"`
			}
			r.json(t, &self)
			if r.status != http.StatusCreated || self.Scope != registeredScope {
				t.Fatalf("register: %d %s", r.status, r.body)
			}
			for _, id := range []string{made.ID, self.ClientID, docID} {
				page, tok := consentWithoutScope(t, h, id)
				for _, want := range []string{"db_query", "aggregate_stats", "<svg"} {
					if !strings.Contains(string(page.body), want) {
						t.Errorf("%s: the consent page lacks %q", id, want)
					}
				}
				if got := strings.Fields(tok.Scope); !slices.Contains(got, "mcp:tool:db_query") || !slices.Contains(got, "mcp:tool:aggregate_stats") || tok.RefreshToken == "" {
					t.Errorf("%s: token scope %q, refresh token %t", id, tok.Scope, tok.RefreshToken != "")
				}
			}

			// Without a registered scope: a token naming no tool, as before.
			plain := registerHost(h, admin)
			if _, tok := consentWithoutScope(t, h, plain.ID); strings.Contains(tok.Scope, "mcp:tool:") {
				t.Errorf("a host without a registered scope: token scope %q", tok.Scope)
			}
			// A registration's scope values a host may not ask for are
			// dropped, and the answer says what was kept (RFC 7591 §3.2.1).
			if r := h.register(`{"redirect_uris":["http://127.0.0.1/callback"],"token_endpoint_auth_method":"none","scope":"openid offline_access"}`, ""); r.status != http.StatusCreated ||
				!strings.Contains(string(r.body), `"scope":"offline_access"`) {
				t.Errorf("a scope with openid: %d %s", r.status, r.body)
			}
			// An admin-set scope typeward refuses stores nothing.
			before := h.admin(http.MethodGet, "/admin/v1/clients", admin, nil)
			if r := h.admin(http.MethodPost, "/admin/v1/clients", admin, map[string]any{"client_name": "x", "token_endpoint_auth_method": "none",
				"allowed_tools": []string{"github/*"}, "redirect_uris": []string{"http://127.0.0.1/callback"}, "scope": "mcp:tool:db_query"}); r.status != http.StatusBadRequest ||
				!strings.Contains(string(r.body), "allowed_tools does not admit") {
				t.Errorf("the admin API, a tool the client may not have: %d %s", r.status, r.body)
			}
			if after := h.admin(http.MethodGet, "/admin/v1/clients", admin, nil); string(after.body) != string(before.body) {
				t.Errorf("a refused scope stored a client:\n%s", after.body)
			}
		})
	}
}

type codeToken struct {
	tokenAnswer
	RefreshToken string `json:"refresh_token"`
}

// consentWithoutScope signs in, approves an authorization request of
// clientID naming neither scope nor authorization_details, and redeems
// the code: the consent page and the token.
func consentWithoutScope(t *testing.T, h *harness, clientID string) (response, codeToken) {
	t.Helper()
	q := url.Values{"response_type": {"code"}, "client_id": {clientID}, "redirect_uri": {"http://127.0.0.1:5555/callback"},
		"code_challenge": {s256(hostVerifier)}, "code_challenge_method": {"S256"}, "state": {"s-1"}}
	b := newBrowser(h)
	page := b.send(http.MethodGet, "/oauth2/authorize?"+q.Encode(), nil)
	if page.status != http.StatusOK {
		t.Fatalf("%s: sign-in page %d %s", clientID, page.status, page.body)
	}
	r := b.send(http.MethodPost, "/oauth2/authorize", url.Values{"action": {"signin"}, "csrf": {csrfOf(t, page)},
		"request": {hidden(t, page, "request")}, "username": {consoleUser}, "password": {consolePassword}})
	consent := b.send(http.MethodGet, r.header.Get("Location"), nil)
	r = b.send(http.MethodPost, "/oauth2/authorize", url.Values{"action": {"approve"}, "csrf": {csrfOf(t, consent)},
		"request": {hidden(t, consent, "request")}, "digest": {hidden(t, consent, "digest")}})
	back, err := url.Parse(r.header.Get("Location"))
	if r.status != http.StatusSeeOther || err != nil || back.Query().Get("code") == "" {
		t.Fatalf("%s: approve %d %v %s", clientID, r.status, r.header, r.body)
	}
	r = h.postForm("/oauth2/token", "", "", url.Values{"grant_type": {"authorization_code"}, "client_id": {clientID},
		"code": {back.Query().Get("code")}, "code_verifier": {hostVerifier}, "redirect_uri": {"http://127.0.0.1:5555/callback"}})
	var tok codeToken
	r.json(t, &tok)
	if r.status != http.StatusOK {
		t.Fatalf("%s: redeem %d %s", clientID, r.status, r.body)
	}
	return consent, tok
}
