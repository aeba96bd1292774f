package server_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/typeward/typeward/internal/server"
	"github.com/typeward/typeward/internal/store/postgres"
	"github.com/typeward/typeward/internal/users"
)

// attackFlow is a signed-in browser on a host's consent page.
type attackFlow struct {
	h     *harness
	admin string
	host  registered
	rs    registered // a resource server: introspects the host's tokens
	b     *browser
}

func newAttackFlow(t *testing.T, m mode) *attackFlow {
	return attackFlowOn(t, cibaHarness(t, m))
}

func attackFlowOn(t *testing.T, h *harness) *attackFlow {
	admin := h.adminToken()
	registerExamples(t, h, admin)
	f := &attackFlow{h: h, admin: admin, host: registerHost(h, admin), b: newBrowser(h),
		rs: h.createClient(admin, map[string]any{"client_name": "RS", "allowed_tools": []string{"*"}, "allowed_audiences": []string{routerAud}})}
	page := f.b.send(http.MethodGet, authorizeURL(f.host.ID), nil)
	r := f.b.send(http.MethodPost, "/oauth2/authorize", url.Values{"action": {"signin"}, "csrf": {csrfOf(t, page)},
		"request": {hidden(t, page, "request")}, "username": {consoleUser}, "password": {consolePassword}})
	if r.status != http.StatusSeeOther {
		t.Fatalf("sign-in: %d %s", r.status, r.body)
	}
	return f
}

// code approves the request of path and returns the code.
func (f *attackFlow) code(t *testing.T, path string) string {
	t.Helper()
	consent := f.b.send(http.MethodGet, path, nil)
	r := f.b.send(http.MethodPost, "/oauth2/authorize", url.Values{"action": {"approve"}, "csrf": {csrfOf(t, consent)},
		"request": {hidden(t, consent, "request")}, "digest": {hidden(t, consent, "digest")}})
	back, err := url.Parse(r.header.Get("Location"))
	if r.status != http.StatusSeeOther || err != nil || back.Query().Get("code") == "" {
		t.Fatalf("approve: %d %v %s", r.status, r.header, r.body)
	}
	return back.Query().Get("code")
}

type flowTokens struct {
	AccessToken  string `json:"access_token"`
	RefreshToken string `json:"refresh_token"`
	Error        string `json:"error"`
	Description  string `json:"error_description"`
}

func (f *attackFlow) token(t *testing.T, form url.Values) (int, flowTokens) {
	t.Helper()
	r := f.h.postForm("/oauth2/token", "", "", form)
	var tok flowTokens
	r.json(t, &tok)
	return r.status, tok
}

func (f *attackFlow) redeem(t *testing.T, code string) flowTokens {
	t.Helper()
	st, tok := f.token(t, url.Values{"grant_type": {"authorization_code"}, "client_id": {f.host.ID}, "code": {code},
		"code_verifier": {hostVerifier}, "redirect_uri": {"http://127.0.0.1:5555/callback"}})
	if st != http.StatusOK {
		t.Fatalf("redeem: %d %+v", st, tok)
	}
	return tok
}

func (f *attackFlow) refresh(rt string) (int, flowTokens) {
	return f.token(f.h.t.(*testing.T), url.Values{"grant_type": {"refresh_token"}, "client_id": {f.host.ID}, "refresh_token": {rt}})
}

// active asks introspection, as the resource server, whether tok is active.
func (f *attackFlow) active(t *testing.T, tok string) bool {
	t.Helper()
	var got map[string]any
	r := f.h.postForm("/oauth2/introspect", f.rs.ID, f.rs.Secret, url.Values{"token": {tok}})
	r.json(t, &got)
	if r.status != http.StatusOK {
		t.Fatalf("introspect: %d %s", r.status, r.body)
	}
	return got["active"] == true
}

func payloadOf(t *testing.T, tok string) map[string]any {
	t.Helper()
	parts := strings.Split(tok, ".")
	if len(parts) != 3 {
		t.Fatalf("not a JWT: %q", tok)
	}
	raw, err := base64.RawURLEncoding.DecodeString(parts[1])
	var c map[string]any
	if err != nil || json.Unmarshal(raw, &c) != nil {
		t.Fatalf("claims of %q", tok)
	}
	return c
}

