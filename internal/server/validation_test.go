package server_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/typeward/typeward/internal/server"
	"github.com/typeward/typeward/internal/verdict"
)

// Tools whose pipelines have exactly one proven hazard that lenient
// tolerates, found by the compatibility check with its witness: feed's
// item may lack the id sink's rec requires (may_be_missing), and item, an
// open object, does not declare the note noted_sink's rec constrains
// (undeclared_property); any_sink's rec, fed only by an optional edge, may
// be missing when that edge does not run (may_be_missing, with the input
// any_sink then receives as its witness). All read-only, so no approval policy is
// involved.
var validationTools = map[string]string{
	"feed": `{"name":"feed","inputSchema":{"type":"object"},"outputSchema":{"type":"object",
		"properties":{"item":{"type":"object","properties":{"id":{"type":"integer"}}}},"required":["item"]},
		"annotations":{"readOnlyHint":true}}`,
	"sink": `{"name":"sink","inputSchema":{"type":"object","properties":{"rec":{"type":"object",
		"properties":{"id":{"type":"integer"}},"required":["id"]}},"required":["rec"]},"annotations":{"readOnlyHint":true}}`,
	"noted_sink": `{"name":"noted_sink","inputSchema":{"type":"object","properties":{"rec":{"type":"object",
		"properties":{"note":{"type":"string"}}}},"required":["rec"]},"annotations":{"readOnlyHint":true}}`,
	"any_sink": `{"name":"any_sink","inputSchema":{"type":"object","properties":{"rec":{"type":"object"}},"required":["rec"]},
		"annotations":{"readOnlyHint":true}}`,
}

const (
	missingComposition    = `{"nodes":[{"id":"f","tool":"feed"},{"id":"s","tool":"sink"}],"edges":[{"from":"f","to":"s","map":{"item":"rec"}}]}`
	undeclaredComposition = `{"nodes":[{"id":"f","tool":"feed"},{"id":"n","tool":"noted_sink"}],"edges":[{"from":"f","to":"n","map":{"item":"rec"}}]}`
	optionalComposition   = `{"nodes":[{"id":"f","tool":"feed"},{"id":"a","tool":"any_sink"}],"edges":[{"from":"f","to":"a","optional":true,"map":{"item":"rec"}}]}`
)

func detailsOf(doc string) string { return `[{"type":"mcp_composition","composition":` + doc + `}]` }

// TestClientValidationMode: a client's validation mode decides, through
// the real HTTP API on both stores, whether a composition whose only
// issue is a proven may_be_missing or undeclared_property is issued
// (lenient, the default) or refused 403 with the issue, its verdict and
// its witness (strict), at the token endpoint, the backchannel endpoint,
// the console's approval (409), the CIBA redemption and the admin dry
// run; a bad mode is a 400 that changes nothing.
func TestClientValidationMode(t *testing.T) {
	for _, m := range []mode{embedded, database} {
		t.Run(string(m), func(t *testing.T) {
			t.Parallel()
			clientValidationMode(t, start(t, m, func(c *server.Config) {
				c.Registry = ""
				c.ConsoleUser, c.ConsolePassword = consoleUser, consolePassword
				c.CIBAInterval, c.CIBAMinExpiry = time.Second, time.Second
			}))
		})
	}
}

