// Package addrkey is what failure limits count a remote address under:
// the client authentication limit (internal/oauth) and the console's
// sign-in throttle (internal/users) share it, so that both treat an
// address, and an IPv6 host, alike.
package addrkey

import (
	"net"
	"net/netip"
)

// Of is the key of a remote address ("host:port" or a bare host): an
// IPv4 address alone (an IPv4-mapped IPv6 address as the IPv4 address it
// maps), an IPv6 address as its /64, since a host is handed a whole /64
// and may send from any address in it (privacy addresses): per address,
// one IPv6 host would have 2^64 fresh buckets. Anything that does not
// parse as an address is kept as it is.
func Of(addr string) string {
	if host, _, err := net.SplitHostPort(addr); err == nil {
		addr = host
	}
	a, err := netip.ParseAddr(addr)
	if err != nil {
		return addr
	}
	a = a.Unmap().WithZone("")
	if a.Is4() {
		return a.String()
	}
	return netip.PrefixFrom(a, 64).Masked().String()
}
