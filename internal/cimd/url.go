package cimd

import (
	"errors"
	"net/url"
	"strings"
)

// MaxURLLen bounds a client ID URL: longer ids cannot be clients
// (clients.MaxClientIDLen).
const MaxURLLen = 256

// IsClientID reports whether id has the shape of a client ID metadata
// document URL, an https URL with a path: such an id is resolved by
// fetching the document, never looked up in the store (where ids are
// random tokens).
func IsClientID(id string) bool {
	return strings.HasPrefix(id, "https://") && strings.Contains(id[len("https://"):], "/")
}

// parseClientID checks id against the rules of the client ID metadata
// document draft (§3): https, a host, a path, no dot segments, no
// fragment, no user information.
func parseClientID(id string) (*url.URL, error) {
	if len(id) > MaxURLLen {
		return nil, errors.New("is longer than 256 characters")
	}
	u, err := url.Parse(id)
	switch {
	case err != nil:
		return nil, errors.New("is not a URL")
	case u.Scheme != "https":
		return nil, errors.New("is not an https URL")
	case u.Host == "" || u.Hostname() == "":
		return nil, errors.New("has no host")
	case u.User != nil:
		return nil, errors.New("carries user information")
	case u.Fragment != "" || strings.Contains(id, "#"):
		return nil, errors.New("has a fragment")
	case u.Path == "" || u.Path == "/":
		return nil, errors.New("has no path")
	case u.String() != id:
		// Two spellings of one URL would be two clients for one document.
		return nil, errors.New("is not in its normal form (" + u.String() + ")")
	}
	for _, seg := range strings.Split(u.EscapedPath(), "/") {
		if seg == "." || seg == ".." || strings.EqualFold(seg, "%2e") || strings.EqualFold(seg, "%2e%2e") {
			return nil, errors.New("has a dot segment in its path")
		}
	}
	return u, nil
}

// trusted reports whether host is one of domains or under one of them
// (an empty list trusts every host).
func trusted(host string, domains []string) bool {
	if len(domains) == 0 {
		return true
	}
	host = strings.ToLower(strings.TrimSuffix(host, "."))
	for _, d := range domains {
		if host == d || strings.HasSuffix(host, "."+d) {
			return true
		}
	}
	return false
}
