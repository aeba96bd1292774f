package httpapi

import (
	"net/netip"
	"strings"
	"testing"
)

func TestRemoteAddress(t *testing.T) {
	trusted := []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8"), netip.MustParsePrefix("2001:db8::/32")}
	for _, tc := range []struct {
		name, peer string
		forwarded  []string
		trusted    []netip.Prefix
		want       string
	}{
		{"no trusted proxies: the peer", "10.1.2.3:5000", []string{"192.0.2.1"}, nil, "10.1.2.3:5000"},
		{"untrusted peer: its header is ignored", "192.0.2.9:5000", []string{"198.51.100.1"}, trusted, "192.0.2.9:5000"},
		{"trusted peer, one entry", "10.1.2.3:5000", []string{"192.0.2.1"}, trusted, "192.0.2.1"},
		{"trusted peer, no header", "10.1.2.3:5000", nil, trusted, "10.1.2.3:5000"},
		{"right-most untrusted wins over a spoofed left", "10.1.2.3:5000", []string{"6.6.6.6, 192.0.2.1, 10.9.9.9"}, trusted, "192.0.2.1"},
		{"several header lines read as one list", "10.1.2.3:5000", []string{"6.6.6.6", "192.0.2.1, 10.9.9.9"}, trusted, "192.0.2.1"},
		{"only proxies: the left-most", "10.1.2.3:5000", []string{"10.0.0.1, 10.0.0.2"}, trusted, "10.0.0.1"},
		{"garbage ends the walk at the last address", "10.1.2.3:5000", []string{"192.0.2.1, not-an-ip, 10.0.0.2"}, trusted, "10.0.0.2"},
		{"garbage at once: the peer", "10.1.2.3:5000", []string{"<script>"}, trusted, "10.1.2.3:5000"},
		{"entries with ports", "10.1.2.3:5000", []string{"[2001:db9::1]:443, 10.0.0.2:80"}, trusted, "2001:db9::1"},
		{"IPv6 peer and proxy", "[2001:db8::5]:5000", []string{"192.0.2.1, 2001:db8::7"}, trusted, "192.0.2.1"},
		{"mapped IPv4 is IPv4", "[::ffff:10.1.2.3]:5000", []string{"::ffff:192.0.2.1"}, trusted, "192.0.2.1"},
	} {
		if got := remoteAddress(tc.peer, tc.forwarded, tc.trusted); got != tc.want {
			t.Errorf("%s: remoteAddress(%q, %q) = %q, want %q", tc.name, tc.peer, tc.forwarded, got, tc.want)
		}
	}
	// The walk is bounded: a client cannot make it read a megabyte.
	long := []string{"192.0.2.1," + strings.Repeat("10.0.0.1,", 10_000) + "10.0.0.2"}
	if got := remoteAddress("10.1.2.3:1", long, trusted); got != "10.0.0.1" {
		t.Errorf("a long list: %q, want the last address read within the bound", got)
	}
}
