package composition_test

import (
	"context"
	"encoding/json"
	"errors"
	"maps"
	"slices"
	"testing"

	"github.com/typeward/typeward/internal/compat"
	"github.com/typeward/typeward/internal/composition"
	"github.com/typeward/typeward/internal/registry"
	"github.com/typeward/typeward/internal/store/memory"
	"github.com/typeward/typeward/internal/verdict"
)

// TestRecordPinsByQualifiedName: with a/search@1 named and b/search
// floating, only a/search is pinned, so a new b/search version makes the
// composition stale. (The admin API used to compare bare names and pin
// both: the new version went unnoticed.)
func TestRecordPinsByQualifiedName(t *testing.T) {
	ctx := context.Background()
	s := memory.NewRegistry()
	declare := func(server, out string) {
		t.Helper()
		tool := registry.Tool{Name: "search", InputSchema: json.RawMessage(`{"type":"object"}`), OutputSchema: json.RawMessage(out)}
		if _, err := s.DeclareTool(ctx, server, tool); err != nil {
			t.Fatal(err)
		}
	}
	declare("a", `{"type":"object"}`)
	declare("b", `{"type":"object"}`)
	putComposition(t, s, "both", `{"nodes":[{"id":"x","tool":"a/search","version":1},{"id":"y","tool":"b/search"}],"edges":[]}`)
	c, err := s.Composition(ctx, "both")
	if err != nil {
		t.Fatal(err)
	}
	v := composition.NewValidator(s, s, compat.NewChecker())
	rec, err := composition.Record(ctx, s, v, c)
	if err != nil {
		t.Fatal(err)
	}
	if !rec.Result.Valid() || rec.Composition.Validation == nil || rec.Composition.Validation.ValidatedAt.IsZero() {
		t.Fatalf("recorded %+v", rec)
	}
	pinned := map[string]bool{}
	for _, ref := range rec.Composition.Validation.Tools {
		pinned[ref.QualifiedName()] = ref.Pinned
	}
	if want := map[string]bool{"a/search": true, "b/search": false}; !maps.Equal(pinned, want) {
		t.Errorf("pinned = %v, want %v", pinned, want)
	}
	if names := staleNames(t, s); names != nil {
		t.Fatalf("stale right after recording: %v", names)
	}

	declare("b", `{"type":"object","properties":{"hits":{"type":"integer"}}}`)
	if names := staleNames(t, s); !slices.Equal(names, []string{"both"}) {
		t.Errorf("stale after a new b/search = %v, want [both]", names)
	}
	declare("a", `{"type":"object","properties":{"hits":{"type":"integer"}}}`)
	if got := revalidate(t, s); len(got) != 1 || !got[0].valid {
		t.Errorf("revalidated %+v", got)
	}
	if names := staleNames(t, s); names != nil {
		t.Errorf("stale after revalidation (a/search@1 stays pinned): %v", names)
	}
}

// TestRecordConflict: a definition replaced while it was validated is not
// recorded.
func TestRecordConflict(t *testing.T) {
	ctx := context.Background()
	s := memory.NewRegistry()
	declareTool(t, s, "query", `{"type":"object"}`, queryOut)
	putComposition(t, s, "c", `{"nodes":[{"id":"q","tool":"query"}],"edges":[]}`)
	old, _ := s.Composition(ctx, "c")
	putComposition(t, s, "c", `{"nodes":[{"id":"q2","tool":"query"}],"edges":[]}`)
	_, err := composition.Record(ctx, s, composition.NewValidator(s, s, compat.NewChecker()), old)
	if !errors.Is(err, registry.ErrConflict) {
		t.Fatalf("err = %v, want ErrConflict", err)
	}
	if c, _ := s.Composition(ctx, "c"); c.Validation != nil {
		t.Errorf("a validation of the old definition was recorded: %+v", c.Validation)
	}
}

// TestRecordUnparsable: a stored definition the parser now refuses is
// recorded as invalid, with why.
func TestRecordUnparsable(t *testing.T) {
	ctx := context.Background()
	s := memory.NewRegistry()
	putComposition(t, s, "old", `{"nodes":[],"edges":[]}`)
	c, _ := s.Composition(ctx, "old")
	c.Definition = json.RawMessage(`{"nodes":7}`) // as if stored by an older, laxer parser
	rec, err := composition.Record(ctx, s, composition.NewValidator(s, s, compat.NewChecker()), c)
	if err != nil {
		t.Fatal(err)
	}
	if rec.Result.Valid() || len(rec.Result.Issues) != 1 || rec.Result.Issues[0].Code != verdict.CodeInvalidComposition ||
		rec.Composition.Validation == nil || rec.Composition.Validation.Valid {
		t.Errorf("recorded %+v / %+v", rec.Result, rec.Composition.Validation)
	}
}
