package oauth

import (
	"context"
	"testing"
)

// TestValidationCache: an identical document is validated once until the
// registry changes; a document referencing a stored composition is
// validated every time.
func TestValidationCache(t *testing.T) {
	f := newFixture()
	v := f.svc.Validator.(*fakeValidator)
	ctx := context.Background()
	request := func(doc string) {
		t.Helper()
		if _, err := f.svc.Token(ctx, form("grant_type", "client_credentials", "authorization_details", details(doc)), creds("app")); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		step      func()
		wantCalls int
	}{
		{func() { request(caseDoc("valid")) }, 1},
		{func() { request(caseDoc("valid")) }, 1},                                    // cached
		{func() { request(`{"nodes":[{"id":"n","tool":"valid"}], "edges":[]}`) }, 2}, // other bytes
		{func() { f.svc.RegistryChanged(); request(caseDoc("valid")) }, 3},           // forgotten
		{func() { request(caseDoc("valid")) }, 3},
		{func() { request(`{"nodes":[{"id":"s","composition":"stored"}]}`) }, 4},
		{func() { request(`{"nodes":[{"id":"s","composition":"stored"}]}`) }, 5}, // never cached
	}
	for i, tt := range tests {
		tt.step()
		if v.calls != tt.wantCalls {
			t.Fatalf("step %d: %d validations, want %d", i, v.calls, tt.wantCalls)
		}
	}
}

// TestValidationCacheDropsRacingResult: a validation that started before
// a registry change is not cached after it.
func TestValidationCacheDropsRacingResult(t *testing.T) {
	var c validationCache
	doc := []byte(`{}`)
	_, gen := c.get(doc)
	c.clear() // a change lands while validating
	c.put(doc, nil, gen)
	if r, _ := c.get(doc); r != nil || len(c.entries) != 0 {
		t.Errorf("a result computed before the change was kept")
	}
}