// bothStores runs test on the embedded store and on Postgres, in parallel.
func bothStores(t *testing.T, test func(*testing.T, mode)) {
	for _, m := range []mode{embedded, database} {
		t.Run(string(m), func(t *testing.T) {
			t.Parallel()
			test(t, m)
		})
	}
}

// Redirect URIs a host's request may not be answered at, each tried
// alone, with a PKCE error after it and with an unknown client: always
// the error page, never a redirect.
func TestAuthorizeRedirectTricksNeverRedirect(t *testing.T) {
	f := newAttackFlow(t, embedded)
	for _, redirect := range []string{
		"http://127.0.0.1:5555/callback#x", "http://127.0.0.1:5555/Callback", "http://127.0.0.1:5555/callback/",
		"http://127.0.0.1:5555/%63allback", "http://user@127.0.0.1:5555/callback", "http://localhost:5555/callback",
		"http://LOCALHOST:5555/callback", "https://127.0.0.1:5555/callback", "http://127.0.0.1:5555/callback?x=1",
		"http://[::ffff:127.0.0.1]:5555/callback", "http://2130706433/callback", "http://127.1/callback",
		"http://0x7f.0.0.1/callback", "http://127.0.0.1:5555//callback", "http://127.0.0.1:5555/callback/../callback",
		"http://127.0.0.1:5555/./callback", "http://127.0.0.1:5555/callback?", "http://127.0.0.2/callback",
		"HTTP://127.0.0.1:5555/callback", "http://127.0.0.1:5555\\@evil.example/callback", "//evil.example/callback",
		"http://127.0.0.1:5555/callback\n", "http://127.0.0.1:5555/callback%00", "http://evil.example/callback",
		"javascript:alert(1)", "http://127.0.0.1:5555/callback ",
	} {
		for _, extra := range [][]string{nil, {"code_challenge_method", "plain"}, {"client_id", "ghost"}} {
			kv := append([]string{"redirect_uri", redirect}, extra...)
			r := f.b.send(http.MethodGet, authorizeURL(f.host.ID, kv...), nil)
			if loc := r.header.Get("Location"); loc != "" || r.status != http.StatusBadRequest {
				t.Errorf("redirect_uri %q %v: %d Location %q", redirect, extra, r.status, loc)
			}
		}
	}
}

// Every error after the redirect URI checked is a redirect to it with
// the RFC 6749 §4.1.2.1 error, state and iss, and no code.
func TestAuthorizationErrorsCarryIssAndState(t *testing.T) {
	f := newAttackFlow(t, embedded)
	for _, c := range []struct {
		kv   []string
		code string
	}{
		{[]string{"code_challenge_method", "plain"}, "invalid_request"},
		{[]string{"code_challenge_method", "s256"}, "invalid_request"},
		{[]string{"code_challenge", ""}, "invalid_request"},
		{[]string{"code_challenge", s256(hostVerifier)[:42]}, "invalid_request"},
		{[]string{"code_challenge", s256(hostVerifier) + "A"}, "invalid_request"},
		{[]string{"code_challenge", strings.Repeat("a", 128)}, "invalid_request"},
		{[]string{"code_challenge", hostVerifier}, "invalid_request"},
		{[]string{"response_type", "token"}, "unsupported_response_type"},
		{[]string{"response_type", "code id_token"}, "unsupported_response_type"},
		{[]string{"scope", "openid"}, "invalid_scope"},
		{[]string{"resource", "https://evil.example/mcp"}, "invalid_target"},
		{[]string{"resource", "https://router.example.com/mcp#x"}, ""},
	} {
		path := authorizeURL(f.host.ID, c.kv...)
		r := f.b.send(http.MethodGet, path, nil)
		loc, _ := url.Parse(r.header.Get("Location"))
		if r.status != http.StatusSeeOther || loc == nil {
			t.Errorf("%v: %d (no redirect) %.300s", c.kv, r.status, r.body)
			continue
		}
		q := loc.Query()
		if loc.Host != "127.0.0.1:5555" || loc.Path != "/callback" || q.Get("iss") != f.h.base || q.Get("state") != "s-42" ||
			q.Get("code") != "" || (c.code != "" && q.Get("error") != c.code) || q.Get("error") == "" {
			t.Errorf("%v: Location %s", c.kv, loc)
		}
	}
	// Repeated parameters on the authorization request, each refused.
	for _, name := range []string{"response_type", "code_challenge", "code_challenge_method", "scope", "resource"} {
		path := authorizeURL(f.host.ID, "resource", routerAud) + "&" + name + "=x"
		r := f.b.send(http.MethodGet, path, nil)
		loc, _ := url.Parse(r.header.Get("Location"))
		if r.status != http.StatusSeeOther || loc.Query().Get("error") != "invalid_request" || loc.Query().Get("iss") != f.h.base {
			t.Errorf("repeated %s: %d %v", name, r.status, r.header)
		}
	}
}

