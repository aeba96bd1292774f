package server_test

import (
	"crypto/sha256"
	"encoding/base64"
	"html"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
)

const hostVerifier = "a-verifier-of-the-host-that-is-at-least-43-characters-long"

func s256(v string) string {
	sum := sha256.Sum256([]byte(v))
	return base64.RawURLEncoding.EncodeToString(sum[:])
}

var hiddenField = regexp.MustCompile(`name="(request|digest)" value="([^"]*)"`)

// hidden is a hidden field of a page's form.
func hidden(t testing.TB, r response, name string) string {
	t.Helper()
	for _, m := range hiddenField.FindAllSubmatch(r.body, -1) {
		if string(m[1]) == name {
			return html.UnescapeString(string(m[2]))
		}
	}
	t.Fatalf("no %s field in the page (%d): %s", name, r.status, r.body)
	return ""
}

// registerHost makes a public MCP host with a loopback redirect.
func registerHost(h *harness, admin string) registered {
	return h.createClient(admin, map[string]any{"client_name": "Desk Host", "token_endpoint_auth_method": "none",
		"allowed_tools": []string{"*"}, "allowed_audiences": []string{routerAud},
		"redirect_uris": []string{"http://127.0.0.1/callback"}, "grant_types": []string{"authorization_code", "refresh_token"}})
}

func authorizeURL(clientID string, kv ...string) string {
	q := url.Values{"response_type": {"code"}, "client_id": {clientID}, "redirect_uri": {"http://127.0.0.1:5555/callback"},
		"code_challenge": {s256(hostVerifier)}, "code_challenge_method": {"S256"}, "state": {"s-42"},
		"scope": {"mcp:tool:db_query mcp:tool:aggregate_stats"}}
	for i := 0; i < len(kv); i += 2 {
		q.Set(kv[i], kv[i+1])
	}
	return "/oauth2/authorize?" + q.Encode()
}

