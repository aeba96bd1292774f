package composition

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/typeward/typeward/internal/compat"
	"github.com/typeward/typeward/internal/registry"
	"github.com/typeward/typeward/internal/verdict"
)

// storedCompositions is a Compositions over literal definitions.
type storedCompositions map[string]string

func (s storedCompositions) Definition(_ context.Context, name string) (json.RawMessage, error) {
	if def, ok := s[name]; ok {
		return json.RawMessage(def), nil
	}
	return nil, fmt.Errorf("composition %s: %w", name, registry.ErrNotFound)
}

func loadCatalog(t testing.TB, path string) *registry.Catalog {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return parseCatalog(t, string(data))
}

// parseCatalog is the catalog of a tools document.
func parseCatalog(t testing.TB, doc string) *registry.Catalog {
	t.Helper()
	servers, err := registry.ParseToolsFile([]byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	return registry.NewCatalog(servers)
}

// brief is an issue without its message and pointers, which belong to the
// checker: "severity code source target edge field".
func brief(is verdict.Issue) string {
	parts := []string{string(is.Severity), is.Code, is.SourceTool, is.TargetTool, is.Edge, is.FieldPath}
	for i, p := range parts {
		if p == "" {
			parts[i] = "-"
		}
	}
	return strings.Join(parts, " ")
}

func validate(t *testing.T, v *Validator, doc string) *Result {
	t.Helper()
	c, err := Parse([]byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	r, err := v.Validate(context.Background(), c)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func assertIssues(t *testing.T, got []verdict.Issue, want []string) {
	t.Helper()
	var lines []string
	for _, is := range got {
		lines = append(lines, brief(is))
	}
	if strings.Join(lines, "\n") != strings.Join(want, "\n") {
		t.Errorf("issues:\n  %s\nwant:\n  %s\nfull: %+v", strings.Join(lines, "\n  "), strings.Join(want, "\n  "), got)
	}
}

// edge is a two-node composition src -> target with one edge.
func edge(target, mapping string, extra string) string {
	return fmt.Sprintf(`{"nodes":[{"id":"a","tool":"lab/src"},{"id":"b","tool":"lab/%s"}],
		"edges":[{"from":"a","to":"b","map":%s%s}]}`, target, mapping, extra)
}

func TestValidateMappings(t *testing.T) {
	v := NewValidator(loadCatalog(t, "testdata/tools.json"), nil, compat.NewChecker())
	const ab = "lab/src lab/loose a->b"
	const strict = "lab/src lab/strict a->b"
	tests := []struct {
		name string
		doc  string
		want []string
	}{
		{"projection of integers into integer[]", edge("loose", `{"rows[].id":"ids"}`, ""), nil},
		{"projection of integers into string[]", edge("loose", `{"rows[].id":"names"}`, ""),
			[]string{"error type_mismatch " + ab + " rows[].id->names"}},
		{"array into a scalar", edge("loose", `{"rows":"id"}`, ""),
			[]string{"error type_mismatch " + ab + " rows->id"}},
		{"each checks one element", edge("loose", `{"rows[].id":"id"}`, `,"each":true`), nil},
		{"$ref followed", edge("loose", `{"thing.label":"text"}`, ""), nil},
		{"allOf followed", edge("loose", `{"merged.q":"id","merged.p":"text"}`, ""), nil},
		{"allOf property of the wrong type", edge("loose", `{"merged.p":"id"}`, ""),
			[]string{"error type_mismatch " + ab + " merged.p->id"}},
		{"additionalProperties types a record", edge("loose", `{"record.anything":"id"}`, ""), nil},
		{"target conjunction: every allOf branch checked", edge("loose", `{"maybe":"picky"}`, ""),
			[]string{"error " + lengthCode(t) + " " + ab + " maybe->picky"}},
		{"unknown source field", edge("loose", `{"nope":"text"}`, ""),
			[]string{"error unknown_source_field " + ab + " nope->text"}},
		{"field forbidden by additionalProperties false", edge("loose", `{"closed.zzz":"text"}`, ""),
			[]string{"error unknown_source_field " + ab + " closed.zzz->text"}},
		{"unknown target field", edge("loose", `{"count":"nope"}`, ""),
			[]string{"error unknown_target_field " + ab + " count->nope"}},
		{"unknown nested target field", edge("loose", `{"count":"nested.nope"}`, ""),
			[]string{"error unknown_target_field " + ab + " count->nested.nope"}},
		{"both fields unknown: both reported", edge("loose", `{"nope":"nada"}`, ""), []string{
			"error unknown_target_field " + ab + " nope->nada",
			"error unknown_source_field " + ab + " nope->nada",
		}},
		{"optional source into required target", edge("strict", `{"maybe":"text","count":"id"}`, ""),
			[]string{"warning may_be_missing " + strict + " maybe->text"}},
		{"optional source into optional target", edge("loose", `{"maybe":"text"}`, ""), nil},
		{"per item: an optional field of the element still may be missing", edge("strict", `{"rows[].name":"text","rows[].id":"id"}`, `,"each":true`),
			[]string{"warning may_be_missing " + strict + " rows[].name->text"}},
		{"per item: an absent or null array means no run, not a missing field", edge("strict", `{"opt_list[].id":"id","thing.label":"text"}`, `,"each":true`), nil},
		{"projection: an absent or null array is a missing field", edge("strict", `{"opt_list[].id":"id","thing.label":"text"}`, ""), []string{
			"warning may_be_missing " + strict + " opt_list[].id->id",
			"error may_be_null " + strict + " opt_list[].id->id",
			"error type_mismatch " + strict + " opt_list[].id->id",
		}},
		{"projection: array of optional fields into a required array", edge("strict", `{"rows[].name":"text","count":"id"}`, ""),
			[]string{"warning may_be_missing " + strict + " rows[].name->text", "error type_mismatch " + strict + " rows[].name->text"}},
		{"field of a nullable union", edge("strict", `{"nullable_obj.x":"text","count":"id"}`, ""),
			[]string{"error may_be_null " + strict + " nullable_obj.x->text"}},
		{"field of a nullable union on an optional edge", edge("strict", `{"nullable_obj.x":"text","count":"id"}`, `,"optional":true`),
			[]string{
				"warning may_be_null " + strict + " nullable_obj.x->text",
				"warning may_be_missing - lab/strict - ->id",
				"warning may_be_missing - lab/strict - ->text",
			}},
		{"field of a type-array nullable object", edge("strict", `{"typed_nullable.y":"text","count":"id"}`, ""),
			[]string{"error may_be_null " + strict + " typed_nullable.y->text"}},
		// The other branch is an open object: {"a": 5} matches it, so the
		// field may be there with any value.
		{"union: the branch that has the field is checked, an open one warns", edge("loose", `{"shapes.a":"text"}`, ""),
			[]string{"warning undeclared_property " + ab + " shapes.a->text"}},
		{"union: a field only some branches have may be missing", edge("strict", `{"shapes.b":"text","count":"id"}`, ""),
			[]string{"warning may_be_missing " + strict + " shapes.b->text", "warning undeclared_property " + strict + " shapes.b->text"}},
		{"union: no branch has the field", edge("loose", `{"shapes.zzz":"text"}`, ""),
			[]string{"error unknown_source_field " + ab + " shapes.zzz->text"}},
		{"union: every branch's field must fit", edge("loose", `{"variant.v":"text"}`, ""),
			[]string{"error type_mismatch " + ab + " variant.v->text"}},
		{"union: every branch's field fits, the union may be null", edge("strict", `{"variant.kind":"text","count":"id"}`, ""),
			[]string{"error may_be_null " + strict + " variant.kind->text"}},
		{"tuple projection", edge("loose", `{"tuple[]":"names"}`, ""),
			[]string{"warning cannot_prove " + ab + " tuple[]->names"}},
		{"required input nothing feeds", edge("strict", `{"thing.label":"text"}`, ""),
			[]string{"warning unbound_required_input - lab/strict - ->id"}},
		{"a required input only an optional edge feeds", edge("strict", `{"thing.label":"text","count":"id"}`, `,"optional":true`), []string{
			"warning may_be_missing - lab/strict - ->id",
			"warning may_be_missing - lab/strict - ->text",
		}},
		{"fan-in: an edge that always runs feeds it", `{"nodes":[{"id":"a","tool":"src"},{"id":"b","tool":"src"},{"id":"c","tool":"strict"}],
			"edges":[{"from":"a","to":"c","optional":true,"map":{"count":"id","thing.label":"text"}},{"from":"b","to":"c","map":{"count":"id"}}]}`,
			[]string{"warning may_be_missing - lab/strict - ->text"}},
		{"untyped source", `{"nodes":[{"id":"a","tool":"untyped"},{"id":"b","tool":"loose"}],"edges":[{"from":"a","to":"b","map":{"x":"text","y":"nope"}}]}`, []string{
			"warning untyped_source lab/untyped lab/loose a->b x->text",
			"error unknown_target_field lab/untyped lab/loose a->b y->nope",
			"warning untyped_source lab/untyped lab/loose a->b y->nope",
		}},
		{"unknown and ambiguous tools", `{"nodes":[{"id":"a","tool":"nosuch"},{"id":"b","tool":"dup"},{"id":"c","tool":"loose","version":2}]}`, []string{
			"error unknown_tool - nosuch - -",
			"error ambiguous_tool - dup - -",
			"error unknown_tool - loose - -",
		}},
		{"edges touching an unknown tool are not checked", `{"edges":[{"from":"src","to":"nosuch","map":{"count":"x"}}]}`,
			[]string{"error unknown_tool - nosuch - -"}},
		{"edge to an unknown node", `{"nodes":[{"id":"a","tool":"src"}],"edges":[{"from":"a","to":"zz","map":{"count":"id"}}]}`,
			[]string{"error unknown_tool - - a->zz -"}},
		{"fan-out and fan-in, each mapping on its own", `{"nodes":[{"id":"a","tool":"src"},{"id":"b","tool":"loose"},{"id":"c","tool":"strict"}],
			"edges":[{"from":"a","to":"b","map":{"count":"id","rows":"text"}},{"from":"a","to":"c","map":{"count":"id","thing.label":"text"}},{"from":"b","to":"c","map":{"count":"text"}}]}`, []string{
			"error type_mismatch lab/src lab/loose a->b rows->text",
			"error type_mismatch lab/loose lab/strict b->c count->text",
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assertIssues(t, validate(t, v, tt.doc).Issues, tt.want)
		})
	}
}

// lengthCode is the checker's code for a string without the target's
// minLength: asked of the checker, so this test pins what the validator
// does with the target's allOf, not how the checker names things.
func lengthCode(t *testing.T) string {
	t.Helper()
	cat := loadCatalog(t, "testdata/tools.json")
	src, _ := cat.ResolveTool(context.Background(), "lab/src", 0)
	tgt, _ := cat.ResolveTool(context.Background(), "lab/loose", 0)
	issues := compat.NewChecker().Check(compat.Node{Schema: src.Output, Pointer: "/properties/maybe"},
		compat.Node{Schema: tgt.Input, Pointer: "/properties/picky/allOf/1"}, compat.Options{}).Issues
	if len(issues) != 1 {
		t.Fatalf("checker gave %v for string into minLength 3", issues)
	}
	return issues[0].Code
}

func TestValidateCycles(t *testing.T) {
	v := NewValidator(loadCatalog(t, "testdata/tools.json"), nil, compat.NewChecker())
	tests := []struct {
		name, doc string
		cycles    []string
	}{
		{"two nodes", `{"nodes":[{"id":"a","tool":"loose"},{"id":"b","tool":"loose"}],
			"edges":[{"from":"a","to":"b","map":{"count":"id"}},{"from":"b","to":"a","map":{"count":"id"}}]}`,
			[]string{"the edges form a cycle: a -> b -> a"}},
		{"self loop", `{"nodes":[{"id":"a","tool":"loose"}],"edges":[{"from":"a","to":"a","map":{"count":"id"}}]}`,
			[]string{"the edges form a cycle: a -> a"}},
		{"three nodes behind an entry, two loops", `{"nodes":[{"id":"e","tool":"loose"},{"id":"c","tool":"loose"},{"id":"a","tool":"loose"},{"id":"b","tool":"loose"},{"id":"x","tool":"loose"},{"id":"y","tool":"loose"}],
			"edges":[{"from":"e","to":"a","map":{"count":"id"}},{"from":"a","to":"b","map":{"count":"id"}},{"from":"b","to":"c","map":{"count":"id"}},{"from":"c","to":"a","map":{"count":"id"}},
			{"from":"x","to":"y","map":{"count":"id"}},{"from":"y","to":"x","map":{"count":"id"}}]}`,
			[]string{"the edges form a cycle: c -> a -> b -> c", "the edges form a cycle: x -> y -> x"}},
		{"a diamond is no cycle", `{"nodes":[{"id":"a","tool":"loose"},{"id":"b","tool":"loose"},{"id":"c","tool":"loose"},{"id":"d","tool":"loose"}],
			"edges":[{"from":"a","to":"b","map":{"count":"id"}},{"from":"a","to":"c","map":{"count":"id"}},{"from":"b","to":"d","map":{"count":"id"}},{"from":"c","to":"d","map":{"count":"ids"}}]}`,
			nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := validate(t, v, tt.doc)
			var got []string
			for _, is := range r.Issues {
				if is.Code == verdict.CodeCycle {
					if is.Severity != verdict.SeverityError {
						t.Errorf("cycle is a %s", is.Severity)
					}
					got = append(got, is.Message)
				}
			}
			if strings.Join(got, "|") != strings.Join(tt.cycles, "|") {
				t.Errorf("cycles %q, want %q", got, tt.cycles)
			}
		})
	}
}

func TestValidateStoredCompositions(t *testing.T) {
	stored := storedCompositions{
		"inner": `{"nodes":[{"id":"p","tool":"src"},{"id":"l","tool":"loose"}],"edges":[{"from":"p","to":"l","map":{"count":"id"}}]}`,
		"pair":  `{"nodes":[{"id":"x","tool":"src"},{"id":"y","tool":"src"}]}`,
		"outer": `{"nodes":[{"id":"i","composition":"inner"}]}`,
		"c1":    `{"nodes":[{"id":"n","composition":"c2"}]}`,
		"c2":    `{"nodes":[{"id":"m","composition":"c3"}]}`,
		"c3":    `{"nodes":[{"id":"o","composition":"c1"}]}`,
		"self":  `{"nodes":[{"id":"me","composition":"self"}]}`,
		"bad":   `{"nodes":[]}`,
	}
	v := NewValidator(loadCatalog(t, "testdata/tools.json"), stored, compat.NewChecker())
	tests := []struct {
		name, doc string
		want      []string
		messages  []string // substrings of the messages, in order
	}{
		{"flattened and checked, entry and exit by name", `{"nodes":[{"id":"s","composition":"inner"},{"id":"z","tool":"strict"}],
			"edges":[{"from":"s.p","to":"z","map":{"maybe":"text","count":"id"}},{"from":"s","to":"z","map":{"count":"names"}}]}`,
			[]string{
				"warning may_be_missing lab/src lab/strict s.p->z maybe->text",
				"error type_mismatch lab/loose lab/strict s.l->z count->names",
			}, nil},
		{"a composition of a composition: its ends are the inner ends", `{"nodes":[{"id":"s","composition":"outer"},{"id":"z","tool":"strict"}],
			"edges":[{"from":"s","to":"z","map":{"count":"names"}}]}`,
			[]string{
				"error type_mismatch lab/loose lab/strict s.i.l->z count->names",
				"warning unbound_required_input - lab/strict - ->id",
				"warning unbound_required_input - lab/strict - ->text",
			}, nil},
		{"a transitive self-reference names the cycle", `{"nodes":[{"id":"r","composition":"c1"}]}`,
			[]string{"error composition_cycle - - - -"}, []string{"c1 -> c2 -> c3 -> c1"}},
		{"a direct self-reference", `{"nodes":[{"id":"r","composition":"self"}]}`,
			[]string{"error composition_cycle - - - -"}, []string{"self -> self"}},
		{"unknown stored composition", `{"nodes":[{"id":"r","composition":"nosuch"},{"id":"t","tool":"loose"}],"edges":[{"from":"r","to":"t","map":{"a":"b"}}]}`,
			[]string{"error unknown_composition - - - -"}, []string{`no stored composition "nosuch"`}},
		{"invalid stored composition", `{"nodes":[{"id":"r","composition":"bad"}]}`,
			[]string{"error invalid_composition - - - -"}, []string{`stored composition "bad": composition: nodes: empty`}},
		{"ambiguous exit", `{"nodes":[{"id":"r","composition":"pair"},{"id":"t","tool":"loose"}],"edges":[{"from":"r","to":"t","map":{"count":"id"}}]}`,
			[]string{"error invalid_composition - - - -"}, []string{"composition node r has 2 exit nodes (r.x, r.y); name one as r.<node>"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := validate(t, v, tt.doc)
			assertIssues(t, r.Issues, tt.want)
			for i, m := range tt.messages {
				if i >= len(r.Issues) || !strings.Contains(r.Issues[i].Message, m) {
					t.Errorf("issue %d should say %q: %+v", i, m, r.Issues)
				}
			}
		})
	}
}

// failingStore is a composition store that is down.
type failingStore struct{}

func (failingStore) Definition(context.Context, string) (json.RawMessage, error) {
	return nil, errors.New("connection refused")
}

func TestValidateStoreFailureIsAnError(t *testing.T) {
	down := CompositionsFunc(failingStore{}.Definition)
	v := NewValidator(loadCatalog(t, "testdata/tools.json"), down, compat.NewChecker())
	c, err := Parse([]byte(`{"nodes":[{"id":"r","composition":"x"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := v.Validate(context.Background(), c); err == nil || !strings.Contains(err.Error(), "connection refused") {
		t.Errorf("got %v, want the store's error", err)
	}
}

func TestValidateStopsWhenCancelled(t *testing.T) {
	v := NewValidator(loadCatalog(t, "testdata/tools.json"), nil, compat.NewChecker())
	c, err := Parse([]byte(edge("loose", `{"count":"id"}`, "")))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := v.Validate(ctx, c); !errors.Is(err, context.Canceled) {
		t.Errorf("got %v, want context.Canceled", err)
	}
}

func TestResultNamesToolsEdgesAndDigest(t *testing.T) {
	v := NewValidator(loadCatalog(t, "testdata/tools.json"), nil, compat.NewChecker())
	long := `{"nodes":[{"id":"a","tool":"src"},{"id":"b","tool":"loose"},{"id":"c","tool":"lab/loose"}],
		"edges":[{"from":"a","to":"b","map":{"count":"id","thing.label":"text"}},{"from":"a","to":"c","map":{"count":"id"}}]}`
	reordered := `{"edges":[{"source_tool":"a","target_tool":"c","field_mappings":{"count":"id"}},{"from":"a","to":"b","map":{"thing.label":"text","count":"id"}}],
		"nodes":[{"id":"c","tool":"lab/loose"},{"id":"b","tool":"loose"},{"id":"a","tool":"src"}]}`
	r := validate(t, v, long)
	if len(r.Issues) != 0 || !r.Valid() {
		t.Fatalf("issues: %+v", r.Issues)
	}
	if len(r.Tools) != 2 || r.Tools[0].Name != "lab/loose" || r.Tools[1].Name != "lab/src" || r.Tools[0].Version != 1 || !strings.HasPrefix(r.Tools[0].Digest, "sha256:") {
		t.Errorf("tools %+v", r.Tools)
	}
	if len(r.Edges) != 1 || r.Edges[0] != (EdgeRef{From: "lab/src", To: "lab/loose"}) {
		t.Errorf("edges %+v", r.Edges)
	}
	if !strings.HasPrefix(r.Digest, "sha256:") {
		t.Errorf("digest %q", r.Digest)
	}
	if again := validate(t, v, reordered); again.Digest != r.Digest {
		t.Errorf("spelling changed the digest: %s vs %s", again.Digest, r.Digest)
	}
	changed := strings.Replace(long, `"count":"id"}}]}`, `"count":"ids"}}]}`, 1)
	if other := validate(t, v, changed); other.Digest == r.Digest {
		t.Error("a different mapping kept the digest")
	}
}

// TestMissingMessageNamesBothSides: a field of one name on both sides
// read "maybe is not required, but maybe is required" before; the message
// says which side is which.
func TestMissingMessageNamesBothSides(t *testing.T) {
	v := NewValidator(loadCatalog(t, "testdata/tools.json"), nil, compat.NewChecker())
	res := validate(t, v, edge("strict", `{"maybe":"text","count":"id"}`, ""))
	if len(res.Issues) != 1 {
		t.Fatalf("issues %v, want one may_be_missing", res.Issues)
	}
	want := "maybe is not required in the source output, but the target input requires text"
	if got := res.Issues[0].Message; got != want {
		t.Errorf("message %q, want %q", got, want)
	}
}