func clientValidationMode(t *testing.T, h *harness) {
	admin := h.adminToken()
	for name, tool := range validationTools {
		if r := h.admin(http.MethodPut, "/admin/v1/tools/"+name, admin, []byte(tool)); r.status >= 300 {
			t.Fatalf("register %s: %d %s", name, r.status, r.body)
		}
	}
	meta := func(extra ...string) map[string]any {
		m := map[string]any{"client_name": "etl", "allowed_tools": []string{"*"}, "allowed_audiences": []string{routerAud}}
		for i := 0; i < len(extra); i += 2 {
			m[extra[i]] = extra[i+1]
		}
		return m
	}
	type shownClient struct {
		Approval   string `json:"approval"`
		Validation string `json:"validation"`
	}
	show := func(id string) shownClient {
		t.Helper()
		var c shownClient
		h.admin(http.MethodGet, "/admin/v1/clients/"+id, admin, nil).json(t, &c)
		return c
	}
	countClients := func() int {
		t.Helper()
		var list struct {
			Clients []shownClient `json:"clients"`
		}
		h.admin(http.MethodGet, "/admin/v1/clients", admin, nil).json(t, &list)
		return len(list.Clients)
	}

	// Creation: lenient by default, strict when asked, a bad mode refused
	// with the member named and no client made.
	lenient := h.createClient(admin, meta())
	strict := h.createClient(admin, meta("validation", "strict"))
	if c := show(lenient.ID); c.Validation != "lenient" {
		t.Errorf("default validation %q, want lenient", c.Validation)
	}
	if c := show(strict.ID); c.Validation != "strict" {
		t.Errorf("validation %q, want strict", c.Validation)
	}
	before := countClients()
	for _, bad := range []string{"paranoid", "Strict", ""} {
		r := h.admin(http.MethodPost, "/admin/v1/clients", admin, meta("validation", bad))
		if bad == "" { // the empty string is the default, as for approval
			if r.status != http.StatusCreated {
				t.Errorf("validation \"\": %d %s", r.status, r.body)
			}
			before++
			continue
		}
		if r.status != http.StatusBadRequest || !strings.Contains(string(r.body), `"field":"/validation","message":"must be one of lenient, strict"`) {
			t.Errorf("validation %q: %d %s", bad, r.status, r.body)
		}
	}
	if n := countClients(); n != before {
		t.Errorf("refused registrations made clients: %d, want %d", n, before)
	}

	token := func(c registered, doc string) response {
		t.Helper()
		return h.postForm("/oauth2/token", c.ID, c.Secret, url.Values{"grant_type": {"client_credentials"},
			"resource": {routerAud}, "authorization_details": {detailsOf(doc)}})
	}
	issuedWith := func(c registered, doc, code string) {
		t.Helper()
		r := token(c, doc)
		var tok tokenAnswer
		r.json(t, &tok)
		if r.status != http.StatusOK || len(tok.Warnings) != 1 || tok.Warnings[0].Code != code ||
			tok.Warnings[0].Severity != verdict.SeverityWarning || tok.Warnings[0].Verdict != verdict.Incompatible {
			t.Errorf("lenient %s: %d %s, want a token with one %s warning", code, r.status, r.body, code)
		}
	}
	refusedWith := func(what string, r response, code string) {
		t.Helper()
		var e errorAnswer
		r.json(t, &e)
		if r.status != http.StatusForbidden || e.Error != "invalid_authorization_details" || len(e.Issues) != 1 ||
			e.Description != "the composition was refused under strict validation: 1 error; see issues" {
			t.Fatalf("%s %s: %d %s, want 403 with one issue", what, code, r.status, r.body)
		}
		is := e.Issues[0]
		if is.Code != code || is.Severity != verdict.SeverityError || is.Verdict != verdict.Incompatible ||
			len(is.Witness) == 0 || is.WitnessError == nil || is.WitnessError.KeywordLocation == "" {
			t.Errorf("%s %s: issue %+v, want an incompatible error with its witness", what, code, is)
		}
		if code == verdict.CodeMayBeMissing && (is.WitnessError == nil || !strings.HasSuffix(is.WitnessError.KeywordLocation, "/required")) {
			t.Errorf("%s %s: witness_error %+v, want the validator's required", what, code, is.WitnessError)
		}
	}
	for _, tc := range []struct{ doc, code string }{
		{missingComposition, verdict.CodeMayBeMissing},
		{undeclaredComposition, verdict.CodeUndeclaredProperty},
		{optionalComposition, verdict.CodeMayBeMissing},
	} {
		issuedWith(lenient, tc.doc, tc.code)
		refusedWith("strict token", token(strict, tc.doc), tc.code)
		issuedWith(lenient, tc.doc, tc.code) // the cached lenient validation was not regraded in place
	}

	// PATCH: a bad mode changes nothing (not even a good approval beside
	// it); a good one applies to the very next request.
	for _, bad := range []map[string]any{{"validation": "paranoid"}, {"validation": ""}, {"validation": nil},
		{"approval": "always", "validation": "strict!"}} {
		r := h.admin(http.MethodPatch, "/admin/v1/clients/"+lenient.ID, admin, bad)
		if r.status != http.StatusBadRequest {
			t.Errorf("patch %v: %d %s", bad, r.status, r.body)
		}
	}
	if c := show(lenient.ID); c.Validation != "lenient" || c.Approval != "never" {
		t.Errorf("refused patches changed the client: %+v", c)
	}
	issuedWith(lenient, missingComposition, verdict.CodeMayBeMissing)
	r := h.admin(http.MethodPatch, "/admin/v1/clients/"+lenient.ID, admin, map[string]any{"validation": "strict"})
	var patched shownClient
	r.json(t, &patched)
	if r.status != http.StatusOK || patched.Validation != "strict" || patched.Approval != "never" {
		t.Fatalf("patch to strict: %d %s", r.status, r.body)
	}
	refusedWith("token after the patch to strict", token(lenient, missingComposition), verdict.CodeMayBeMissing)
	if r := h.admin(http.MethodPatch, "/admin/v1/clients/"+lenient.ID, admin, map[string]any{"validation": "lenient"}); r.status != http.StatusOK {
		t.Fatalf("patch back to lenient: %d %s", r.status, r.body)
	}
	issuedWith(lenient, missingComposition, verdict.CodeMayBeMissing)

	// The admin dry run grades under the query's mode, lenient by default.
	dry := func(query string) (response, struct {
		Valid      bool            `json:"valid"`
		Validation string          `json:"validation"`
		Issues     []verdict.Issue `json:"issues"`
	}) {
		t.Helper()
		r := h.admin(http.MethodPost, "/admin/v1/compositions:validate"+query, admin, []byte(missingComposition))
		var v struct {
			Valid      bool            `json:"valid"`
			Validation string          `json:"validation"`
			Issues     []verdict.Issue `json:"issues"`
		}
		if r.status == http.StatusOK {
			r.json(t, &v)
		}
		return r, v
	}
	for _, tc := range []struct {
		query, mode string
		valid       bool
		severity    verdict.Severity
	}{{"", "lenient", true, verdict.SeverityWarning}, {"?validation=lenient", "lenient", true, verdict.SeverityWarning},
		{"?validation=strict", "strict", false, verdict.SeverityError}} {
		r, v := dry(tc.query)
		if r.status != http.StatusOK || v.Valid != tc.valid || v.Validation != tc.mode || len(v.Issues) != 1 ||
			v.Issues[0].Severity != tc.severity || v.Issues[0].Verdict != verdict.Incompatible || len(v.Issues[0].Witness) == 0 {
			t.Errorf("dry run%s: %d %s", tc.query, r.status, r.body)
		}
	}
	for query, want := range map[string]string{"?validation=paranoid": `validation \"paranoid\" is not one of lenient, strict`,
		"?validation=strict&validation=lenient": "validation may be given once"} {
		if r, _ := dry(query); r.status != http.StatusBadRequest || !strings.Contains(string(r.body), want) {
			t.Errorf("dry run%s: %d %s, want 400 saying %s", query, r.status, r.body, want)
		}
	}

	// The backchannel endpoint judges the request as the token endpoint
	// does, and the redemption judges it again under the mode the client
	// has then.
	ask := func(c registered) response {
		t.Helper()
		return h.postForm("/oauth2/bc-authorize", c.ID, c.Secret, url.Values{"resource": {routerAud},
			"authorization_details": {detailsOf(missingComposition)}})
	}
	refusedWith("strict bc-authorize", ask(strict), verdict.CodeMayBeMissing)
	r = ask(lenient)
	var asked bcAnswer
	r.json(t, &asked)
	if r.status != http.StatusOK || asked.AuthReqID == "" {
		t.Fatalf("lenient bc-authorize: %d %s", r.status, r.body)
	}
	setMode := func(m string) {
		t.Helper()
		if r := h.admin(http.MethodPatch, "/admin/v1/clients/"+lenient.ID, admin, map[string]any{"validation": m}); r.status != http.StatusOK {
			t.Fatalf("patch to %s: %d %s", m, r.status, r.body)
		}
	}
	b := newBrowser(h)
	if r := b.signIn(t, consolePassword); r.status != http.StatusSeeOther {
		t.Fatalf("sign-in: %d %s", r.status, r.body)
	}
	approve := func() response {
		t.Helper()
		page := b.send(http.MethodGet, "/console/approvals", nil)
		return b.send(http.MethodPost, "/console/approvals/"+asked.AuthReqID, url.Values{"decision": {"approve"}, "csrf": {csrfOf(t, page)}})
	}
	// The approval re-validates at the click, under the client's mode then.
	setMode("strict")
	if r := approve(); r.status != http.StatusConflict || !strings.Contains(string(r.body), "under strict validation") {
		t.Fatalf("approve while the client is strict: %d %s, want 409 saying why", r.status, r.body)
	}
	setMode("lenient")
	if r := approve(); r.status != http.StatusSeeOther {
		t.Fatalf("approve: %d %s", r.status, r.body)
	}
	setMode("strict")
	redeem := func() response {
		t.Helper()
		return h.postForm("/oauth2/token", lenient.ID, lenient.Secret, url.Values{"grant_type": {"urn:openid:params:grant-type:ciba"},
			"auth_req_id": {asked.AuthReqID}})
	}
	refusedWith("redemption after the patch to strict", redeem(), verdict.CodeMayBeMissing)
	setMode("lenient")
	r = redeem()
	var tok tokenAnswer
	r.json(t, &tok)
	if r.status != http.StatusOK || tok.AccessToken == "" || len(tok.Warnings) != 1 || tok.Warnings[0].Code != verdict.CodeMayBeMissing {
		t.Errorf("redemption back under lenient: %d %s", r.status, r.body)
	}
}
