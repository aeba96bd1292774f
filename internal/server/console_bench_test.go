package server_test

import (
	"fmt"
	"net/http"
	"net/url"
	"testing"
)

// BenchmarkConsolePages is the console's figure: the time to serve the
// Approvals page with N pending requests (each composition validated and
// drawn) and the Activity page with its charts and the latest refusals
// with their witnesses, over real HTTP on 127.0.0.1, signed in; and each
// page's weight, the bytes a browser loads for it (HTML, the stylesheet
// and the icon: the console has no script).
func BenchmarkConsolePages(b *testing.B) {
	h := cibaHarness(b, embedded)
	admin := h.adminToken()
	br := newBrowser(h)
	if r := br.signIn(b, consolePassword); r.status != http.StatusSeeOther {
		b.Fatalf("sign in: %d", r.status)
	}
	assets := 0
	for _, path := range []string{"/console/static/console.css", "/console/static/favicon.svg"} {
		r := br.send(http.MethodGet, path, nil)
		if r.status != http.StatusOK {
			b.Fatalf("%s: %d", path, r.status)
		}
		assets += len(r.body)
	}
	serve := func(b *testing.B, path string) {
		var size int
		for b.Loop() {
			r := br.send(http.MethodGet, path, nil)
			if r.status != http.StatusOK {
				b.Fatalf("%s: %d", path, r.status)
			}
			size = len(r.body)
		}
		b.ReportMetric(float64(size), "html-bytes")
		b.ReportMetric(float64(size+assets), "page-bytes")
	}

	valid := compositionDetails(b, "../../examples/pipeline-valid.json")
	var askers []registered
	pending := 0
	for _, n := range []int{1, 10, 50} {
		for ; pending < n; pending++ {
			if pending%20 == 0 { // a client has at most 20 pending requests
				askers = append(askers, h.createClient(admin, map[string]any{"client_name": fmt.Sprint("asker ", len(askers)),
					"allowed_tools": []string{"*"}, "allowed_audiences": []string{routerAud}, "approval": "mutating"}))
			}
			c := askers[len(askers)-1]
			r := h.postForm("/oauth2/bc-authorize", c.ID, c.Secret, url.Values{"authorization_details": {valid},
				"binding_message": {fmt.Sprint("request ", pending)}})
			if r.status != http.StatusOK {
				b.Fatalf("bc-authorize: %d %s", r.status, r.body)
			}
		}
		b.Run(fmt.Sprintf("approvals/pending=%d", n), func(b *testing.B) { serve(b, "/console/approvals") })
	}

	c := h.createClient(admin, map[string]any{"client_name": "refused", "allowed_tools": []string{"*"}, "allowed_audiences": []string{routerAud}})
	invalid := url.Values{"grant_type": {"client_credentials"}, "resource": {routerAud},
		"authorization_details": {compositionDetails(b, "../../examples/pipeline-invalid.json")}}
	for range 20 { // the page lists the latest 20
		if r := h.postForm("/oauth2/token", c.ID, c.Secret, invalid); r.status != http.StatusForbidden {
			b.Fatalf("invalid pipeline: %d %s", r.status, r.body)
		}
	}
	b.Run("activity/refusals=20", func(b *testing.B) { serve(b, "/console/activity") })
}
