package dpop

import (
	"net/url"
	"strings"
)

// sameURL compares htu with the request's URL as RFC 9449 §4.3 asks:
// query and fragment ignored, after syntax- and scheme-based
// normalisation (RFC 3986 §6.2.2, §6.2.3): scheme and host compare without
// regard to case, a default port is the same as none, an empty path is
// "/". Anything but an absolute http(s) URL never matches.
func sameURL(htu, request string) bool {
	a, okA := normalURL(htu)
	b, okB := normalURL(request)
	return okA && okB && a == b
}

func normalURL(raw string) (string, bool) {
	u, err := url.Parse(raw)
	if err != nil || u.Opaque != "" || u.User != nil || u.Host == "" {
		return "", false
	}
	scheme := strings.ToLower(u.Scheme)
	if scheme != "https" && scheme != "http" {
		return "", false
	}
	host, port := strings.ToLower(u.Hostname()), u.Port()
	if (scheme == "https" && port == "443") || (scheme == "http" && port == "80") {
		port = ""
	}
	if strings.Contains(host, ":") {
		host = "[" + host + "]"
	}
	if port != "" {
		host += ":" + port
	}
	path := u.EscapedPath()
	if path == "" {
		path = "/"
	}
	return scheme + "://" + host + path, true
}

// withoutQuery is a URL for an error message, query and fragment cut.
func withoutQuery(raw string) string {
	raw, _, _ = strings.Cut(raw, "#")
	raw, _, _ = strings.Cut(raw, "?")
	return clip(raw)
}
