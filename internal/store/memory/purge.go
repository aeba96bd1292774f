package memory

import "maps"

// purge deletes the entries of m that expired reports and counts them: the
// one loop behind every store's Purge, each with its own reading of expiry.
func purge[K comparable, V any](m map[K]V, expired func(V) bool) int64 {
	n := len(m)
	maps.DeleteFunc(m, func(_ K, v V) bool { return expired(v) })
	return int64(n - len(m))
}
