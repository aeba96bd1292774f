package addrkey

import "testing"

// TestOf: an IPv6 address counts as its /64, an IPv4 address (mapped or
// not) alone, with or without a port.
func TestOf(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"192.0.2.1", "192.0.2.1"},
		{"192.0.2.1:4000", "192.0.2.1"},
		{"::ffff:192.0.2.1", "192.0.2.1"},
		{"[::ffff:192.0.2.1]:443", "192.0.2.1"},
		{"2001:db8:1:2::1", "2001:db8:1:2::/64"},
		{"[2001:db8:1:2::1]:443", "2001:db8:1:2::/64"},
		{"2001:db8:1:2:ffff:ffff:ffff:ffff", "2001:db8:1:2::/64"},
		{"2001:db8:1:3::1", "2001:db8:1:3::/64"},
		{"fe80::1%eth0", "fe80::/64"},
		{"::1", "::/64"},
		{"not-an-address", "not-an-address"},
		{"", ""},
	} {
		if got := Of(tc.in); got != tc.want {
			t.Errorf("Of(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
