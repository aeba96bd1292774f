package verify

// MinRefetchInterval is the least time between two fetches of unknown keys.
const MinRefetchInterval = minRefetchInterval

// WaitIdle waits for the verifier's JWKS fetch in flight, if any, so a
// test sees the cache a background refresh left.
func WaitIdle(v *Verifier) {
	j, ok := v.keys.(*jwks)
	if !ok {
		return
	}
	j.mu.Lock()
	f := j.inflight
	j.mu.Unlock()
	if f != nil {
		<-f.done
	}
}
