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
				return h.postForwarded("/oauth2/token", forwardedFor, id, secret, form)
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
	tokenForm := url.Values{"grant_type": {"client_credentials"}, "authorization_details": {compositionDetails(t, "../../examples/pipeline-readonly.json")}}
	for i, path := range []string{"/oauth2/token", "/oauth2/bc-authorize", "/oauth2/introspect", "/oauth2/revoke"} {
		addr := "203.0.113." + strconv.Itoa(10+i)
		form := url.Values{"token": {"x"}, "scope": {"openid"}}
		if path == "/oauth2/token" {
			form = tokenForm
		}
		for j := range 3 {
			if r := h.postForwarded(path, addr, "nobody-"+strconv.Itoa(j), "wrong", form); r.status != http.StatusUnauthorized {
				t.Fatalf("%s failure %d: %d %s", path, j, r.status, r.body)
			}
		}
		if r := h.postForwarded("/oauth2/token", addr, demo.ID, demo.Secret, tokenForm); r.status != http.StatusTooManyRequests {
			t.Errorf("after 3 failures at %s, a correct token request from the address: %d, want 429", path, r.status)
		}
	}
}

// TestFailureLimitByIPv6Prefix: an IPv6 host is handed a whole /64 and may
// send from any address in it, so the failure limiter counts a /64 as one
// address (an IPv4 address is counted alone, and an IPv4-mapped IPv6
// address as the IPv4 address it maps): spending one address of a /64
// spends them all, and a neighbouring /64 or IPv4 address is untouched.
func TestFailureLimitByIPv6Prefix(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		// spend are the forwarded addresses of the failures, in turn.
		spend []string
		// then is another address's correct token request, and want its answer.
		then string
		want int
	}{
		{"one /64, rotated low bits", []string{"2001:db8:1:2::1", "2001:db8:1:2::2", "2001:db8:1:2:ffff:ffff:ffff:ffff"}, "2001:db8:1:2:abcd::9", http.StatusTooManyRequests},
		{"one /64, written with a port", []string{"[2001:db8:1:2::1]:443", "[2001:db8:1:2::2]:443", "2001:db8:1:2::3"}, "2001:db8:1:2::4", http.StatusTooManyRequests},
		{"the neighbouring /64", []string{"2001:db8:1:2::1", "2001:db8:1:2::2", "2001:db8:1:2::3"}, "2001:db8:1:3::1", http.StatusOK},
		{"IPv4 addresses alone", []string{"192.0.2.1", "192.0.2.1", "192.0.2.1"}, "192.0.2.2", http.StatusOK},
		{"IPv4-mapped is the IPv4 address", []string{"::ffff:192.0.2.9", "192.0.2.9", "::ffff:192.0.2.9"}, "192.0.2.9", http.StatusTooManyRequests},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			h := start(t, embedded, func(c *server.Config) {
				c.Registry = "../../examples/registry.json"
				c.AddressFailures = server.FailureLimit{Rate: 0.001, Burst: len(tc.spend)}
				c.TrustedProxies = []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8")}
			})
			demo := h.srv.Demo
			form := url.Values{"grant_type": {"client_credentials"}, "authorization_details": {compositionDetails(t, "../../examples/pipeline-readonly.json")}}
			send := func(forwardedFor, id, secret string) response {
				return h.postForwarded("/oauth2/token", forwardedFor, id, secret, form)
			}
			for i, addr := range tc.spend { // each failure claims another client id
				if r := send(addr, "nobody-"+strconv.Itoa(i), "wrong"); r.status != http.StatusUnauthorized {
					t.Fatalf("failure %d from %s: %d %s", i, addr, r.status, r.body)
				}
			}
			if r := send(tc.then, demo.ID, demo.Secret); r.status != tc.want {
				t.Errorf("after %d failures from %v, a correct request from %s: %d %.200s, want %d", len(tc.spend), tc.spend, tc.then, r.status, r.body, tc.want)
			}
		})
	}
}

// postForwarded posts form to path with client credentials id and secret,
// as a proxy forwarding for forwardedFor (X-Forwarded-For).
func (h *harness) postForwarded(path, forwardedFor, id, secret string, form url.Values) response {
	req, _ := http.NewRequest(http.MethodPost, h.base+path, strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("X-Forwarded-For", forwardedFor)
	req.SetBasicAuth(id, secret)
	return h.do(req)
}
