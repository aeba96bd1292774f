package server_test

import (
	"encoding/json"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/typeward/typeward/internal/server"
	"github.com/typeward/typeward/verify"
)

const (
	consoleUser     = "alice"
	consolePassword = "correct horse battery staple"
	xssName         = "<img/src=x/onerror=alert(1)>" // a server name: HTML would parse it as an img
	xssMessage      = "<img src=x onerror=alert(1)> nightly"
)

// cibaHarness is a server with a console approver and a one-second poll
// interval and minimum expiry, so the whole flow runs in seconds.
func cibaHarness(t testing.TB, m mode) *harness {
	return start(t, m, func(c *server.Config) {
		c.Registry = "../../examples/registry.json"
		c.ConsoleUser, c.ConsolePassword = consoleUser, consolePassword
		c.CIBAInterval, c.CIBAMinExpiry = time.Second, time.Second
	})
}

// browser is a cookie-keeping HTTP client that does not follow redirects.
type browser struct {
	h      *harness
	client *http.Client
}

func newBrowser(h *harness) *browser {
	jar, _ := cookiejar.New(nil)
	return &browser{h: h, client: &http.Client{Jar: jar, Timeout: 10 * time.Second,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}}
}

func (b *browser) send(method, path string, form url.Values) response {
	b.h.t.Helper()
	req, _ := http.NewRequest(method, b.h.base+path, strings.NewReader(form.Encode()))
	if method == http.MethodPost {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	saved := b.h.http
	b.h.http = b.client
	defer func() { b.h.http = saved }()
	return b.h.do(req)
}

var csrfField = regexp.MustCompile(`name="csrf" value="([^"]+)"`)

func csrfOf(t testing.TB, r response) string {
	t.Helper()
	m := csrfField.FindSubmatch(r.body)
	if m == nil {
		t.Fatalf("no CSRF token in the page (%d): %s", r.status, r.body)
	}
	return string(m[1])
}

func (b *browser) signIn(t testing.TB, password string) response {
	t.Helper()
	page := b.send(http.MethodGet, "/console/signin", nil)
	return b.send(http.MethodPost, "/console/signin", url.Values{"csrf": {csrfOf(t, page)}, "username": {consoleUser}, "password": {password}})
}

type bcAnswer struct {
	AuthReqID string `json:"auth_req_id"`
	ExpiresIn int    `json:"expires_in"`
	Interval  int    `json:"interval"`
}

func TestCIBAEndToEnd(t *testing.T) {
	for _, m := range []mode{embedded, database} {
		t.Run(string(m), func(t *testing.T) {
			t.Parallel()
			cibaEndToEnd(t, cibaHarness(t, m))
		})
	}
}

// registerExamples declares the example tools (the database mode has no
// examples loaded; in embedded mode this is a no-op new version check).
func registerExamples(t testing.TB, h *harness, admin string) {
	t.Helper()
	var reg struct{ Tools []json.RawMessage }
	raw, err := os.ReadFile("../../examples/registry.json")
	if err != nil || json.Unmarshal(raw, &reg) != nil {
		t.Fatal(err)
	}
	for _, tool := range reg.Tools {
		var named struct{ Name string }
		_ = json.Unmarshal(tool, &named)
		if r := h.admin(http.MethodPut, "/admin/v1/tools/"+named.Name, admin, []byte(tool)); r.status >= 300 {
			t.Fatalf("register %s: %d", named.Name, r.status)
		}
	}
}

func cibaEndToEnd(t *testing.T, h *harness) {
	admin := h.adminToken()
	registerExamples(t, h, admin)
	c := h.createClient(admin, map[string]any{"client_name": "nightly <b>runner</b>", "allowed_tools": []string{"*"},
		"allowed_audiences": []string{routerAud}, "approval": "mutating"})
	valid := compositionDetails(t, "../../examples/pipeline-valid.json")
	ask := func(kv ...string) bcAnswer {
		t.Helper()
		form := url.Values{"authorization_details": {valid}}
		for i := 0; i < len(kv); i += 2 {
			form.Set(kv[i], kv[i+1])
		}
		r := h.postForm("/oauth2/bc-authorize", c.ID, c.Secret, form)
		var a bcAnswer
		r.json(t, &a)
		if r.status != http.StatusOK || a.AuthReqID == "" || a.Interval != 1 {
			t.Fatalf("bc-authorize: %d %s", r.status, r.body)
		}
		return a
	}
	poll := func(id string) (int, tokenAnswer, errorAnswer) {
		t.Helper()
		r := h.postForm("/oauth2/token", c.ID, c.Secret, url.Values{"grant_type": {"urn:openid:params:grant-type:ciba"}, "auth_req_id": {id}})
		var tok tokenAnswer
		var e errorAnswer
		if r.status == http.StatusOK {
			r.json(t, &tok)
		} else {
			r.json(t, &e)
		}
		return r.status, tok, e
	}

	// The client_credentials request is refused and names the endpoint.
	r := h.postForm("/oauth2/token", c.ID, c.Secret, url.Values{"grant_type": {"client_credentials"}, "authorization_details": {valid}})
	if r.status != http.StatusForbidden || !strings.Contains(string(r.body), "approval_required") || !strings.Contains(string(r.body), "/oauth2/bc-authorize") {
		t.Fatalf("client_credentials: %d %s", r.status, r.body)
	}

	first := ask("binding_message", xssMessage, "requested_expiry", "120")
	if status, _, e := poll(first.AuthReqID); status != 400 || e.Error != "authorization_pending" {
		t.Fatalf("first poll: %d %+v", status, e)
	}
	if _, _, e := poll(first.AuthReqID); e.Error != "slow_down" {
		t.Fatalf("second poll at once: %+v, want slow_down", e)
	}

	// The console: sign-in, CSRF, escaping, approval.
	b := newBrowser(h)
	if r := b.send(http.MethodGet, "/console/approvals", nil); r.status != http.StatusSeeOther || r.header.Get("Location") != "/console/signin" {
		t.Fatalf("approvals without a session: %d %v", r.status, r.header)
	}
	if r := b.send(http.MethodPost, "/console/signin", url.Values{"username": {consoleUser}, "password": {consolePassword}}); r.status != http.StatusForbidden {
		t.Errorf("sign-in without the CSRF token: %d", r.status)
	}
	if r := b.signIn(t, "wrong password!!"); r.status != http.StatusUnauthorized {
		t.Errorf("wrong password: %d", r.status)
	}
	r = b.signIn(t, consolePassword)
	if r.status != http.StatusSeeOther {
		t.Fatalf("sign-in: %d %s", r.status, r.body)
	}
	cookie := strings.Join(r.header.Values("Set-Cookie"), "\n")
	if !strings.Contains(cookie, "typeward_session=") || !strings.Contains(cookie, "HttpOnly") || !strings.Contains(cookie, "SameSite=Strict") {
		t.Errorf("session cookie %q lacks HttpOnly or SameSite=Strict", cookie)
	}
	page := b.send(http.MethodGet, "/console/approvals", nil)
	body := string(page.body)
	if page.status != http.StatusOK || !strings.Contains(page.header.Get("Content-Security-Policy"), "default-src 'none'") {
		t.Fatalf("approvals page: %d %v", page.status, page.header)
	}
	for _, want := range []string{"&lt;img src=x onerror=alert(1)&gt; nightly", "nightly &lt;b&gt;runner&lt;/b&gt;", "<svg", "email_send",
		"read-only", "mutating", `class="edge ok"`, "Approve", "Deny", routerAud} {
		if !strings.Contains(body, want) {
			t.Errorf("approvals page lacks %q", want)
		}
	}
	if strings.Contains(body, "<img") || strings.Contains(body, "<b>runner") {
		t.Errorf("untrusted text rendered as markup:\n%s", body)
	}
	csrf := csrfOf(t, page)
	decide := "/console/approvals/" + first.AuthReqID
	if r := b.send(http.MethodPost, decide, url.Values{"decision": {"approve"}}); r.status != http.StatusForbidden {
		t.Errorf("decision without CSRF token: %d", r.status)
	}
	if r := b.send(http.MethodPost, decide, url.Values{"decision": {"approve"}, "csrf": {"forged"}}); r.status != http.StatusForbidden {
		t.Errorf("decision with a forged CSRF token: %d", r.status)
	}
	if _, _, e := poll(first.AuthReqID); e.Error != "authorization_pending" && e.Error != "slow_down" {
		t.Fatalf("a forged decision decided: %+v", e)
	}
	approvedAt := time.Now()
	if r := b.send(http.MethodPost, decide, url.Values{"decision": {"approve"}, "csrf": {csrf}}); r.status != http.StatusSeeOther {
		t.Fatalf("approve: %d %s", r.status, r.body)
	}
	if r := b.send(http.MethodPost, decide, url.Values{"decision": {"deny"}, "csrf": {csrf}}); r.status != http.StatusConflict {
		t.Errorf("second decision: %d", r.status)
	}
	time.Sleep(time.Second)
	status, tok, e := poll(first.AuthReqID)
	if status != http.StatusOK {
		t.Fatalf("poll after approval: %d %+v", status, e)
	}
	v, err := verify.New(verify.Config{Issuer: h.base, Audience: routerAud, JWKSURL: h.base + "/.well-known/jwks.json"})
	if err != nil {
		t.Fatal(err)
	}
	claims, err := v.Verify(t.Context(), tok.AccessToken)
	if err != nil {
		t.Fatal(err)
	}
	a := claims.AuthorizationDetails[0].Approval
	if a == nil || a.ApprovedBy != consoleUser || a.ApprovedAt < approvedAt.Unix()-1 || a.ApprovedAt > time.Now().Unix() {
		t.Errorf("token approval %+v", a)
	}
	time.Sleep(time.Second)
	if _, _, e := poll(first.AuthReqID); e.Error != "invalid_grant" {
		t.Errorf("second redemption: %+v, want invalid_grant", e)
	}
	issued := h.admin(http.MethodGet, "/admin/v1/issuances?outcome=issued&client_id="+c.ID, admin, nil)
	if !strings.Contains(string(issued.body), `"approved_by":"alice"`) || !strings.Contains(string(issued.body), `"auth_req_id":"`+first.AuthReqID+`"`) ||
		!strings.Contains(string(issued.body), claims.ID) {
		t.Errorf("audit log lacks the approval: %s", issued.body)
	}

	// Deny, with a reason the client sees.
	second := ask()
	page = b.send(http.MethodGet, "/console/approvals", nil)
	if r := b.send(http.MethodPost, "/console/approvals/"+second.AuthReqID, url.Values{"decision": {"deny"}, "reason": {"not tonight"}, "csrf": {csrfOf(t, page)}}); r.status != http.StatusSeeOther {
		t.Fatalf("deny: %d %s", r.status, r.body)
	}
	if _, _, e := poll(second.AuthReqID); e.Error != "access_denied" || !strings.Contains(e.Description, "not tonight") || !strings.Contains(e.Description, consoleUser) {
		t.Errorf("denied poll: %+v", e)
	}

	// Expiry.
	third := ask("requested_expiry", "1")
	time.Sleep(1100 * time.Millisecond)
	if _, _, e := poll(third.AuthReqID); e.Error != "expired_token" {
		t.Errorf("expired poll: %+v", e)
	}

	// Re-validation: a tool that changes after approval voids it.
	fourth := ask()
	page = b.send(http.MethodGet, "/console/approvals", nil)
	if r := b.send(http.MethodPost, "/console/approvals/"+fourth.AuthReqID, url.Values{"decision": {"approve"}, "csrf": {csrfOf(t, page)}}); r.status != http.StatusSeeOther {
		t.Fatalf("approve: %d", r.status)
	}
	changed := `{"name":"email_send","inputSchema":{"type":"object","properties":{"to":{"type":"string"},"body":{"type":"string"},"cc":{"type":"string"}},"required":["to","body"]},"annotations":{"destructiveHint":false}}`
	if r := h.admin(http.MethodPut, "/admin/v1/tools/email_send", admin, []byte(changed)); r.status != http.StatusCreated {
		t.Fatalf("new email_send version: %d %s", r.status, r.body)
	}
	if _, _, e := poll(fourth.AuthReqID); e.Error != "access_denied" || !strings.Contains(e.Description, "registry changed") {
		t.Errorf("poll after a tool changed: %+v", e)
	}

	// A tool that changes before the click: Approve re-validates, refuses
	// with a visible reason, and the request stays pending.
	fifth := ask()
	again := strings.Replace(changed, `"cc":{"type":"string"}`, `"cc":{"type":"string"},"bcc":{"type":"string"}`, 1)
	if r := h.admin(http.MethodPut, "/admin/v1/tools/email_send", admin, []byte(again)); r.status != http.StatusCreated {
		t.Fatalf("another email_send version: %d %s", r.status, r.body)
	}
	page = b.send(http.MethodGet, "/console/approvals", nil)
	r = b.send(http.MethodPost, "/console/approvals/"+fifth.AuthReqID, url.Values{"decision": {"approve"}, "csrf": {csrfOf(t, page)}})
	if r.status != http.StatusConflict || !strings.Contains(string(r.body), `role="alert">Not approved: `) ||
		!strings.Contains(string(r.body), "registry changed") || !strings.Contains(string(r.body), "/console/approvals/"+fifth.AuthReqID) {
		t.Errorf("approve after a tool changed: %d %s", r.status, r.body)
	}
	if _, _, e := poll(fifth.AuthReqID); e.Error != "authorization_pending" {
		t.Errorf("poll after a refused approval: %+v, want still pending", e)
	}

	// A tool whose server name is markup is drawn as text.
	tool := `{"name":"evil","inputSchema":{"type":"object"},"annotations":{"readOnlyHint":true}}`
	if r := h.admin(http.MethodPut, "/admin/v1/tools/"+url.PathEscape(xssName+"/evil"), admin, []byte(tool)); r.status != http.StatusCreated {
		t.Fatalf("declare the markup-named tool: %d %s", r.status, r.body)
	}
	r = h.postForm("/oauth2/bc-authorize", c.ID, c.Secret, url.Values{"authorization_details": {`[{"type":"mcp_composition","composition":{"nodes":[{"id":"x","tool":"` + xssName + `/evil"}]}}]`}})
	if r.status != http.StatusOK {
		t.Fatalf("bc-authorize with the markup tool: %d %s", r.status, r.body)
	}
	page = b.send(http.MethodGet, "/console/approvals", nil)
	if strings.Contains(string(page.body), "<img") || !strings.Contains(string(page.body), "&lt;img/src=x/onerror=alert(1)&gt;/evil") {
		t.Errorf("the markup tool name was not escaped")
	}
	if r := b.send(http.MethodGet, "/console/activity", nil); r.status != http.StatusOK || !strings.Contains(string(r.body), "approval_required") ||
		!strings.Contains(string(r.body), "<svg") {
		t.Errorf("activity page: %d", r.status)
	}
}
