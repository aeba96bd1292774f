package httpapi

import (
	"net"
	"net/http"
	"net/netip"
	"strings"
)

// maxForwardedEntries bounds the X-Forwarded-For walk: a client may send
// any number of entries in front of what the proxies append.
const maxForwardedEntries = 32

// remoteAddr sets every request's RemoteAddr to the address it came from,
// so that the failure limiter (oauth.WithRemoteAddr) and the request log
// use the same one.
func remoteAddr(trusted []netip.Prefix) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		if len(trusted) == 0 {
			return next // the TCP peer, as net/http set it
		}
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if addr := remoteAddress(r.RemoteAddr, r.Header.Values("X-Forwarded-For"), trusted); addr != r.RemoteAddr {
				r2 := *r
				r2.RemoteAddr = addr
				r = &r2
			}
			next.ServeHTTP(w, r)
		})
	}
}

// remoteAddress is the TCP peer (host:port) unless the peer is a trusted
// proxy: then X-Forwarded-For is read from the right (the entry the
// nearest proxy appended) and the first address not itself trusted is the
// remote one. Entries left of it are the client's to write and are never
// believed. A walk that finds only trusted addresses ends at the
// left-most; an entry that is not an address ends the walk at the last
// address read, so garbage never becomes a limiter key.
func remoteAddress(peer string, forwarded []string, trusted []netip.Prefix) string {
	host := peer
	if h, _, err := net.SplitHostPort(peer); err == nil {
		host = h
	}
	if a, err := netip.ParseAddr(host); err != nil || !isTrusted(a, trusted) {
		return peer
	}
	var entries []string
	for _, v := range forwarded {
		entries = append(entries, strings.Split(v, ",")...)
	}
	from := peer // until an entry is read
	for i, read := len(entries)-1, 0; i >= 0 && read < maxForwardedEntries; i, read = i-1, read+1 {
		addr, ok := parseForwarded(strings.TrimSpace(entries[i]))
		if !ok {
			break
		}
		from = addr.String()
		if !isTrusted(addr, trusted) {
			break
		}
	}
	return from
}

// parseForwarded reads one X-Forwarded-For entry: an address, or an
// address with a port ("[2001:db8::1]:443", "192.0.2.1:8080").
func parseForwarded(s string) (netip.Addr, bool) {
	if a, err := netip.ParseAddr(s); err == nil {
		return a.Unmap(), true
	}
	if ap, err := netip.ParseAddrPort(s); err == nil {
		return ap.Addr().Unmap(), true
	}
	return netip.Addr{}, false
}

func isTrusted(a netip.Addr, trusted []netip.Prefix) bool {
	a = a.Unmap()
	for _, p := range trusted {
		if p.Contains(a) {
			return true
		}
	}
	return false
}
