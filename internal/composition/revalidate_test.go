package composition_test

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"testing"

	"github.com/typeward/typeward/internal/compat"
	"github.com/typeward/typeward/internal/composition"
	"github.com/typeward/typeward/internal/registry"
	"github.com/typeward/typeward/internal/store/memory"
	"github.com/typeward/typeward/internal/verdict"
)

const (
	queryOut   = `{"type":"object","properties":{"rows":{"type":"array","items":{"type":"string"}}},"required":["rows"]}`
	queryOutV2 = `{"type":"object","properties":{"rows":{"type":"array","items":{"type":"object"}}},"required":["rows"]}`
	csvIn      = `{"type":"object","properties":{"data":{"type":"array","items":{"type":"string"}}},"required":["data"]}`
)

func declareTool(t *testing.T, s registry.Store, name, in, out string) {
	t.Helper()
	tool := registry.Tool{Name: name, InputSchema: json.RawMessage(in)}
	if out != "" {
		tool.OutputSchema = json.RawMessage(out)
	}
	if _, err := s.DeclareTool(context.Background(), "db", tool); err != nil {
		t.Fatal(err)
	}
}

func putComposition(t *testing.T, s registry.Store, name, def string) {
	t.Helper()
	if _, err := s.PutComposition(context.Background(), name, json.RawMessage(def)); err != nil {
		t.Fatal(err)
	}
}

func staleNames(t *testing.T, s registry.Store) []string {
	t.Helper()
	stale, err := s.StaleCompositions(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, c := range stale {
		names = append(names, c.Name)
	}
	return names
}

type outcome struct {
	name  string
	valid bool
	codes []string
}

func revalidate(t *testing.T, s registry.Store) []outcome {
	t.Helper()
	v := composition.NewValidator(s, s, compat.NewChecker())
	results, err := composition.Revalidate(context.Background(), s, v)
	if err != nil {
		t.Fatal(err)
	}
	var out []outcome
	for _, r := range results {
		o := outcome{name: r.Name, valid: r.Valid}
		for _, is := range r.Issues {
			o.codes = append(o.codes, is.Code)
		}
		out = append(out, o)
	}
	return out
}

func TestRevalidateFollowsSchemaEvolution(t *testing.T) {
	ctx := context.Background()
	s := memory.NewRegistry()
	declareTool(t, s, "query", `{"type":"object"}`, queryOut)
	declareTool(t, s, "to_csv", csvIn, "")
	edges := `"edges":[{"from":"q","to":"csv","map":{"rows":"data"}}]`
	putComposition(t, s, "current", `{"nodes":[{"id":"q","tool":"query"},{"id":"csv","tool":"to_csv"}],`+edges+`}`)
	putComposition(t, s, "pinned", `{"nodes":[{"id":"q","tool":"query","version":1},{"id":"csv","tool":"to_csv"}],`+edges+`}`)
	putComposition(t, s, "outer", `{"nodes":[{"id":"inner","composition":"current"}],"edges":[]}`)
	putComposition(t, s, "loop", `{"nodes":[{"id":"self","composition":"loop"}],"edges":[]}`)

	// Never validated: every one is stale, and revalidation records them.
	got := revalidate(t, s)
	want := []outcome{
		{name: "current", valid: true},
		{name: "loop", valid: false, codes: []string{verdict.CodeCompositionCycle}},
		{name: "outer", valid: true},
		{name: "pinned", valid: true},
	}
	assertOutcomes(t, got, want)
	if names := staleNames(t, s); names != nil {
		t.Fatalf("stale after revalidation: %v", names)
	}
	c, err := s.Composition(ctx, "current")
	if err != nil || c.Validation == nil || !slices.Equal(refNames(c.Validation.Tools), []string{"db/query@1", "db/to_csv@1"}) {
		t.Fatalf("recorded validation = %+v, %v", c.Validation, err)
	}

	// query's rows become objects: a breaking change for to_csv's strings.
	declareTool(t, s, "query", `{"type":"object"}`, queryOutV2)
	if names := staleNames(t, s); !slices.Equal(names, []string{"current", "outer"}) {
		t.Fatalf("stale after a new version = %v, want the compositions using the current version", names)
	}
	got = revalidate(t, s)
	assertOutcomes(t, got, []outcome{
		{name: "current", valid: false, codes: []string{verdict.CodeTypeMismatch}},
		{name: "outer", valid: false, codes: []string{verdict.CodeTypeMismatch}},
	})
	c, _ = s.Composition(ctx, "current")
	if c.Validation.Valid || !slices.Equal(refNames(c.Validation.Tools), []string{"db/query@2", "db/to_csv@1"}) {
		t.Errorf("recorded validation = %+v", c.Validation)
	}
	var issues []verdict.Issue
	if err := json.Unmarshal(c.Validation.Issues, &issues); err != nil || len(issues) != 1 || issues[0].FieldPath != "rows->data" {
		t.Errorf("recorded issues %s (%v)", c.Validation.Issues, err)
	}
	if names := staleNames(t, s); names != nil {
		t.Errorf("stale after revalidation: %v", names)
	}
}

func assertOutcomes(t *testing.T, got, want []outcome) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("revalidated %+v, want %+v", got, want)
	}
	for i := range want {
		if got[i].name != want[i].name || got[i].valid != want[i].valid || !slices.Equal(got[i].codes, want[i].codes) {
			t.Errorf("revalidation %d = %+v, want %+v", i, got[i], want[i])
		}
	}
}

func refNames(refs []registry.ToolRef) []string {
	var out []string
	for _, r := range refs {
		out = append(out, fmt.Sprintf("%s@%d", r.QualifiedName(), r.Version))
	}
	return out
}
