package clients

import (
	"fmt"
	"net"
	"net/netip"
	"net/url"
	"strings"
)

// Bounds of a client's redirect URIs.
const (
	maxRedirectURIs   = 20
	MaxRedirectURILen = 2048
)

// ValidateRedirectURI accepts what OAuth 2.1 §2.3.1 and RFC 8252 allow a
// redirect URI to be: an absolute https URI, or an http URI on a loopback
// host (127.0.0.1, [::1], localhost: a native app's port varies, RFC 8252
// §7.3); printable ASCII, its host a DNS name or an IP address; never a
// fragment (OAuth 2.1 §2.3), never user information (which makes a URI
// read as another host), at most 2048 bytes.
func ValidateRedirectURI(s string) error {
	if len(s) > MaxRedirectURILen {
		return fmt.Errorf("is longer than %d characters", MaxRedirectURILen)
	}
	if i := strings.IndexFunc(s, func(r rune) bool { return r <= ' ' || r >= 0x7f }); i >= 0 {
		// A URI is printable ASCII (RFC 3986 §2): anything else, a bidi
		// override above all, makes the consent page show another host.
		return fmt.Errorf("holds %q at byte %d: a URI is printable ASCII (percent-encode the rest)", []rune(s[i:])[0], i)
	}
	u, err := url.Parse(s)
	if err != nil || !u.IsAbs() || u.Host == "" || u.Opaque != "" {
		return fmt.Errorf("is not an absolute URI with a host")
	}
	if !hostName(u.Hostname()) {
		// The host is shown as where the answer goes and joins the consent
		// page's form-action: a ';' there would end the directive.
		return fmt.Errorf("has host %q, which is neither a DNS name nor an IP address", u.Hostname())
	}
	if strings.Contains(s, "#") {
		return fmt.Errorf("has a fragment, which a redirect URI may not have")
	}
	if u.User != nil {
		return fmt.Errorf("has user information")
	}
	switch {
	case u.Scheme == "https":
	case u.Scheme == "http" && IsLoopbackHost(u.Hostname()):
	case u.Scheme == "http":
		return fmt.Errorf("is http on a host that is not loopback: use https (http only for 127.0.0.1, [::1] or localhost)")
	default:
		return fmt.Errorf("has scheme %q: want https, or http on a loopback host", u.Scheme)
	}
	return nil
}

// hostName accepts a DNS name of letters, digits, '-' and '.' (IDNs in
// their A-label form), or an IP address without a zone.
func hostName(h string) bool {
	if h == "" {
		return false
	}
	if a, err := netip.ParseAddr(h); err == nil {
		return a.Zone() == "" // a zone is this machine's interface name
	}
	for _, r := range h {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '.') {
			return false
		}
	}
	return true
}

// IsLoopbackHost reports whether host (without port or brackets) is one
// of the loopback names of RFC 8252 §7.3.
func IsLoopbackHost(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback() && (ip.Equal(net.IPv4(127, 0, 0, 1)) || ip.Equal(net.IPv6loopback))
}

// MatchRedirectURI reports whether an authorization request's
// redirect_uri is one of the registered ones: byte for byte (OAuth 2.1
// §4.1.1), except that a registered loopback http URI matches on any port
// (RFC 8252 §7.3), everything else still exact.
func MatchRedirectURI(registered []string, got string) bool {
	for _, r := range registered {
		if r == got {
			return true
		}
	}
	g, err := url.Parse(got)
	// url.Parse lower-cases the scheme: "HTTP://" is not what was registered.
	if err != nil || !strings.HasPrefix(got, "http://") || !IsLoopbackHost(g.Hostname()) || strings.Contains(got, "#") || g.User != nil {
		return false
	}
	for _, r := range registered {
		u, err := url.Parse(r)
		if err != nil || u.Scheme != "http" || !IsLoopbackHost(u.Hostname()) {
			continue
		}
		if u.Hostname() == g.Hostname() && u.EscapedPath() == g.EscapedPath() && u.RawQuery == g.RawQuery &&
			u.ForceQuery == g.ForceQuery {
			return true
		}
	}
	return false
}

// AllLoopback reports whether every redirect URI is a loopback one: the
// consent page warns, since any program on the person's machine can
// listen there.
func AllLoopback(uris []string) bool {
	if len(uris) == 0 {
		return false
	}
	for _, s := range uris {
		u, err := url.Parse(s)
		if err != nil || !IsLoopbackHost(u.Hostname()) {
			return false
		}
	}
	return true
}
