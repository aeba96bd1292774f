package httpapi

import "strings"

// etagMatches implements If-None-Match's weak comparison (RFC 9110
// §13.1.2) against one strong ETag.
func etagMatches(header, etag string) bool {
	if header == "" {
		return false
	}
	for _, candidate := range strings.Split(header, ",") {
		candidate = strings.TrimSpace(candidate)
		if candidate == "*" || strings.TrimPrefix(candidate, "W/") == etag {
			return true
		}
	}
	return false
}
