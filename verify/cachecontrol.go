package verify

import (
	"net/http"
	"strconv"
	"strings"
	"time"
)

// cacheMaxAge is how long a response may be kept: its Cache-Control
// max-age (0 for no-cache or no-store), def when absent, at most
// maxJWKSMaxAge.
func cacheMaxAge(h http.Header, def time.Duration) time.Duration {
	maxAge, found := def, false
	for _, line := range h.Values("Cache-Control") {
		for _, directive := range strings.Split(line, ",") {
			name, value, _ := strings.Cut(strings.TrimSpace(directive), "=")
			switch strings.ToLower(name) {
			case "no-store", "no-cache":
				return 0
			case "max-age":
				secs, err := strconv.ParseInt(strings.Trim(value, `"`), 10, 64)
				if err != nil || secs < 0 || found {
					continue // RFC 9111: an invalid max-age is ignored
				}
				maxAge, found = time.Duration(min(secs, int64(maxJWKSMaxAge/time.Second)))*time.Second, true
			}
		}
	}
	return min(maxAge, maxJWKSMaxAge)
}
