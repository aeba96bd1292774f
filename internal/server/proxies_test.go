package server_test

import (
	"net/http"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"testing"

	"github.com/typeward/typeward/internal/server"
)

// TestFailureLimitByForwardedAddress: behind a trusted proxy the failure
// limiter counts the address X-Forwarded-For names (its right-most
// untrusted entry, whatever a client puts left of it), and the request log
// shows it; without --trusted-proxies the header is ignored and the TCP
// peer is the address.
func TestFailureLimitByForwardedAddress(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		trusted []netip.Prefix
		// wantOther is the answer to a correct request forwarded for
		// another address once the first address is spent.
		wantOther int
	}{
		{"trusted proxy", []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8")}, http.StatusOK},
		{"no trusted proxy", nil, http.StatusTooManyRequests},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			h := start(t, embedded, func(c *server.Config) {
				c.Registry = "../../examples/registry.json"
				c.AddressFailures = server.FailureLimit{Rate: 0.001, Burst: 3}
				c.TrustedProxies = tc.trusted
			})
			demo := h.srv.Demo
			form := url.Values{"grant_type": {"client_credentials"}, "authorization_details": {compositionDetails(t, "../../examples/pipeline-readonly.json")}}
			send := func(forwardedFor, id, secret string) response {
				req, _ := http.NewRequest(http.MethodPost, h.base+"/oauth2/token", strings.NewReader(form.Encode()))
				req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
				req.Header.Set("X-Forwarded-For", forwardedFor)
				req.SetBasicAuth(id, secret)
				return h.do(req)
			}
			// Each failure claims another client id: only the address's
			// bucket is spent.
			for i := range 3 {
				if r := send("203.0.113.7", "nobody-"+strconv.Itoa(i), "wrong"); r.status != http.StatusUnauthorized {
					t.Fatalf("failure %d: %d %s", i, r.status, r.body)
				}
			}
			if r := send("203.0.113.7", demo.ID, demo.Secret); r.status != http.StatusTooManyRequests || r.header.Get("Retry-After") == "" {
				t.Errorf("the spent address with a correct secret: %d %v, want 429 with Retry-After", r.status, r.header)
			}
			if r := send("203.0.113.8", demo.ID, demo.Secret); r.status != tc.wantOther {
				t.Errorf("another forwarded address: %d %s, want %d", r.status, r.body, tc.wantOther)
			}
			if tc.trusted == nil {
				if strings.Contains(h.logs.String(), `"remote":"203.0.113.`) {
					t.Error("the request log believed X-Forwarded-For from an untrusted peer")
				}
				return
			}
			// What a client writes left of the proxy's entry is not believed.
			if r := send("198.51.100.1, 203.0.113.7", demo.ID, demo.Secret); r.status != http.StatusTooManyRequests {
				t.Errorf("a spoofed left-most entry escaped the limit: %d", r.status)
			}
			if !strings.Contains(h.logs.String(), `"remote":"203.0.113.7"`) {
				t.Error("the request log does not show the forwarded address")
			}
		})
	}
}

// TestFailureLimitCoversEveryOAuthEndpoint: failed client authentications
// spend the address's failure bucket at each endpoint that authenticates a
// client, so that no endpoint is a way round the limit: once an address has
// failed there, even a correct token request from it is refused.
func TestFailureLimitCoversEveryOAuthEndpoint(t *testing.T) {
	t.Parallel()
	h := start(t, embedded, func(c *server.Config) {
		c.Registry = "../../examples/registry.json"
		c.AddressFailures = server.FailureLimit{Rate: 0.001, Burst: 3}
		c.TrustedProxies = []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8")}
	})
	demo := h.srv.Demo
	send := func(path, forwardedFor, id, secret string, form url.Values) response {
		req, _ := http.NewRequest(http.MethodPost, h.base+path, strings.NewReader(form.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.Header.Set("X-Forwarded-For", forwardedFor)
		req.SetBasicAuth(id, secret)
		return h.do(req)
	}
	tokenForm := url.Values{"grant_type": {"client_credentials"}, "authorization_details": {compositionDetails(t, "../../examples/pipeline-readonly.json")}}
	for i, path := range []string{"/oauth2/token", "/oauth2/bc-authorize", "/oauth2/introspect", "/oauth2/revoke"} {
		addr := "203.0.113." + strconv.Itoa(10+i)
		form := url.Values{"token": {"x"}, "scope": {"openid"}}
		if path == "/oauth2/token" {
			form = tokenForm
		}
		for j := range 3 {
			if r := send(path, addr, "nobody-"+strconv.Itoa(j), "wrong", form); r.status != http.StatusUnauthorized {
				t.Fatalf("%s failure %d: %d %s", path, j, r.status, r.body)
			}
		}
		if r := send("/oauth2/token", addr, demo.ID, demo.Secret, tokenForm); r.status != http.StatusTooManyRequests {
			t.Errorf("after 3 failures at %s, a correct token request from the address: %d, want 429", path, r.status)
		}
	}
}
