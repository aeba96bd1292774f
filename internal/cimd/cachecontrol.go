package cimd

import (
	"net/http"
	"strconv"
	"strings"
	"time"
)

// ttlOf is how long a document is trusted: its Cache-Control max-age
// clamped to [MinTTL, MaxTTL]. no-store, no-cache and a missing or bad
// max-age all mean MinTTL: typeward cannot fetch on every request.
func ttlOf(h http.Header) time.Duration {
	ttl := MinTTL
	for _, d := range strings.Split(strings.Join(h.Values("Cache-Control"), ","), ",") {
		name, value, _ := strings.Cut(strings.TrimSpace(d), "=")
		switch strings.ToLower(name) {
		case "no-store", "no-cache":
			return MinTTL
		case "max-age":
			if s, err := strconv.ParseInt(strings.Trim(value, `"`), 10, 64); err == nil && s >= 0 {
				ttl = time.Duration(min(s, int64(MaxTTL/time.Second))) * time.Second
			}
		}
	}
	return min(max(ttl, MinTTL), MaxTTL)
}
