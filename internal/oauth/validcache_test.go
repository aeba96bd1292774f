package oauth

import (
	"context"
	"strings"
	"testing"
)

// TestValidationCache: an identical document is validated once until the
// registry changes; a document referencing a stored composition is
// validated every time.
func TestValidationCache(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	valid := exampleDoc(t, "pipeline-valid.json")
	request := func(doc string) {
		t.Helper()
		if _, err := f.svc.Token(ctx, form("grant_type", "client_credentials", "authorization_details", details(doc)), creds("app")); err != nil {
			t.Fatal(err)
		}
	}
	stored := `{"nodes":[{"id":"s","composition":"stored"}]}`
	byID := func() {
		t.Helper()
		if _, err := f.svc.Token(ctx, form("grant_type", "client_credentials", "authorization_details",
			`[{"type":"mcp_composition","composition_id":"stored"}]`), creds("app")); err != nil {
			t.Fatal(err)
		}
	}
	redefine := func() {
		t.Helper()
		if _, err := f.registry.PutComposition(ctx, "stored", []byte(strings.ReplaceAll(valid, `"q"`, `"query"`))); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		step      func()
		wantCalls int64
	}{
		{func() { request(valid) }, 1},
		{func() { request(valid) }, 1},                                  // cached
		{func() { request(strings.Replace(valid, "\n", " \n", 1)) }, 2}, // other bytes
		{func() { f.svc.RegistryChanged(); request(valid) }, 3},         // forgotten
		{func() { request(valid) }, 3},
		{func() { request(stored) }, 4},
		{func() { request(stored) }, 5}, // never cached
		{byID, 6},
		{byID, 6},                          // cached by its definition
		{func() { redefine(); byID() }, 7}, // a new definition
		{func() { f.svc.RegistryChanged(); byID() }, 8},
	}
	for i, tt := range tests {
		tt.step()
		if got := f.validator.calls.Load(); got != tt.wantCalls {
			t.Fatalf("step %d: %d validations, want %d", i, got, tt.wantCalls)
		}
	}
}

// TestValidationCacheDropsRacingResult: a validation that started before
// a registry change is not cached after it.
func TestValidationCacheDropsRacingResult(t *testing.T) {
	var c validationCache
	doc := `{}`
	_, gen := c.get(doc)
	c.clear() // a change lands while validating
	c.put(doc, nil, gen)
	if r, _ := c.get(doc); r != nil || len(c.entries) != 0 {
		t.Errorf("a result computed before the change was kept")
	}
}

// TestValidationCacheIsBounded: the keys held never exceed the byte bound.
func TestValidationCacheIsBounded(t *testing.T) {
	var c validationCache
	big := strings.Repeat("x", maxCachedKeyBytes/3+1)
	for i := range 5 {
		_, gen := c.get("")
		c.put(big+string(rune('a'+i)), &validation{}, gen)
		if c.bytes > maxCachedKeyBytes || c.bytes != len(c.entries)*(len(big)+1) {
			t.Fatalf("after %d puts: %d bytes in %d entries", i+1, c.bytes, len(c.entries))
		}
	}
}
