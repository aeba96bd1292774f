package clients_test

import (
	"strings"
	"testing"

	"github.com/typeward/typeward/internal/clients"
)

// Exact match, except a loopback http redirect's port (RFC 8252 §7.3).
func TestMatchRedirectURI(t *testing.T) {
	reg := []string{"https://host.example/cb?x=1", "http://127.0.0.1/callback", "http://[::1]:3000/cb", "http://localhost:9/l"}
	for _, tc := range []struct {
		uri  string
		want bool
	}{
		{"https://host.example/cb?x=1", true},
		{"https://host.example/cb?x=2", false},
		{"https://host.example/cb", false},
		{"https://host.example/cb?x=1#f", false},
		{"https://host.example:443/cb?x=1", false}, // byte for byte, not normalised
		{"https://HOST.example/cb?x=1", false},
		{"https://host.example:8443/cb?x=1", false}, // the port rule is loopback's only
		{"http://127.0.0.1/callback", true},
		{"http://127.0.0.1:53124/callback", true},
		{"http://127.0.0.1:53124/callback/", false},
		{"http://127.0.0.1:53124/other", false},
		{"http://127.0.0.1:53124/callback?x=1", false},
		{"http://127.0.0.1:53124/callback#f", false},
		{"http://user@127.0.0.1:53124/callback", false},
		{"https://127.0.0.1:53124/callback", false},
		{"http://localhost:53124/callback", false}, // another host name
		{"http://[::1]/cb", true},
		{"http://[::1]:1/cb", true},
		{"http://localhost:1234/l", true},
		{"http://127.0.0.1:notaport/callback", false},
		{"HTTP://127.0.0.1:53124/callback", false}, // byte for byte but the port
		{"", false},
	} {
		if got := clients.MatchRedirectURI(reg, tc.uri); got != tc.want {
			t.Errorf("MatchRedirectURI(%q) = %v, want %v", tc.uri, got, tc.want)
		}
	}
}

func TestAllLoopback(t *testing.T) {
	if !clients.AllLoopback([]string{"http://127.0.0.1/cb", "http://localhost:8/x"}) {
		t.Error("loopback redirects not seen as such")
	}
	if clients.AllLoopback([]string{"http://127.0.0.1/cb", "https://host.example/cb"}) || clients.AllLoopback(nil) {
		t.Error("a non-loopback redirect (or none) counted as all loopback")
	}
}

func TestAllowsGrant(t *testing.T) {
	machine := &clients.Client{TokenEndpointAuthMethod: clients.SecretBasic}
	host := &clients.Client{TokenEndpointAuthMethod: clients.None, GrantTypes: []string{clients.GrantAuthorizationCode, clients.GrantClientCredentials}}
	for _, tc := range []struct {
		c    *clients.Client
		g    string
		want bool
	}{
		{machine, clients.GrantClientCredentials, true},
		{machine, clients.GrantCIBA, true},
		{machine, clients.GrantAuthorizationCode, false},
		{host, clients.GrantAuthorizationCode, true},
		{host, clients.GrantClientCredentials, false}, // public, whatever was stored
	} {
		if got := tc.c.AllowsGrant(tc.g); got != tc.want {
			t.Errorf("%v AllowsGrant(%s) = %v", tc.c.GrantTypes, tc.g, got)
		}
	}
}

// FuzzMatchRedirectURI: no panic, and a match is either the registered
// URI itself or a loopback http one differing at most in its port.
func FuzzMatchRedirectURI(f *testing.F) {
	for _, s := range []string{"http://127.0.0.1:5/cb", "https://host.example/cb", "http://[::1]:9/x?y#z", "http://user@127.0.0.1/cb", "http://127.0.0.1:99999/cb"} {
		f.Add(s)
	}
	reg := []string{"http://127.0.0.1/cb", "https://host.example/cb", "http://[::1]/x?y"}
	f.Fuzz(func(t *testing.T, got string) {
		if !clients.MatchRedirectURI(reg, got) {
			return
		}
		if got == reg[1] {
			return
		}
		if !strings.HasPrefix(got, "http://127.0.0.1") && !strings.HasPrefix(got, "http://[::1]") {
			t.Fatalf("%q matched a registered URI", got)
		}
		if clients.ValidateRedirectURI(got) != nil && got != reg[0] {
			t.Fatalf("%q matched but is not a valid redirect URI: %v", got, clients.ValidateRedirectURI(got))
		}
	})
}
