package server_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
)

// The Activity page lists the latest refusals with their issues: the
// path, message, witness and the validator's complaint the client was
// answered with, every value escaped (a claimed client id is anything).
func TestConsoleActivityShowsWitnesses(t *testing.T) {
	withExamples(t, func(t *testing.T, h *harness, admin string) {
		c := h.createClient(admin, map[string]any{"client_name": "activity <b>", "allowed_tools": []string{"*"},
			"allowed_audiences": []string{routerAud}})
		invalid := url.Values{"grant_type": {"client_credentials"}, "resource": {routerAud},
			"authorization_details": {compositionDetails(t, "../../examples/pipeline-invalid.json")}}
		if r := h.postForm("/oauth2/token", c.ID, c.Secret, invalid); r.status != http.StatusForbidden {
			t.Fatalf("invalid pipeline: %d %s", r.status, r.body)
		}
		if r := h.postForm("/oauth2/token", xssName, "nope", invalid); r.status != http.StatusUnauthorized {
			t.Fatalf("markup client id: %d %s", r.status, r.body)
		}
		b := newBrowser(h)
		if r := b.signIn(t, consolePassword); r.status != http.StatusSeeOther {
			t.Fatalf("sign in: %d", r.status)
		}
		r := b.send(http.MethodGet, "/console/activity", nil)
		body := string(r.body)
		if r.status != http.StatusOK {
			t.Fatalf("activity page: %d %s", r.status, body)
		}
		for _, want := range []string{
			`<code>rows-&gt;data</code>`,               // the path
			`<code class="witness">[{}]</code>`,        // its witness, as JSON text
			`<code>/properties/data/items/type</code>`, // where the target rejects it
			`<code>unbound_required_input</code>`,
			"&lt;img/src=x/onerror=alert(1)&gt; <small>(no such client)</small>", // the claimed client id, as text
			"activity &lt;b&gt; <small>(" + c.ID + ")</small>",                   // a client's name, as text
			"3 decisions since",                                                  // the admin token and the two refusals
		} {
			if !strings.Contains(body, want) {
				t.Errorf("the activity page lacks %s", want)
			}
		}
		if strings.Contains(body, "<img") {
			t.Error("markup from a request reached the page unescaped")
		}
	})
}