// The flow a host's browser goes through, over HTTP: the sign-in page,
// the consent page (framing forbidden, the client's origin the only
// outside form target), a forged post refused, Approve answering the
// code with state and iss, its redemption and a refresh, the family
// listed per client and per person and revoked by the admin API; Deny
// answers access_denied; a bad redirect URI gets a page, never a redirect.
func TestAuthorizationCodeOverHTTP(t *testing.T) {
	for _, m := range []mode{embedded, database} {
		t.Run(string(m), func(t *testing.T) {
			t.Parallel()
			h := cibaHarness(t, m)
			admin := h.adminToken()
			registerExamples(t, h, admin)
			host := registerHost(h, admin)
			b := newBrowser(h)

			page := b.send(http.MethodGet, authorizeURL(host.ID), nil)
			csp := page.header.Get("Content-Security-Policy")
			if page.status != http.StatusOK || !strings.Contains(csp, "frame-ancestors 'none'") ||
				!strings.Contains(csp, "form-action 'self' http://127.0.0.1:5555;") || page.header.Get("X-Frame-Options") != "DENY" {
				t.Fatalf("sign-in page: %d %v", page.status, page.header)
			}
			for _, want := range []string{">Username<", ">Password<", ">Sign in<", "Desk Host", host.ID, "127.0.0.1:5555", "loopback", routerAud} {
				if !strings.Contains(string(page.body), want) {
					t.Errorf("the sign-in page lacks %q", want)
				}
			}
			// A sign-in post forged by another site (no pre-session cookie of
			// its own to match) signs nobody in.
			if r := newBrowser(h).send(http.MethodPost, "/oauth2/authorize", url.Values{"action": {"signin"}, "csrf": {csrfOf(t, page)},
				"request": {hidden(t, page, "request")}, "username": {consoleUser}, "password": {consolePassword}}); r.status != http.StatusForbidden ||
				r.header.Get("Set-Cookie") != "" && strings.Contains(r.header.Get("Set-Cookie"), "typeward_session=") {
				t.Errorf("a forged sign-in: %d %v", r.status, r.header)
			}
			r := b.send(http.MethodPost, "/oauth2/authorize", url.Values{"action": {"signin"}, "csrf": {csrfOf(t, page)},
				"request": {hidden(t, page, "request")}, "username": {consoleUser}, "password": {consolePassword}})
			if r.status != http.StatusSeeOther || !strings.HasPrefix(r.header.Get("Location"), "/oauth2/authorize?") {
				t.Fatalf("sign-in: %d %v %s", r.status, r.header, r.body)
			}
			consent := b.send(http.MethodGet, r.header.Get("Location"), nil)
			for _, want := range []string{">Approve<", ">Deny<", "db_query", "aggregate_stats", "read-only", "<svg"} {
				if !strings.Contains(string(consent.body), want) {
					t.Errorf("the consent page lacks %q", want)
				}
			}
			decide := func(action, csrf string) response {
				return b.send(http.MethodPost, "/oauth2/authorize", url.Values{"action": {action}, "csrf": {csrf},
					"request": {hidden(t, consent, "request")}, "digest": {hidden(t, consent, "digest")}})
			}
			if r := decide("approve", "forged"); r.status != http.StatusForbidden || r.header.Get("Location") != "" {
				t.Errorf("a forged approve: %d %v", r.status, r.header)
			}
			r = decide("approve", csrfOf(t, consent))
			back, err := url.Parse(r.header.Get("Location"))
			if r.status != http.StatusSeeOther || err != nil || back.Host != "127.0.0.1:5555" || back.Path != "/callback" ||
				back.Query().Get("state") != "s-42" || back.Query().Get("iss") != h.base || back.Query().Get("code") == "" {
				t.Fatalf("approve: %d %v", r.status, r.header)
			}
			r = h.postForm("/oauth2/token", "", "", url.Values{"grant_type": {"authorization_code"}, "client_id": {host.ID},
				"code": {back.Query().Get("code")}, "code_verifier": {hostVerifier}, "redirect_uri": {"http://127.0.0.1:5555/callback"}})
			var tok struct {
				tokenAnswer
				RefreshToken         string           `json:"refresh_token"`
				AuthorizationDetails []map[string]any `json:"authorization_details"`
			}
			r.json(t, &tok)
			if r.status != http.StatusOK || tok.RefreshToken == "" || !strings.Contains(tok.Scope, "db_query") || len(tok.AuthorizationDetails) != 1 {
				t.Fatalf("redeem: %d %s", r.status, r.body)
			}
			r = h.postForm("/oauth2/token", "", "", url.Values{"grant_type": {"refresh_token"}, "client_id": {host.ID}, "refresh_token": {tok.RefreshToken}})
			var refreshed struct {
				RefreshToken string `json:"refresh_token"`
			}
			r.json(t, &refreshed)
			if r.status != http.StatusOK || refreshed.RefreshToken == "" {
				t.Fatalf("refresh: %d %s", r.status, r.body)
			}

			var families struct {
				Families []struct {
					ID, ClientID, Subject string
					Revoked               bool
				} `json:"families"`
			}
			for _, q := range []string{"client_id=" + url.QueryEscape(host.ID), "subject=" + consoleUser} {
				families.Families = nil
				h.admin(http.MethodGet, "/admin/v1/refresh-families?"+q, admin, nil).json(t, &families)
				if len(families.Families) != 1 || families.Families[0].Subject != consoleUser {
					t.Fatalf("families by %s: %+v", q, families)
				}
			}
			if r := h.admin(http.MethodPost, "/admin/v1/refresh-families/"+families.Families[0].ID+"/revoke", admin, nil); r.status != http.StatusOK ||
				!strings.Contains(string(r.body), `"revoked":true`) {
				t.Errorf("revoke family: %d %s", r.status, r.body)
			}
			r = h.postForm("/oauth2/token", "", "", url.Values{"grant_type": {"refresh_token"}, "client_id": {host.ID}, "refresh_token": {refreshed.RefreshToken}})
			if r.status != http.StatusBadRequest || !strings.Contains(string(r.body), "invalid_grant") {
				t.Errorf("refresh of a revoked family: %d %s", r.status, r.body)
			}

			// Deny.
			consent = b.send(http.MethodGet, authorizeURL(host.ID, "state", "s-43"), nil)
			r = decide("deny", csrfOf(t, consent))
			back, _ = url.Parse(r.header.Get("Location"))
			if r.status != http.StatusSeeOther || back.Query().Get("error") != "access_denied" || back.Query().Get("state") != "s-43" || back.Query().Get("iss") != h.base {
				t.Errorf("deny: %d %v", r.status, r.header)
			}

			// A consent to a composition that changed meanwhile: the page
			// was drawn, then a tool's schema changed; Approve is refused
			// and nothing is sent to the client.
			consent = b.send(http.MethodGet, authorizeURL(host.ID, "state", "s-44"), nil)
			tool := []byte(`{"name":"aggregate_stats","inputSchema":{"type":"object","properties":{"records":{"type":"array","items":{"type":"object"}},"top":{"type":"integer"}},"required":["records"]},"outputSchema":{"type":"object","properties":{"summary":{"type":"string"},"count":{"type":"integer"}},"required":["summary","count"]},"annotations":{"readOnlyHint":true}}`)
			if r := h.admin(http.MethodPut, "/admin/v1/tools/aggregate_stats", admin, tool); r.status >= 300 {
				t.Fatalf("change a tool: %d %s", r.status, r.body)
			}
			r = decide("approve", csrfOf(t, consent))
			if r.status != http.StatusConflict || r.header.Get("Location") != "" || !strings.Contains(string(r.body), "changed since it was shown") {
				t.Errorf("approve after a tool changed: %d %v", r.status, r.header)
			}

			// A redirect URI the client did not register: a page, no redirect.
			r = b.send(http.MethodGet, authorizeURL(host.ID, "redirect_uri", "https://evil.example/callback"), nil)
			if r.status != http.StatusBadRequest || r.header.Get("Location") != "" || !strings.Contains(string(r.body), "redirect_uri") {
				t.Errorf("unregistered redirect: %d %v %s", r.status, r.header, r.body)
			}
			// An error the client may learn goes back to it.
			r = b.send(http.MethodGet, authorizeURL(host.ID, "code_challenge_method", "plain"), nil)
			back, _ = url.Parse(r.header.Get("Location"))
			if r.status != http.StatusSeeOther || back.Host != "127.0.0.1:5555" || back.Query().Get("error") != "invalid_request" {
				t.Errorf("PKCE plain: %d %v", r.status, r.header)
			}
			// The README's console URL, without its slash.
			if r := b.send(http.MethodGet, "/console", nil); r.status != http.StatusSeeOther || r.header.Get("Location") != "/console/approvals" {
				t.Errorf("/console: %d %v", r.status, r.header)
			}
		})
	}
}
