package compat

import (
	"strconv"
	"testing"
)

// The regexp cache is bounded: a stream of novel patterns (each schema may
// bring its own) never grows it past its byte budget.
func TestRegexpCacheIsBounded(t *testing.T) {
	c := newRegexpCache()
	for i := range 50_000 {
		if c.get("^a"+strconv.Itoa(i)+"$") == nil {
			t.Fatalf("pattern %d did not compile", i)
		}
	}
	if st := c.c.Stats(); st.Bytes > regexpCacheBytes || st.Evictions == 0 {
		t.Fatalf("cache holds %d bytes (bound %d) after %d evictions", st.Bytes, regexpCacheBytes, st.Evictions)
	}
	if c.get("(") != nil {
		t.Fatal("an invalid pattern compiled")
	}
}
