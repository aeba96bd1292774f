package server_test

import (
	"fmt"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"testing"

	"github.com/typeward/typeward/internal/server"
	"github.com/typeward/typeward/internal/users"
)

// TestSignInDelayDoesNotTellWhichNamesExist: guesses spread over 10
// addresses (5 each, under the per-address limits) at the approver's
// name and at a name nobody has; then each name from an eleventh address.
// Both answers must be alike. The per-user delay applied only to names
// that exist, so the approver's name got 429 and the unknown one 401:
// eleven addresses enumerated the console's users.
func TestSignInDelayDoesNotTellWhichNamesExist(t *testing.T) {
	h := start(t, embedded, func(c *server.Config) {
		c.ConsoleUser, c.ConsolePassword = consoleUser, consolePassword
		c.TrustedProxies = []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")}
	})
	b := newBrowser(h)
	csrf := csrfOf(t, b.send(http.MethodGet, "/console/signin", nil))
	signIn := func(name, from string) int {
		t.Helper()
		form := url.Values{"csrf": {csrf}, "username": {name}, "password": {"not the password"}}
		req, _ := http.NewRequest(http.MethodPost, h.base+"/console/signin", strings.NewReader(form.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.Header.Set("X-Forwarded-For", from)
		resp, err := b.client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	for a := range 10 { // both names alike, so that the delays start together
		for range users.PairFree {
			for _, name := range []string{consoleUser, "nobody"} {
				if code := signIn(name, fmt.Sprintf("203.0.113.%d", a+1)); code != http.StatusUnauthorized {
					t.Fatalf("%s from address %d: %d, want 401", name, a, code)
				}
			}
		}
	}
	known, unknown := signIn(consoleUser, "198.51.100.1"), signIn("nobody", "198.51.100.2")
	if known != unknown || known != http.StatusTooManyRequests {
		t.Errorf("after 50 spread failures: %s answered %d, a name nobody has %d; want both 429", consoleUser, known, unknown)
	}
}
