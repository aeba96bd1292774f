package server_test

import (
	"net/http"
	"net/url"
	"os"
	"strings"
	"testing"
)

// TestConsoleDrawsEachNodesOwnTool: a node naming email_send (v1,
// mutating) beside a node naming srv/email_send (v3, read-only) is drawn
// as email_send v1, mutating. The drawing matched a node's tool by name
// suffix and took the highest version, so it showed the mail-sending
// node as "email_send v3 (read-only)", the effect of another server's
// tool, to the person deciding.
func TestConsoleDrawsEachNodesOwnTool(t *testing.T) {
	withExamples(t, func(t *testing.T, h *harness, admin string) {
		for _, field := range []string{"body", "body2", "body3"} {
			tool := `{"name":"email_send","inputSchema":{"type":"object","properties":{"` + field + `":{"type":"string"}}},"annotations":{"readOnlyHint":true}}`
			if r := h.admin(http.MethodPut, "/admin/v1/tools/srv%2Femail_send", admin, []byte(tool)); r.status != http.StatusCreated {
				t.Fatalf("declare srv/email_send: %d %s", r.status, r.body)
			}
		}
		page := approvalsPage(t, h, admin, `[{"type":"mcp_composition","composition":{"nodes":[{"id":"send","tool":"email_send"},{"id":"noop","tool":"srv/email_send"}]}}]`)
		for _, want := range []string{"<title>send: email_send v1 (mutating)</title>", "<title>noop: srv/email_send v3 (read-only)</title>"} {
			if !strings.Contains(page, want) {
				t.Errorf("the approvals page lacks %q:\n%s", want, page)
			}
		}
	})
}

// TestConsoleNoticeIsNotFromTheURL: the notice after a decision says
// "approved" or "denied", never text from the query string (a link could
// make the console say anything in its own voice).
func TestConsoleNoticeIsNotFromTheURL(t *testing.T) {
	h := cibaHarness(t, embedded)
	b := newBrowser(h)
	if r := b.signIn(t, consolePassword); r.status != http.StatusSeeOther {
		t.Fatalf("sign-in: %d", r.status)
	}
	const forged = "approved. Your session expired: sign in again at evil.example"
	page := string(b.send(http.MethodGet, "/console/approvals?done="+url.QueryEscape(forged), nil).body)
	if strings.Contains(page, "evil.example") {
		t.Errorf("the query string wrote the notice: %s", page)
	}
	for _, done := range []string{"approved", "denied"} {
		if page := string(b.send(http.MethodGet, "/console/approvals?done="+done, nil).body); !strings.Contains(page, "Request "+done+".") {
			t.Errorf("done=%s: no notice", done)
		}
	}
}

// TestConsoleDrawsAStoredComposition: a pending request naming a stored
// composition (composition_id) is drawn from the stored definition, which
// the console reads through the authorization server's one reading of
// authorization_details (oauth.Service.RequestedComposition).
func TestConsoleDrawsAStoredComposition(t *testing.T) {
	withExamples(t, func(t *testing.T, h *harness, admin string) {
		doc, err := os.ReadFile("../../examples/pipeline-valid.json")
		if err != nil {
			t.Fatal(err)
		}
		if r := h.admin(http.MethodPut, "/admin/v1/compositions/nightly", admin, doc); r.status != http.StatusOK {
			t.Fatalf("store nightly: %d %s", r.status, r.body)
		}
		page := approvalsPage(t, h, admin, `[{"type":"mcp_composition","composition_id":"nightly"}]`)
		for _, want := range []string{"<title>q: db_query v1", "<title>stats: aggregate_stats v1", "<title>mail: email_send v1"} {
			if !strings.Contains(page, want) {
				t.Errorf("the approvals page lacks %q:\n%s", want, page)
			}
		}
	})
}

// withExamples runs test on both stores, each on a CIBA harness with the
// example tools declared.
func withExamples(t *testing.T, test func(t *testing.T, h *harness, admin string)) {
	for _, m := range []mode{embedded, database} {
		t.Run(string(m), func(t *testing.T) {
			t.Parallel()
			h := cibaHarness(t, m)
			admin := h.adminToken()
			registerExamples(t, h, admin)
			test(t, h, admin)
		})
	}
}

// approvalsPage is the approvals page an approver sees once a client
// whose policy asks for approval of everything asked for details at the
// backchannel endpoint.
func approvalsPage(t *testing.T, h *harness, admin, details string) string {
	t.Helper()
	c := h.createClient(admin, map[string]any{"client_name": "drawn", "allowed_tools": []string{"*"},
		"allowed_audiences": []string{routerAud}, "approval": "always"})
	if r := h.postForm("/oauth2/bc-authorize", c.ID, c.Secret, url.Values{"authorization_details": {details}}); r.status != http.StatusOK {
		t.Fatalf("bc-authorize: %d %s", r.status, r.body)
	}
	b := newBrowser(h)
	if r := b.signIn(t, consolePassword); r.status != http.StatusSeeOther {
		t.Fatalf("sign-in: %d", r.status)
	}
	return string(b.send(http.MethodGet, "/console/approvals", nil).body)
}
