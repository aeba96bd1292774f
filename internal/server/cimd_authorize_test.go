package server_test

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/typeward/typeward/internal/cimd/cimdtest"
	"github.com/typeward/typeward/internal/server"
)

// documentServer is an https server for metadata documents under a CA
// made for the test: the handlers are the mux's.
func documentServer(t *testing.T) (*cimdtest.CA, *http.ServeMux, *httptest.Server) {
	ca := cimdtest.NewCA(t)
	mux := http.NewServeMux()
	return ca, mux, ca.Server(t, mux)
}

// TestBadMetadataDocumentsAtTheAuthorizationEndpoint: a client_id whose
// metadata document typeward will not use (it redirects, is huge, is not
// JSON, names another client_id, lists a redirect URI typeward never
// redirects to, or lives at a private address) gets the error page with
// the reason, and is redirected nowhere, not even to the redirect_uri it
// asked for; nothing is stored. Both stores.
func TestBadMetadataDocumentsAtTheAuthorizationEndpoint(t *testing.T) {
	for _, m := range []mode{embedded, database} {
		t.Run(string(m), func(t *testing.T) {
			t.Parallel()
			ca, mux, docs := documentServer(t)
			doc := func(path, clientID, redirect string) {
				mux.HandleFunc("GET "+path, func(w http.ResponseWriter, r *http.Request) {
					w.Header().Set("Content-Type", "application/json")
					_, _ = fmt.Fprintf(w, `{"client_id":%q,"client_name":"x","redirect_uris":[%q],"token_endpoint_auth_method":"none"}`, clientID, redirect)
				})
			}
			doc("/good.json", docs.URL+"/good.json", "http://127.0.0.1:9/cb")
			mux.HandleFunc("GET /redirect.json", func(w http.ResponseWriter, r *http.Request) {
				http.Redirect(w, r, "/good.json", http.StatusFound)
			})
			mux.HandleFunc("GET /huge.json", func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "application/json")
				_, _ = w.Write([]byte(`{"pad":"` + strings.Repeat("x", 70<<10) + `"}`))
			})
			mux.HandleFunc("GET /html.json", func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "application/json")
				_, _ = w.Write([]byte("<html></html>"))
			})
			doc("/other.json", "https://attacker.example/client.json", "http://127.0.0.1:9/cb")
			doc("/open.json", docs.URL+"/open.json", "http://evil.example/cb")

			h := start(t, m, func(c *server.Config) { c.CIMDRoots, c.CIMDAllowLoopback = ca.Pool(), true })
			before := h.admin(http.MethodGet, "/admin/v1/clients", h.adminToken(), nil)
			noRedirect := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
			for _, tc := range []struct{ name, id, redirect, reason string }{
				{"redirects", docs.URL + "/redirect.json", "http://127.0.0.1:9/cb", "a redirect, which is not followed"},
				{"huge", docs.URL + "/huge.json", "http://127.0.0.1:9/cb", "more than 65536 bytes"},
				{"not JSON", docs.URL + "/html.json", "http://127.0.0.1:9/cb", "is not one JSON object"},
				{"another client_id", docs.URL + "/other.json", "http://127.0.0.1:9/cb", "names client_id"},
				{"an open redirect", docs.URL + "/open.json", "http://evil.example/cb", "is not loopback"},
				{"a private address", "https://10.0.0.1/client.json", "http://127.0.0.1:9/cb", "private address"},
			} {
				q := url.Values{"response_type": {"code"}, "client_id": {tc.id}, "redirect_uri": {tc.redirect}, "state": {"s"},
					"code_challenge": {"E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"}, "code_challenge_method": {"S256"}}
				resp, err := noRedirect.Get(h.base + "/oauth2/authorize?" + q.Encode())
				if err != nil {
					t.Fatal(err)
				}
				var body strings.Builder
				_, _ = io.Copy(&body, resp.Body)
				resp.Body.Close()
				if resp.StatusCode < 400 || resp.Header.Get("Location") != "" || !strings.Contains(body.String(), tc.reason) {
					t.Errorf("%s: %d Location %q, body lacks %q:\n%.600s", tc.name, resp.StatusCode, resp.Header.Get("Location"), tc.reason, body.String())
				}
			}
			if after := h.admin(http.MethodGet, "/admin/v1/clients", h.adminToken(), nil); string(after.body) != string(before.body) {
				t.Errorf("a refused document stored a client:\n%s", after.body)
			}
		})
	}
}