// A code's redemption: the verifier's bounds, repeated parameters, sub
// the person; a replay after two refreshes revokes every access token
// the code led to, and its family.
func TestCodeRedemptionAttacks(t *testing.T) {
	bothStores(t, codeRedemptionAttacks)
}

func codeRedemptionAttacks(t *testing.T, m mode) {
	f := newAttackFlow(t, m)
	good := func(code string) url.Values {
		return url.Values{"grant_type": {"authorization_code"}, "client_id": {f.host.ID}, "code": {code},
			"code_verifier": {hostVerifier}, "redirect_uri": {"http://127.0.0.1:5555/callback"}}
	}
	// Bounds of the verifier: 42 and 129 malformed, 43 and 128 well-formed but wrong.
	code := f.code(t, authorizeURL(f.host.ID))
	for _, c := range []struct {
		v, want string
	}{
		{strings.Repeat("a", 42), "invalid_request"}, {strings.Repeat("a", 129), "invalid_request"},
		{strings.Repeat("a", 43), "invalid_grant"}, {strings.Repeat("a", 128), "invalid_grant"},
		{hostVerifier + "=", "invalid_request"}, {s256(hostVerifier), "invalid_grant"},
	} {
		form := good(code)
		form.Set("code_verifier", c.v)
		if st, tok := f.token(t, form); st != http.StatusBadRequest || tok.Error != c.want {
			t.Errorf("verifier of %d: %d %+v", len(c.v), st, tok)
		}
	}
	// Repeated parameters.
	for _, name := range []string{"code", "code_verifier", "redirect_uri", "client_id", "grant_type", "resource"} {
		form := good(code)
		form.Add(name, form.Get(name)+"")
		if name == "resource" {
			form["resource"] = []string{routerAud, routerAud}
		}
		if st, tok := f.token(t, form); st != http.StatusBadRequest || tok.Error != "invalid_request" && !(name == "resource" && tok.Error == "invalid_target") {
			t.Errorf("repeated %s: %d %+v", name, st, tok)
		}
	}
	// What the token request may not widen: the code's tools are the
	// consented ones whatever it adds.
	for _, kv := range [][2]string{{"scope", "mcp:tool:email_send"}, {"authorization_details", `[{"type":"mcp_composition","composition":{"nodes":[{"id":"m","tool":"email_send"}],"edges":[]}}]`}} {
		other := f.code(t, authorizeURL(f.host.ID))
		form := good(other)
		form.Set(kv[0], kv[1])
		st, tok := f.token(t, form)
		if st == http.StatusOK {
			c := payloadOf(t, tok.AccessToken)
			if strings.Contains(fmt.Sprint(c["mcp_tools"]), "email_send") || strings.Contains(fmt.Sprint(c["scope"]), "email_send") {
				t.Errorf("a code redeemed with %s got %v", kv[0], c)
			}
		}
	}
	// The code still redeems once after all those failures, with
	// sub the person.
	tok := f.redeem(t, code)
	if c := payloadOf(t, tok.AccessToken); c["sub"] != consoleUser || c["client_id"] != f.host.ID {
		t.Errorf("claims %v", c)
	}
	// Refresh once, then replay the code: the access tokens and the
	// refresh family it started are all revoked.
	st, mid := f.refresh(tok.RefreshToken)
	if st != http.StatusOK {
		t.Fatalf("refresh %d %+v", st, mid)
	}
	st, next := f.refresh(mid.RefreshToken)
	if st != http.StatusOK {
		t.Fatalf("refresh %d %+v", st, next)
	}
	if st, again := f.token(t, good(code)); st != http.StatusBadRequest || again.Error != "invalid_grant" {
		t.Errorf("replay: %d %+v", st, again)
	}
	for name, at := range map[string]string{"the code's access token": tok.AccessToken, "the first refresh's": mid.AccessToken,
		"the second refresh's": next.AccessToken} {
		if f.active(t, at) {
			t.Errorf("%s still active after the code's replay", name)
		}
	}
	if st, _ := f.refresh(next.RefreshToken); st != http.StatusBadRequest {
		t.Errorf("the family's refresh token after the code's replay: %d", st)
	}
}

