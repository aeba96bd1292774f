package oauth

import (
	"context"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/typeward/typeward/internal/cache"
	"github.com/typeward/typeward/internal/registry"
	"github.com/typeward/typeward/internal/verdict"
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
	c := newValidationCache(0)
	doc := `{}`
	gen := c.Generation()
	c.Clear() // a change lands while validating
	c.PutAt(gen, doc, &validation{})
	if _, ok := c.Get(doc); ok || c.Len() != 0 {
		t.Errorf("a result computed before the change was kept")
	}
}

// bombDoc is a composition whose verdict is much larger than its text: one
// ERROR issue per edge. nonce makes each document new.
func bombDoc(nonce, edges int) string {
	var nodes, es []string
	nodes = append(nodes, `{"id":"q","tool":"db_query"}`)
	for i := range edges {
		nodes = append(nodes, fmt.Sprintf(`{"id":"c%d_%d","tool":"transform_csv"}`, nonce, i))
		es = append(es, fmt.Sprintf(`{"from":"q","to":"c%d_%d","map":{"rows":"data"}}`, nonce, i))
	}
	return `{"nodes":[` + strings.Join(nodes, ",") + `],"edges":[` + strings.Join(es, ",") + `]}`
}

// TestValidationCacheBombStaysWithinBudget is the cache-bomb reproduction:
// one authenticated client sends novel refused compositions whose verdicts
// are about four times their text. The cache must account for the verdicts
// (before, only the keys counted, and it held 4.2x its bound), and what it
// accounts must be what the heap holds.
func TestValidationCacheBombStaysWithinBudget(t *testing.T) {
	const budget = 512 << 10
	f := newFixture(t)
	f.svc.Limiter = nil
	f.svc.ValidationCacheBytes = budget
	ctx := context.Background()
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	sent := 0
	for i := range 40 {
		d := details(bombDoc(i, 150))
		sent += len(d)
		if _, err := f.svc.Token(ctx, form("grant_type", "client_credentials", "authorization_details", d), creds("app")); AsError(err).Code != CodeInvalidAuthorizationDetails {
			t.Fatalf("request %d: %v, want a refusal", i, err)
		}
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	inline, _ := f.svc.ValidationCacheStats()
	held := cache.Sizeof(f.svc.caches().inline)
	t.Logf("sent %d bytes of documents; the cache accounts %d bytes in %d entries (%d evictions), holds %d, heap grew %d",
		sent, inline.Bytes, inline.Entries, inline.Evictions, held, int64(after.HeapAlloc)-int64(before.HeapAlloc))
	if inline.Bytes > budget || inline.Evictions == 0 {
		t.Errorf("accounted %d bytes (bound %d) after %d evictions", inline.Bytes, budget, inline.Evictions)
	}
	if held > budget*5/4 {
		t.Errorf("the cache holds %d bytes, more than its bound %d allows", held, budget)
	}
	runtime.KeepAlive(f)
}

// TestAllowListIsCheckedBeforeValidation: a client naming a tool it may
// not use is refused without a validation, and nothing is cached for it.
func TestAllowListIsCheckedBeforeValidation(t *testing.T) {
	f := newFixture(t)
	f.svc.Tools = registry.NewCache(f.registry)
	ctx := context.Background()
	doc := details(exampleDoc(t, "pipeline-valid.json")) // db_query, aggregate_stats, email_send
	_, err := f.svc.Token(ctx, form("grant_type", "client_credentials", "authorization_details", doc), creds("narrow"))
	e := AsError(err)
	if e.Code != CodeInvalidAuthorizationDetails || e.Kind != KindForbidden {
		t.Fatalf("got %v, want a 403 refusal", err)
	}
	var denied []string
	for _, is := range e.Issues {
		if is.Code != verdict.CodeToolNotAllowed {
			t.Errorf("issue %+v: only the allow-list was to be checked", is)
		}
		denied = append(denied, is.SourceTool)
	}
	if !slices.Equal(denied, []string{"aggregate_stats", "email_send"}) {
		t.Errorf("denied %v", denied)
	}
	if n := f.validator.calls.Load(); n != 0 {
		t.Errorf("%d validations of a composition the allow-list refuses", n)
	}
	if inline, _ := f.svc.ValidationCacheStats(); inline.Entries != 0 {
		t.Errorf("%d cache entries after a refusal by the allow-list", inline.Entries)
	}
	recs := f.decisions(t)
	last := recs[len(recs)-1]
	if !slices.Equal(last.IssueCodes, []string{verdict.CodeToolNotAllowed, verdict.CodeToolNotAllowed}) || !slices.Equal(last.Tools, denied) {
		t.Errorf("audit record %+v", last)
	}
	// The allowed client still gets its token: the refusal cached nothing.
	if _, err := f.svc.Token(ctx, form("grant_type", "client_credentials", "authorization_details", doc), creds("app")); err != nil {
		t.Fatal(err)
	}
}
