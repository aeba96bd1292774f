package cimd

import (
	"fmt"
	"net/netip"
)

// blocked are ranges no metadata document may come from besides those
// netip classifies (private, loopback, link-local, multicast,
// unspecified): "this network", carrier-grade NAT, IETF protocol
// assignments, benchmarking, reserved and broadcast, NAT64 (which reaches
// any IPv4 address, private ones included) and the IPv4-compatible range.
var blocked = []netip.Prefix{
	netip.MustParsePrefix("0.0.0.0/8"),
	netip.MustParsePrefix("100.64.0.0/10"),
	netip.MustParsePrefix("192.0.0.0/24"),
	netip.MustParsePrefix("198.18.0.0/15"),
	netip.MustParsePrefix("240.0.0.0/4"),
	netip.MustParsePrefix("64:ff9b::/96"),
	netip.MustParsePrefix("64:ff9b:1::/48"),
	netip.MustParsePrefix("::/96"),
}

// checkAddress refuses an address a document fetch must not reach: the
// fetch runs inside the server's network, so anything but a public
// unicast address could reach a service the client has no access to.
// allowLoopback lets loopback through, for tests only.
func checkAddress(a netip.Addr, allowLoopback bool) error {
	a = a.Unmap()
	switch {
	case a.IsLoopback():
		if allowLoopback {
			return nil
		}
		return fmt.Errorf("%s is a loopback address", a)
	case a.IsPrivate():
		return fmt.Errorf("%s is a private address", a)
	case a.IsLinkLocalUnicast():
		return fmt.Errorf("%s is a link-local address", a)
	case a.IsMulticast(), a.IsLinkLocalMulticast(), a.IsInterfaceLocalMulticast():
		return fmt.Errorf("%s is a multicast address", a)
	case a.IsUnspecified():
		return fmt.Errorf("%s is the unspecified address", a)
	case !a.IsGlobalUnicast():
		return fmt.Errorf("%s is not a public unicast address", a)
	}
	for _, p := range blocked {
		if p.Contains(a) {
			return fmt.Errorf("%s is in the reserved range %s", a, p)
		}
	}
	return nil
}