// A reused refresh token revokes the family and every access token it
// issued, not only the latest; no secret reaches the log.
func TestRefreshReuseRevokesEveryAccessToken(t *testing.T) {
	bothStores(t, refreshReuse)
}

func refreshReuse(t *testing.T, m mode) {
	f := newAttackFlow(t, m)
	t1 := f.redeem(t, f.code(t, authorizeURL(f.host.ID)))
	st, t2 := f.refresh(t1.RefreshToken)
	if st != http.StatusOK {
		t.Fatal(st)
	}
	st, t3 := f.refresh(t2.RefreshToken)
	if st != http.StatusOK {
		t.Fatal(st)
	}
	if st, r := f.refresh(t1.RefreshToken); st != http.StatusBadRequest || r.Error != "invalid_grant" {
		t.Errorf("reuse: %d %+v", st, r)
	}
	if st, _ := f.refresh(t3.RefreshToken); st != http.StatusBadRequest {
		t.Errorf("the family's latest refresh token after a reuse: %d", st)
	}
	for name, at := range map[string]string{"first": t1.AccessToken, "second": t2.AccessToken, "third": t3.AccessToken} {
		if f.active(t, at) {
			t.Errorf("the family's %s access token still active after a reuse", name)
		}
	}
	// Revoking a family (here by /oauth2/revoke with its refresh token)
	// revokes every access token it issued too.
	u1 := f.redeem(t, f.code(t, authorizeURL(f.host.ID, "state", "s-2")))
	st, u2 := f.refresh(u1.RefreshToken)
	if st != http.StatusOK {
		t.Fatal(st)
	}
	if r := f.h.postForm("/oauth2/revoke", "", "", url.Values{"client_id": {f.host.ID}, "token": {u2.RefreshToken}}); r.status != http.StatusOK {
		t.Fatalf("revoke: %d %s", r.status, r.body)
	}
	for name, at := range map[string]string{"first": u1.AccessToken, "second": u2.AccessToken} {
		if f.active(t, at) {
			t.Errorf("the revoked family's %s access token still active", name)
		}
	}
	// Secrets never in the log.
	logs := f.h.logs.String()
	for name, s := range map[string]string{"verifier": hostVerifier, "password": consolePassword,
		"refresh 1": t1.RefreshToken, "refresh 3": t3.RefreshToken, "access": t3.AccessToken} {
		if strings.Contains(logs, s) {
			t.Errorf("the log holds the %s", name)
		}
	}
}

