package server_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/typeward/typeward/internal/server"
)

// TestConsoleApprovalsGradeUnderClientMode: the Approvals page shows a
// pending request's issues graded under the requesting client's
// validation mode, the one its Approve click and its redemption apply: a
// proven may_be_missing is a warning (and a warning edge) for a lenient
// client, an error (and an error edge) once the client is strict. Before,
// the page always showed lenient severities, so a strict client's request
// looked approvable and the click then answered 409.
func TestConsoleApprovalsGradeUnderClientMode(t *testing.T) {
	for _, m := range []mode{embedded, database} {
		t.Run(string(m), func(t *testing.T) {
			t.Parallel()
			h := start(t, m, func(c *server.Config) {
				c.Registry = ""
				c.ConsoleUser, c.ConsolePassword = consoleUser, consolePassword
				c.CIBAInterval, c.CIBAMinExpiry = time.Second, time.Second
			})
			admin := h.adminToken()
			for name, tool := range validationTools {
				if r := h.admin(http.MethodPut, "/admin/v1/tools/"+name, admin, []byte(tool)); r.status >= 300 {
					t.Fatalf("register %s: %d %s", name, r.status, r.body)
				}
			}
			c := h.createClient(admin, map[string]any{"client_name": "etl", "allowed_tools": []string{"*"},
				"allowed_audiences": []string{routerAud}})
			r := h.postForm("/oauth2/bc-authorize", c.ID, c.Secret, url.Values{"resource": {routerAud},
				"authorization_details": {detailsOf(missingComposition)}})
			var asked bcAnswer
			r.json(t, &asked)
			if r.status != http.StatusOK || asked.AuthReqID == "" {
				t.Fatalf("bc-authorize: %d %s", r.status, r.body)
			}
			b := newBrowser(h)
			if r := b.signIn(t, consolePassword); r.status != http.StatusSeeOther {
				t.Fatalf("sign-in: %d %s", r.status, r.body)
			}
			const (
				warningIssue = `<li class="warning"><strong>warning</strong> <code>may_be_missing</code>`
				errorIssue   = `<li class="error"><strong>error</strong> <code>may_be_missing</code>`
			)
			page := func(mode string) string {
				t.Helper()
				if r := h.admin(http.MethodPatch, "/admin/v1/clients/"+c.ID, admin, map[string]any{"validation": mode}); r.status != http.StatusOK {
					t.Fatalf("patch to %s: %d %s", mode, r.status, r.body)
				}
				r := b.send(http.MethodGet, "/console/approvals", nil)
				if r.status != http.StatusOK || !strings.Contains(string(r.body), asked.AuthReqID) {
					t.Fatalf("approvals page: %d %s", r.status, r.body)
				}
				return string(r.body)
			}
			if body := page("lenient"); !strings.Contains(body, warningIssue) || strings.Contains(body, errorIssue) ||
				!strings.Contains(body, `class="edge warning"`) {
				t.Errorf("lenient client: the page does not show the issue as a warning:\n%s", body)
			}
			if body := page("strict"); !strings.Contains(body, errorIssue) || strings.Contains(body, warningIssue) ||
				!strings.Contains(body, `class="edge error"`) {
				t.Errorf("strict client: the page does not show the issue as an error:\n%s", body)
			}
		})
	}
}