// The consent page's forms and what it shows: another session's CSRF
// token decides nothing, a client's name is text (escaped), a refresh
// after a tool changed ends the grant with the reason, and the code
// never reaches the log.
func TestConsentPageAttacks(t *testing.T) {
	f := newAttackFlow(t, embedded)
	// Another person's session (signed in on another browser) and its token.
	other := newAttackFlow(t, embedded)
	theirs := other.b.send(http.MethodGet, authorizeURL(other.host.ID), nil)
	mine := f.b.send(http.MethodGet, authorizeURL(f.host.ID), nil)
	for name, csrf := range map[string]string{"another session's": csrfOf(t, theirs), "missing": "", "forged": strings.Repeat("A", 43)} {
		r := f.b.send(http.MethodPost, "/oauth2/authorize", url.Values{"action": {"approve"}, "csrf": {csrf},
			"request": {hidden(t, mine, "request")}, "digest": {hidden(t, mine, "digest")}})
		if r.status != http.StatusForbidden || r.header.Get("Location") != "" {
			t.Errorf("approve with a %s CSRF token: %d %v", name, r.status, r.header.Get("Location"))
		}
	}
	// A name with markup is shown as text.
	evil := f.h.createClient(f.admin, map[string]any{"client_name": `<img src=x onerror=alert(1)>"Host'`, "token_endpoint_auth_method": "none",
		"allowed_tools": []string{"*"}, "allowed_audiences": []string{routerAud},
		"redirect_uris": []string{"http://127.0.0.1/callback"}, "grant_types": []string{"authorization_code"}})
	page := f.b.send(http.MethodGet, authorizeURL(evil.ID), nil)
	if page.status != http.StatusOK || strings.Contains(string(page.body), "<img src=x") || !strings.Contains(string(page.body), "&lt;img src=x onerror=alert(1)&gt;") {
		t.Errorf("a client name with markup: %d %s", page.status, page.body)
	}
	// A refresh after one of the composition's tools changed: invalid_grant, with the reason.
	code := f.code(t, authorizeURL(f.host.ID))
	tok := f.redeem(t, code)
	tool := []byte(`{"name":"aggregate_stats","inputSchema":{"type":"object","properties":{"records":{"type":"array","items":{"type":"object"}},"top":{"type":"integer"}},"required":["records"]},"outputSchema":{"type":"object","properties":{"summary":{"type":"string"},"count":{"type":"integer"}},"required":["summary","count"]},"annotations":{"readOnlyHint":true}}`)
	if r := f.h.admin(http.MethodPut, "/admin/v1/tools/aggregate_stats", f.admin, tool); r.status >= 300 {
		t.Fatalf("change a tool: %d %s", r.status, r.body)
	}
	st, r := f.refresh(tok.RefreshToken)
	if st != http.StatusBadRequest || r.Error != "invalid_grant" || !strings.Contains(r.Description, "changed") {
		t.Errorf("refresh after a tool changed: %d %+v", st, r)
	}
	if st, r := f.refresh(tok.RefreshToken); st != http.StatusBadRequest || r.Error != "invalid_grant" {
		t.Errorf("the ended grant refreshed again: %d %+v", st, r)
	}
	if strings.Contains(f.h.logs.String(), code) {
		t.Error("the log holds the authorization code")
	}
}

// A server failure after the request was checked goes back to the
// client as RFC 6749 §4.1.2.1's server_error, with state and iss, its
// cause logged and never sent: here the database refuses every new code.
func TestServerErrorsGoBackToTheClient(t *testing.T) {
	var dsn string
	h := start(t, database, func(c *server.Config) {
		c.Registry = "../../examples/registry.json"
		c.ConsoleUser, c.ConsolePassword = consoleUser, consolePassword
		dsn = c.DatabaseURL
	})
	f := attackFlowOn(t, h)
	consent := f.b.send(http.MethodGet, authorizeURL(f.host.ID), nil)
	conn, err := pgx.Connect(context.Background(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	if _, err := conn.Exec(context.Background(), `ALTER TABLE oauth_codes ADD CONSTRAINT no_more_codes CHECK (false) NOT VALID`); err != nil {
		t.Fatal(err)
	}
	r := f.b.send(http.MethodPost, "/oauth2/authorize", url.Values{"action": {"approve"}, "csrf": {csrfOf(t, consent)},
		"request": {hidden(t, consent, "request")}, "digest": {hidden(t, consent, "digest")}})
	back, _ := url.Parse(r.header.Get("Location"))
	if r.status != http.StatusSeeOther || back == nil || back.Host != "127.0.0.1:5555" || back.Query().Get("error") != "server_error" ||
		back.Query().Get("state") != "s-42" || back.Query().Get("iss") != h.base || back.Query().Get("code") != "" ||
		strings.Contains(r.header.Get("Location"), "no_more_codes") {
		t.Errorf("approve with the code store failing: %d %v %.200s", r.status, r.header.Get("Location"), r.body)
	}
	if !strings.Contains(h.logs.String(), "no_more_codes") {
		t.Error("the failure's cause was not logged")
	}
}

// An operator may not approve what the client's approval policy sends
// to an approver: the page offers only Deny, and a hand-made Approve is
// refused with nothing sent to the client; Deny still answers.
func TestOperatorCannotApproveWhatNeedsAnApprover(t *testing.T) {
	var dsn string
	h := start(t, database, func(c *server.Config) {
		c.Registry = "../../examples/registry.json"
		c.ConsoleUser, c.ConsolePassword = consoleUser, consolePassword
		dsn = c.DatabaseURL
	})
	db, err := postgres.Open(context.Background(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	const opPassword = "an-operator-password-42"
	if err := postgres.NewUsers(db).Create(context.Background(), &users.User{Name: "olga", Role: users.Operator,
		PasswordHash: users.HashPassword(opPassword), CreatedAt: time.Now()}); err != nil {
		t.Fatal(err)
	}
	admin := h.adminToken()
	registerExamples(t, h, admin)
	host := h.createClient(admin, map[string]any{"client_name": "Careful Host", "token_endpoint_auth_method": "none",
		"allowed_tools": []string{"*"}, "allowed_audiences": []string{routerAud}, "approval": "mutating",
		"redirect_uris": []string{"http://127.0.0.1/callback"}, "grant_types": []string{"authorization_code"}})
	b := newBrowser(h)
	path := authorizeURL(host.ID, "scope", "mcp:tool:email_send")
	page := b.send(http.MethodGet, path, nil)
	if r := b.send(http.MethodPost, "/oauth2/authorize", url.Values{"action": {"signin"}, "csrf": {csrfOf(t, page)},
		"request": {hidden(t, page, "request")}, "username": {"olga"}, "password": {opPassword}}); r.status != http.StatusSeeOther {
		t.Fatalf("operator sign-in: %d %s", r.status, r.body)
	}
	consent := b.send(http.MethodGet, path, nil)
	if strings.Contains(string(consent.body), ">Approve<") || !strings.Contains(string(consent.body), ">Deny<") {
		t.Errorf("the operator's consent page offers Approve (or no Deny): %s", consent.body)
	}
	decide := func(action string) response {
		return b.send(http.MethodPost, "/oauth2/authorize", url.Values{"action": {action}, "csrf": {csrfOf(t, consent)},
			"request": {hidden(t, consent, "request")}, "digest": {hidden(t, consent, "digest")}})
	}
	if r := decide("approve"); r.status != http.StatusConflict || r.header.Get("Location") != "" {
		t.Errorf("an operator's Approve: %d %v", r.status, r.header.Get("Location"))
	}
	back, _ := url.Parse(decide("deny").header.Get("Location"))
	if back == nil || back.Query().Get("error") != "access_denied" || back.Query().Get("iss") != h.base {
		t.Errorf("an operator's Deny: %v", back)
	}
}

// A request that omitted redirect_uri (the client has one) may send it at
// the token endpoint, as oauth4webapi always does (OAuth 2.1 §4.1.3:
// optional then); another one is still refused.
func TestRedeemWithTheRedirectTheRequestOmitted(t *testing.T) {
	f := newAttackFlow(t, embedded)
	host := f.h.createClient(f.admin, map[string]any{"client_name": "Web Host", "token_endpoint_auth_method": "none",
		"allowed_tools": []string{"*"}, "allowed_audiences": []string{routerAud},
		"redirect_uris": []string{"https://host.example/cb"}, "grant_types": []string{"authorization_code"}})
	q, _ := url.Parse(authorizeURL(host.ID))
	v := q.Query()
	v.Del("redirect_uri")
	for _, c := range []struct {
		redirect string
		status   int
	}{{"https://evil.example/cb", http.StatusBadRequest}, {"https://host.example/cb", http.StatusOK}, {"", http.StatusOK}} {
		code := f.code(t, "/oauth2/authorize?"+v.Encode())
		st, tok := f.token(t, url.Values{"grant_type": {"authorization_code"}, "client_id": {host.ID}, "code": {code},
			"code_verifier": {hostVerifier}, "redirect_uri": {c.redirect}})
		if st != c.status {
			t.Errorf("redirect_uri %q at the token endpoint: %d %+v, want %d", c.redirect, st, tok, c.status)
		}
	}
}
