// Package storetest holds the conformance suites every storage backend
// runs, so that the memory and Postgres stores behave alike.
package storetest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/typeward/typeward/internal/registry"
	"github.com/typeward/typeward/internal/schema"
)

// RunRegistry runs the registry.Store conformance suite. newStore returns
// an empty store of its own for each subtest.
func RunRegistry(t *testing.T, newStore func(t *testing.T) registry.Store) {
	tests := []struct {
		name string
		run  func(t *testing.T, s registry.Store)
	}{
		{"VersionsAreCreatedOnlyBySchemaChanges", testVersions},
		{"MetadataUpdatesKeepTheVersion", testMetadata},
		{"RefusedDeclarationChangesNothing", testRefusedDeclaration},
		{"NamesResolveByServerOrUnambiguousBareName", testNamespacing},
		{"ResolveCompilesTheVersionAskedFor", testResolve},
		{"ConcurrentDeclarationsGetDistinctVersions", testConcurrentDeclare},
		{"SnapshotApprovalReplacesTheServersTools", testSnapshots},
		{"SnapshotWithProblemsIsRefusedWhole", testRefusedSnapshot},
		{"CompositionsAreStoredAndChecked", testCompositions},
		{"CompositionsGoStaleWhenTheirToolsChange", testStaleness},
		{"CompositionsGoStaleWhenCompositionsTheyReferenceChange", testReferenceStaleness},
		{"WatchersHearEveryCommittedChangeOnce", testWatch},
		{"CallersCannotReachStoredState", testCopies},
		{"NamesNoStoreCanHoldAreNotFound", testUnstorableNames},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tc.run(t, newStore(t))
		})
	}
}

// Schemas used throughout: v1 and a respelling of it (keys reordered,
// whitespace), and a v2 that differs.
const (
	schemaV1          = `{"type":"object","properties":{"q":{"type":"string"}},"required":["q"]}`
	schemaV1Respelled = "{ \"required\": [\"q\"],\n  \"properties\": {\"q\": {\"type\": \"string\"}}, \"type\": \"object\" }"
	schemaV2          = `{"type":"object","properties":{"q":{"type":"string"},"limit":{"type":"integer"}},"required":["q"]}`
	outputV1          = `{"type":"object","properties":{"hits":{"type":"array","items":{"type":"string"}}}}`
)

func tool(name, input string) registry.Tool {
	return registry.Tool{Name: name, Description: "finds " + name, InputSchema: json.RawMessage(input)}
}

func mustDeclare(t *testing.T, s registry.Store, server string, tl registry.Tool) registry.Declared {
	t.Helper()
	d, err := s.DeclareTool(context.Background(), server, tl)
	if err != nil {
		t.Fatalf("declare %s/%s: %v", server, tl.Name, err)
	}
	return d
}

func wantErr(t *testing.T, err, want error) {
	t.Helper()
	if !errors.Is(err, want) {
		t.Fatalf("error = %v, want %v", err, want)
	}
}

func testVersions(t *testing.T, s registry.Store) {
	ctx := context.Background()
	first := mustDeclare(t, s, "srv", tool("search", schemaV1))
	if !first.Created || first.Version.Version != 1 {
		t.Fatalf("first declaration = %+v, want version 1 created", first)
	}
	same := mustDeclare(t, s, "srv", tool("search", schemaV1Respelled))
	if same.Created || same.Version.Version != 1 || same.Version.Digest != first.Version.Digest {
		t.Fatalf("respelled schema = %+v, want the no-op version 1", same)
	}
	second := mustDeclare(t, s, "srv", registry.Tool{Name: "search", InputSchema: json.RawMessage(schemaV2), OutputSchema: json.RawMessage(outputV1)})
	if !second.Created || second.Version.Version != 2 || second.Version.Digest == first.Version.Digest {
		t.Fatalf("changed schema = %+v, want version 2 with a new digest", second)
	}

	versions, err := s.ListVersions(ctx, "srv/search")
	if err != nil {
		t.Fatal(err)
	}
	if len(versions) != 2 || versions[0].Version != 1 || versions[1].Version != 2 {
		t.Fatalf("versions = %+v", versions)
	}
	v1, v2 := versions[0], versions[1]
	if string(v1.InputSchema) != schemaV1 {
		t.Errorf("version 1 input = %s, want it verbatim %s", v1.InputSchema, schemaV1)
	}
	if v1.OutputDigest != "" || v1.OutputSchema != nil {
		t.Errorf("version 1 has output %q %s, want none", v1.OutputDigest, v1.OutputSchema)
	}
	if string(v2.OutputSchema) != outputV1 || !strings.HasPrefix(v2.OutputDigest, "sha256:") {
		t.Errorf("version 2 output = %s (%s)", v2.OutputSchema, v2.OutputDigest)
	}
	if v1.CreatedAt.IsZero() || v2.CreatedAt.Before(v1.CreatedAt) {
		t.Errorf("version times %v then %v", v1.CreatedAt, v2.CreatedAt)
	}
	if v1.Server != "srv" || v1.Name != "search" || v1.QualifiedName() != "srv/search" {
		t.Errorf("version 1 names %q %q", v1.Server, v1.Name)
	}

	got, err := s.ToolVersion(ctx, "search", 1)
	if err != nil || got.Digest != v1.Digest {
		t.Fatalf("ToolVersion(search, 1) = %+v, %v", got, err)
	}
	current, err := s.ToolVersion(ctx, "srv/search", 0)
	if err != nil || current.Version != 2 {
		t.Fatalf("ToolVersion(srv/search, 0) = %+v, %v", current, err)
	}
	for _, v := range []int{3, -1} {
		_, err := s.ToolVersion(ctx, "srv/search", v)
		wantErr(t, err, registry.ErrNotFound)
	}
	_, err = s.ListVersions(ctx, "srv/nothing")
	wantErr(t, err, registry.ErrNotFound)
}

func testMetadata(t *testing.T, s registry.Store) {
	ctx := context.Background()
	mustDeclare(t, s, "srv", tool("search", schemaV1))
	changed := tool("search", schemaV1Respelled)
	changed.Title = "Search"
	changed.Description = "finds things, and now also emails them to someone"
	changed.Annotations = json.RawMessage(`{"readOnlyHint":true}`)
	d := mustDeclare(t, s, "srv", changed)
	if d.Created || d.Version.Version != 1 {
		t.Fatalf("metadata change = %+v, want no new version", d)
	}
	rec, err := s.Tool(ctx, "srv/search")
	if err != nil {
		t.Fatal(err)
	}
	if rec.Declaration.Description != changed.Description || rec.Declaration.Title != "Search" ||
		string(rec.Declaration.Annotations) != `{"readOnlyHint":true}` {
		t.Errorf("record = %+v, want the new metadata", rec.Declaration)
	}
	if string(rec.Declaration.InputSchema) != schemaV1 {
		t.Errorf("record input = %s, want version 1's schema as first declared", rec.Declaration.InputSchema)
	}
	if rec.Version != 1 || rec.QualifiedName() != "srv/search" || rec.UpdatedAt.Before(rec.CreatedAt) {
		t.Errorf("record = %+v", rec)
	}
}

func testRefusedDeclaration(t *testing.T, s registry.Store) {
	ctx := context.Background()
	bad := registry.Tool{Name: "get user", InputSchema: json.RawMessage(`{"type":"array"}`), OutputSchema: json.RawMessage(`{"$ref":"https://example.com/s.json"}`)}
	_, err := s.DeclareTool(ctx, "srv", bad)
	var de *registry.DeclarationError
	if !errors.As(err, &de) || !errors.Is(err, registry.ErrInvalidDeclaration) {
		t.Fatalf("error = %v, want a *DeclarationError", err)
	}
	var codes []string
	for _, p := range de.Problems {
		codes = append(codes, p.Code)
	}
	want := []string{registry.CodeInvalidName, registry.CodeNonObjectInputSchema, registry.CodeInvalidOutputSchema}
	if !slices.Equal(codes, want) {
		t.Errorf("problem codes = %v, want %v", codes, want)
	}
	// Text a database cannot hold is refused alike by every store, never
	// passed on to fail there.
	for _, tc := range []struct {
		server string
		tool   registry.Tool
		code   string
	}{
		{"srv", registry.Tool{Name: "nul", Description: "a\x00b", InputSchema: json.RawMessage(schemaV1)}, registry.CodeInvalidText},
		{"srv", registry.Tool{Name: "utf8", Title: "\xff", InputSchema: json.RawMessage(schemaV1)}, registry.CodeInvalidText},
		{"srv\xff", tool("server", schemaV1), registry.CodeInvalidServer},
		{"srv", tool("schema_utf8", "{\"type\":\"object\",\"description\":\"\xff\"}"), registry.CodeInvalidInputSchema},
	} {
		_, err := s.DeclareTool(ctx, tc.server, tc.tool)
		if !errors.As(err, &de) || len(de.Problems) != 1 || de.Problems[0].Code != tc.code {
			t.Errorf("declare %q/%s: %v, want one %s problem", tc.server, tc.tool.Name, err, tc.code)
		}
	}
	if _, err := s.ImportSnapshot(ctx, "srv\x00", "", nil); !errors.Is(err, registry.ErrInvalidDeclaration) {
		t.Errorf("snapshot of a server named with a NUL: %v, want ErrInvalidDeclaration", err)
	}
	if _, err := s.ImportSnapshot(ctx, "srv", "file\x00.json", nil); !errors.Is(err, registry.ErrInvalidDeclaration) {
		t.Errorf("snapshot from a source named with a NUL: %v, want ErrInvalidDeclaration", err)
	}
	tools, err := s.ListTools(ctx)
	if err != nil || len(tools) != 0 {
		t.Errorf("after a refusal ListTools = %v, %v; want nothing", tools, err)
	}
}

func testNamespacing(t *testing.T, s registry.Store) {
	ctx := context.Background()
	mustDeclare(t, s, "github", tool("search", schemaV1))
	mustDeclare(t, s, "gitlab", tool("search", schemaV2))
	mustDeclare(t, s, "modelcontextprotocol/servers:everything", tool("echo", schemaV1))
	mustDeclare(t, s, "", tool("local_only", schemaV1))

	_, err := s.ResolveTool(ctx, "search", 0)
	wantErr(t, err, registry.ErrAmbiguous)
	if msg := err.Error(); !strings.Contains(msg, "github/search") || !strings.Contains(msg, "gitlab/search") {
		t.Errorf("ambiguity error %q should name both candidates", msg)
	}
	_, err = s.Tool(ctx, "search")
	wantErr(t, err, registry.ErrAmbiguous)

	for name, wantServer := range map[string]string{
		"github/search": "github",
		"gitlab/search": "gitlab",
		"echo":          "modelcontextprotocol/servers:everything",
		"modelcontextprotocol/servers:everything/echo": "modelcontextprotocol/servers:everything",
		"local_only": "",
	} {
		rt, err := s.ResolveTool(ctx, name, 0)
		if err != nil || rt.Server != wantServer {
			t.Errorf("ResolveTool(%q) = %+v, %v; want server %q", name, rt, err, wantServer)
		}
	}
	for _, name := range []string{"nope", "github/nope", "bitbucket/search", "github", "/search"} {
		_, err := s.ResolveTool(ctx, name, 0)
		wantErr(t, err, registry.ErrNotFound)
	}

	list, err := s.ListTools(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, r := range list {
		names = append(names, r.QualifiedName())
	}
	want := []string{"local_only", "github/search", "gitlab/search", "modelcontextprotocol/servers:everything/echo"}
	if !slices.Equal(names, want) {
		t.Errorf("ListTools = %v, want %v (by server, then name)", names, want)
	}
}

func testResolve(t *testing.T, s registry.Store) {
	ctx := context.Background()
	mustDeclare(t, s, "srv", tool("search", schemaV1))
	mustDeclare(t, s, "srv", registry.Tool{Name: "search", InputSchema: json.RawMessage(schemaV2), OutputSchema: json.RawMessage(outputV1)})

	v1, err := s.ResolveTool(ctx, "srv/search", 1)
	if err != nil {
		t.Fatal(err)
	}
	if v1.Version != 1 || v1.Output != nil || v1.Input == nil || v1.Digest != versionDigest(t, v1.Input, nil) {
		t.Errorf("version 1 = %+v", v1)
	}
	cur, err := s.ResolveTool(ctx, "search", 0)
	if err != nil {
		t.Fatal(err)
	}
	if cur.Version != 2 || cur.Output == nil || cur.QualifiedName() != "srv/search" || cur.Digest != versionDigest(t, cur.Input, cur.Output) {
		t.Errorf("current = %+v", cur)
	}
	// The compiled schema validates: the registry hands out usable schemas.
	if err := cur.Input.Validate(map[string]any{"q": "x"}); err != nil {
		t.Errorf("valid instance refused: %v", err)
	}
	if err := cur.Input.Validate(map[string]any{}); err == nil {
		t.Error("instance without the required q accepted")
	}
	_, err = s.ResolveTool(ctx, "srv/search", 3)
	wantErr(t, err, registry.ErrNotFound)
}

func testConcurrentDeclare(t *testing.T, s registry.Store) {
	const n = 8
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			input := fmt.Sprintf(`{"type":"object","properties":{"p%d":{"type":"string"}}}`, i)
			if _, err := s.DeclareTool(context.Background(), "srv", tool("busy", input)); err != nil {
				errs <- err
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	versions, err := s.ListVersions(context.Background(), "srv/busy")
	if err != nil {
		t.Fatal(err)
	}
	digests := map[string]bool{}
	for i, v := range versions {
		if v.Version != i+1 {
			t.Errorf("version %d numbered %d", i+1, v.Version)
		}
		digests[v.Digest] = true
	}
	if len(versions) != n || len(digests) != n {
		t.Errorf("%d versions with %d digests, want %d of each", len(versions), len(digests), n)
	}
}

func testSnapshots(t *testing.T, s registry.Store) {
	ctx := context.Background()
	_, err := s.ApprovedSnapshot(ctx, "srv")
	wantErr(t, err, registry.ErrNotFound)

	first := []registry.Tool{tool("b_search", schemaV1), tool("a_fetch", schemaV1), tool("c_gone", schemaV1)}
	snap1, err := s.ImportSnapshot(ctx, "srv", "tools-v1.json", first)
	if err != nil {
		t.Fatal(err)
	}
	if snap1.ID == 0 || snap1.Source != "tools-v1.json" || !snap1.ApprovedAt.IsZero() || len(snap1.Tools) != 3 {
		t.Fatalf("imported = %+v", snap1)
	}
	got, err := s.Snapshot(ctx, "srv", snap1.ID)
	if err != nil || got.Digest != snap1.Digest || toolNames(got.Tools) != "b_search a_fetch c_gone" {
		t.Fatalf("Snapshot = %+v, %v; want the tools in listed order", got, err)
	}
	_, err = s.Snapshot(ctx, "other", snap1.ID)
	wantErr(t, err, registry.ErrNotFound)

	a1, err := s.ApproveSnapshot(ctx, "srv", snap1.ID)
	if err != nil {
		t.Fatal(err)
	}
	if a1.Snapshot.ApprovedAt.IsZero() || len(a1.Declared) != 3 || len(a1.Removed) != 0 {
		t.Fatalf("first approval = %+v", a1)
	}

	// The server changes: c_gone removed, b_search changed, d_new added.
	second := []registry.Tool{tool("a_fetch", schemaV1), tool("b_search", schemaV2), tool("d_new", schemaV1)}
	snap2, err := s.ImportSnapshot(ctx, "srv", "tools-v2.json", second)
	if err != nil {
		t.Fatal(err)
	}
	if snap2.Digest == snap1.Digest {
		t.Error("different lists share a digest")
	}
	// Approving it replaces the registry's content for srv, and only srv.
	mustDeclare(t, s, "elsewhere", tool("c_gone", schemaV1))
	a2, err := s.ApproveSnapshot(ctx, "srv", snap2.ID)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(a2.Removed, []string{"srv/c_gone"}) {
		t.Errorf("removed = %v, want [srv/c_gone]", a2.Removed)
	}
	var created []string
	for _, d := range a2.Declared {
		if d.Created {
			created = append(created, fmt.Sprintf("%s@%d", d.Version.Name, d.Version.Version))
		}
	}
	if !slices.Equal(created, []string{"b_search@2", "d_new@1"}) {
		t.Errorf("created versions = %v", created)
	}
	_, err = s.ResolveTool(ctx, "srv/c_gone", 0)
	wantErr(t, err, registry.ErrNotFound)
	if rt, err := s.ResolveTool(ctx, "c_gone", 0); err != nil || rt.Server != "elsewhere" {
		t.Errorf("bare c_gone = %+v, %v; want the one left at elsewhere", rt, err)
	}
	list, _ := s.ListTools(ctx)
	var names []string
	for _, r := range list {
		names = append(names, r.QualifiedName())
	}
	if want := []string{"elsewhere/c_gone", "srv/a_fetch", "srv/b_search", "srv/d_new"}; !slices.Equal(names, want) {
		t.Errorf("tools = %v, want %v", names, want)
	}

	approved, err := s.ApprovedSnapshot(ctx, "srv")
	if err != nil || approved.ID != snap2.ID {
		t.Errorf("approved = %+v, %v; want snapshot %d", approved, err, snap2.ID)
	}
	_, err = s.ApproveSnapshot(ctx, "srv", snap1.ID)
	wantErr(t, err, registry.ErrConflict)
	again, err := s.ApproveSnapshot(ctx, "srv", snap2.ID)
	if err != nil || len(again.Removed) != 0 || !again.Snapshot.ApprovedAt.Equal(a2.Snapshot.ApprovedAt) {
		t.Errorf("re-approval = %+v, %v; want a no-op", again, err)
	}
	for _, d := range again.Declared {
		if d.Created {
			t.Errorf("re-approval created %s@%d", d.Version.Name, d.Version.Version)
		}
	}

	// Snapshots keep every declaration byte for byte, as declarations do:
	// whitespace, key order, and characters JSON encoders like to escape.
	verbatim := registry.Tool{Name: "verbatim", Description: "a <b> & c",
		InputSchema:  json.RawMessage("{ \"type\" : \"object\",\n \"description\": \"x < y & z\" }"),
		OutputSchema: json.RawMessage(`{"type":"object", "title":"<out>"}`), Annotations: json.RawMessage(`{ "readOnlyHint" : true }`)}
	snap3, err := s.ImportSnapshot(ctx, "verbatim_srv", "", []registry.Tool{verbatim})
	if err != nil {
		t.Fatal(err)
	}
	stored, err := s.Snapshot(ctx, "verbatim_srv", snap3.ID)
	if err != nil {
		t.Fatal(err)
	}
	got3 := stored.Tools[0]
	if string(got3.InputSchema) != string(verbatim.InputSchema) || string(got3.OutputSchema) != string(verbatim.OutputSchema) ||
		string(got3.Annotations) != string(verbatim.Annotations) || got3.Description != verbatim.Description {
		t.Errorf("snapshot rewrote the declaration:\n got %s %s %s\nwant %s %s %s",
			got3.InputSchema, got3.OutputSchema, got3.Annotations, verbatim.InputSchema, verbatim.OutputSchema, verbatim.Annotations)
	}
	if _, err := s.ApproveSnapshot(ctx, "verbatim_srv", snap3.ID); err != nil {
		t.Fatal(err)
	}
	if v, err := s.ToolVersion(ctx, "verbatim_srv/verbatim", 1); err != nil || string(v.InputSchema) != string(verbatim.InputSchema) {
		t.Errorf("approved version input = %s, %v; want it verbatim %s", v.InputSchema, err, verbatim.InputSchema)
	}

	// A removed tool declared again comes back with its history.
	back := mustDeclare(t, s, "srv", tool("c_gone", schemaV1))
	if back.Created || back.Version.Version != 1 {
		t.Errorf("revived = %+v, want version 1 unchanged", back)
	}
	if _, err := s.ResolveTool(ctx, "srv/c_gone", 0); err != nil {
		t.Errorf("revived tool does not resolve: %v", err)
	}
}

func testRefusedSnapshot(t *testing.T, s registry.Store) {
	ctx := context.Background()
	tools := []registry.Tool{
		tool("fine", schemaV1),
		{Name: "has space", InputSchema: json.RawMessage(schemaV1)},
		{Name: "nullish", InputSchema: json.RawMessage(`null`)},
		{Name: "no_schema"},
		tool("fine", schemaV2),
	}
	snap, err := s.ImportSnapshot(ctx, "srv", "", tools)
	if err != nil {
		t.Fatalf("a snapshot with problems must still import: %v", err)
	}
	_, err = s.ApproveSnapshot(ctx, "srv", snap.ID)
	var de *registry.DeclarationError
	if !errors.As(err, &de) {
		t.Fatalf("approval error = %v, want a *DeclarationError", err)
	}
	var got []string
	for _, p := range de.Problems {
		got = append(got, p.Tool+":"+p.Code)
	}
	want := []string{"has space:invalid_name", "nullish:null_input_schema", "no_schema:missing_input_schema", "fine:duplicate_name"}
	if !slices.Equal(got, want) {
		t.Errorf("problems = %v, want %v", got, want)
	}
	if list, _ := s.ListTools(ctx); len(list) != 0 {
		t.Errorf("a refused approval declared %d tools", len(list))
	}
	_, err = s.ApprovedSnapshot(ctx, "srv")
	wantErr(t, err, registry.ErrNotFound)
	_, err = s.ImportSnapshot(ctx, "bad server", "", nil)
	wantErr(t, err, registry.ErrInvalidDeclaration)
	_, err = s.ApproveSnapshot(ctx, "srv", snap.ID+1000)
	wantErr(t, err, registry.ErrNotFound)
}

const definition = `{"edges":[{"from":"search","to":"fetch","map":{"hits":"q"}}]}`

func testCompositions(t *testing.T, s registry.Store) {
	ctx := context.Background()
	for _, bad := range []struct{ name, def string }{
		{"has space", definition},
		{"", definition},
		{"ok", `[1]`},
		{"ok", `{"a":`},
		{"ok", ``},
		{"ok", "{\"a\":\"\xff\"}"},
	} {
		_, err := s.PutComposition(ctx, bad.name, json.RawMessage(bad.def))
		wantErr(t, err, registry.ErrInvalidComposition)
	}
	c, err := s.PutComposition(ctx, "pipeline", json.RawMessage(definition))
	if err != nil {
		t.Fatal(err)
	}
	if c.Name != "pipeline" || string(c.Definition) != definition || !strings.HasPrefix(c.Digest, "sha256:") || c.Validation != nil {
		t.Fatalf("stored = %+v", c)
	}
	if _, err := s.PutComposition(ctx, "another", json.RawMessage(`{}`)); err != nil {
		t.Fatal(err)
	}
	list, err := s.ListCompositions(ctx)
	if err != nil || len(list) != 2 || list[0].Name != "another" || list[1].Name != "pipeline" {
		t.Fatalf("list = %+v, %v", list, err)
	}
	_, err = s.Composition(ctx, "missing")
	wantErr(t, err, registry.ErrNotFound)
	_, err = s.Definition(ctx, "missing")
	wantErr(t, err, registry.ErrNotFound)
	if def, err := s.Definition(ctx, "pipeline"); err != nil || string(def) != definition {
		t.Errorf("Definition = %s, %v", def, err)
	}

	err = s.RecordValidation(ctx, "missing", registry.Validation{DefinitionDigest: c.Digest})
	wantErr(t, err, registry.ErrNotFound)
	err = s.RecordValidation(ctx, "pipeline", registry.Validation{DefinitionDigest: "sha256:other"})
	wantErr(t, err, registry.ErrConflict)

	issues := json.RawMessage(`[{"severity":"warning","code":"untyped_source","message":"m"}]`)
	// Recorded sorted by server, name, version, each once.
	given := []registry.ToolRef{
		{Server: "srv", Name: "search", Version: 2, Digest: "sha256:b", Pinned: true},
		{Name: "bare", Version: 1, Digest: "sha256:c"},
		{Server: "srv", Name: "search", Version: 1, Digest: "sha256:a"},
		{Name: "bare", Version: 1, Digest: "sha256:c"},
	}
	refs := []registry.ToolRef{given[1], given[2], given[0]}
	if err := s.RecordValidation(ctx, "pipeline", registry.Validation{DefinitionDigest: c.Digest, Valid: true, Issues: issues, Tools: given}); err != nil {
		t.Fatal(err)
	}
	got, err := s.Composition(ctx, "pipeline")
	if err != nil || got.Validation == nil {
		t.Fatalf("after validation = %+v, %v", got, err)
	}
	v := got.Validation
	if !v.Valid || v.ValidatedAt.IsZero() || !slices.Equal(v.Tools, refs) || !jsonEqual(v.Issues, issues) {
		t.Errorf("validation = %+v", v)
	}
	// The same definition respelled keeps the validation.
	same, err := s.PutComposition(ctx, "pipeline", json.RawMessage("{ \"edges\" : [{\"map\":{\"hits\":\"q\"},\"to\":\"fetch\",\"from\":\"search\"}] }"))
	if err != nil || same.Validation == nil || same.Digest != c.Digest {
		t.Errorf("respelled put = %+v, %v; want the validation kept", same, err)
	}
}

// testReferenceStaleness: a validation flattened the definitions of the
// stored compositions it references; one changed since (or stored under a
// name that had none) makes it stale, as a changed tool does.
func testReferenceStaleness(t *testing.T, s registry.Store) {
	ctx := context.Background()
	put := func(name, def string) registry.Composition {
		t.Helper()
		c, err := s.PutComposition(ctx, name, json.RawMessage(def))
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	inner := put("inner", `{"edges":[{"from":"a","to":"b","map":{"x":"x"}}]}`)
	outer := put("outer", `{"nodes":[{"id":"s","composition":"inner"},{"id":"m","composition":"missing"}]}`)
	refs := []registry.CompositionRef{{Name: "missing"}, {Name: "inner", Digest: inner.Digest}, {Name: "inner", Digest: inner.Digest}}
	if err := s.RecordValidation(ctx, "outer", registry.Validation{DefinitionDigest: outer.Digest, Valid: true, Compositions: refs}); err != nil {
		t.Fatal(err)
	}
	if err := s.RecordValidation(ctx, "inner", registry.Validation{DefinitionDigest: inner.Digest, Valid: true}); err != nil {
		t.Fatal(err)
	}
	got, err := s.Composition(ctx, "outer")
	if err != nil || got.Validation == nil {
		t.Fatalf("outer = %+v, %v", got, err)
	}
	// Recorded sorted by name, each once.
	if want := []registry.CompositionRef{refs[1], refs[0]}; !slices.Equal(got.Validation.Compositions, want) {
		t.Errorf("recorded compositions = %+v, want %+v", got.Validation.Compositions, want)
	}
	assertStale(t, s)

	// The same definition respelled is no change.
	put("inner", "{ \"edges\": [{\"map\": {\"x\": \"x\"}, \"to\": \"b\", \"from\": \"a\"}] }")
	assertStale(t, s)
	// Another definition of inner: outer's validation no longer stands.
	put("inner", `{"edges":[{"from":"a","to":"b","map":{"x":"y"}}]}`)
	assertStale(t, s, "inner", "outer")
	fresh, err := s.Freshness(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range fresh {
		if f.Composition == "outer" && (!f.Stale || f.ToolsChangedAt.Before(f.ValidatedAt)) {
			t.Errorf("outer freshness = %+v, want stale by a change after its validation", f)
		}
	}
	// Revalidated against the new inner, it is fresh again; a composition
	// stored under the name that had none makes it stale once more.
	inner2, err := s.Composition(ctx, "inner")
	if err != nil {
		t.Fatal(err)
	}
	refs = []registry.CompositionRef{{Name: "inner", Digest: inner2.Digest}, {Name: "missing"}}
	if err := s.RecordValidation(ctx, "outer", registry.Validation{DefinitionDigest: outer.Digest, Valid: true, Compositions: refs}); err != nil {
		t.Fatal(err)
	}
	assertStale(t, s, "inner")
	put("missing", `{}`)
	assertStale(t, s, "inner", "missing", "outer")
}

func testStaleness(t *testing.T, s registry.Store) {
	ctx := context.Background()
	a := mustDeclare(t, s, "srv", tool("search", schemaV1)).Version
	b := mustDeclare(t, s, "srv", tool("fetch", schemaV1)).Version
	pinnedTool := mustDeclare(t, s, "srv", tool("pinned", schemaV1)).Version
	validate := func(name string, refs ...registry.ToolRef) {
		t.Helper()
		c, err := s.PutComposition(ctx, name, json.RawMessage(`{"name":"`+name+`"}`))
		if err != nil {
			t.Fatal(err)
		}
		if err := s.RecordValidation(ctx, name, registry.Validation{DefinitionDigest: c.Digest, Valid: true, Tools: refs}); err != nil {
			t.Fatal(err)
		}
	}
	ref := func(v registry.ToolVersion) registry.ToolRef {
		return registry.ToolRef{Server: v.Server, Name: v.Name, Version: v.Version, Digest: v.Digest}
	}
	validate("uses_search", ref(a))
	validate("uses_fetch", ref(b))
	pin := ref(pinnedTool)
	pin.Pinned = true
	validate("pins", pin)
	if _, err := s.PutComposition(ctx, "never", json.RawMessage(`{}`)); err != nil {
		t.Fatal(err)
	}
	assertStale(t, s, "never")

	// A new version of search makes uses_search stale; the pinned one stays.
	mustDeclare(t, s, "srv", tool("search", schemaV2))
	mustDeclare(t, s, "srv", tool("pinned", schemaV2))
	assertStale(t, s, "never", "uses_search")

	fresh, err := s.Freshness(ctx)
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string]registry.Freshness{}
	for _, f := range fresh {
		byName[f.Composition] = f
	}
	if len(fresh) != 4 {
		t.Fatalf("freshness of %d compositions, want 4: %+v", len(fresh), fresh)
	}
	if f := byName["uses_search"]; !f.Stale || f.ValidatedAt.IsZero() || f.ToolsChangedAt.Before(f.ValidatedAt) {
		t.Errorf("uses_search freshness = %+v, want a tool change after validation", f)
	}
	if f := byName["uses_fetch"]; f.Stale || f.ToolsChangedAt.After(f.ValidatedAt) || f.ToolsChangedAt.IsZero() {
		t.Errorf("uses_fetch freshness = %+v, want its tool unchanged since validation", f)
	}
	if f := byName["never"]; !f.Stale || !f.ValidatedAt.IsZero() || f.Age(f.ValidatedAt) != 0 {
		t.Errorf("never freshness = %+v", f)
	}

	// Removing a tool (by approving a snapshot without it) makes its users
	// stale, pinned or not.
	snap, err := s.ImportSnapshot(ctx, "srv", "", []registry.Tool{tool("search", schemaV2)})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.ApproveSnapshot(ctx, "srv", snap.ID); err != nil {
		t.Fatal(err)
	}
	assertStale(t, s, "never", "pins", "uses_fetch", "uses_search")

	// A changed definition is stale even against unchanged tools.
	validate("uses_search", ref(mustDeclare(t, s, "srv", tool("search", schemaV2)).Version))
	assertStale(t, s, "never", "pins", "uses_fetch")
	if _, err := s.PutComposition(ctx, "uses_search", json.RawMessage(`{"changed":true}`)); err != nil {
		t.Fatal(err)
	}
	assertStale(t, s, "never", "pins", "uses_fetch", "uses_search")
}

func testWatch(t *testing.T, s registry.Store) {
	ctx := context.Background()
	var mu sync.Mutex
	var heard []string
	s.Watch(func(c registry.Change) {
		mu.Lock()
		defer mu.Unlock()
		heard = append(heard, fmt.Sprintf("%s@%d", registry.QualifiedName(c.Server, c.Name), c.Version))
	})
	mustDeclare(t, s, "srv", tool("search", schemaV1))          // new: version 1
	mustDeclare(t, s, "srv", tool("search", schemaV1Respelled)) // no-op: silent
	meta := tool("search", schemaV1)
	meta.Title = "Search"
	mustDeclare(t, s, "srv", meta)                     // metadata: same version
	mustDeclare(t, s, "srv", tool("search", schemaV2)) // version 2
	mustDeclare(t, s, "srv", tool("gone", schemaV1))
	if _, err := s.DeclareTool(ctx, "srv", registry.Tool{Name: "bad name"}); err == nil {
		t.Fatal("a refused declaration was accepted")
	}
	snap, err := s.ImportSnapshot(ctx, "srv", "", []registry.Tool{tool("search", schemaV2)})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.ApproveSnapshot(ctx, "srv", snap.ID); err != nil { // search unchanged, gone removed
		t.Fatal(err)
	}
	if _, err := s.PutComposition(ctx, "c", json.RawMessage(`{}`)); err != nil { // not a tool change
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	want := []string{"srv/search@1", "srv/search@1", "srv/search@2", "srv/gone@1", "srv/gone@0"}
	if !slices.Equal(heard, want) {
		t.Errorf("watchers heard %v, want %v", heard, want)
	}
}

// Values a store returns are the caller's: changing them changes nothing
// stored.
func testCopies(t *testing.T, s registry.Store) {
	ctx := context.Background()
	tl := tool("search", schemaV1)
	tl.Annotations = json.RawMessage(`{"readOnlyHint":true}`)
	d := mustDeclare(t, s, "srv", tl)
	tl.InputSchema[0], tl.Annotations[0] = 'X', 'X'
	d.Version.InputSchema[0] = 'X'
	rec, err := s.Tool(ctx, "srv/search")
	if err != nil {
		t.Fatal(err)
	}
	rec.Declaration.InputSchema[0], rec.Declaration.Annotations[0] = 'X', 'X'
	versions, err := s.ListVersions(ctx, "srv/search")
	if err != nil {
		t.Fatal(err)
	}
	versions[0].InputSchema[0] = 'X'
	snap, err := s.ImportSnapshot(ctx, "srv", "", []registry.Tool{tool("search", schemaV1)})
	if err != nil {
		t.Fatal(err)
	}
	snap.Tools[0].InputSchema[0] = 'X'
	c, err := s.PutComposition(ctx, "c", json.RawMessage(definition))
	if err != nil {
		t.Fatal(err)
	}
	c.Definition[0] = 'X'

	rec, err = s.Tool(ctx, "srv/search")
	if err != nil || string(rec.Declaration.InputSchema) != schemaV1 || string(rec.Declaration.Annotations) != `{"readOnlyHint":true}` {
		t.Errorf("stored tool = %s %s, %v; callers' edits leaked in", rec.Declaration.InputSchema, rec.Declaration.Annotations, err)
	}
	if v, err := s.ToolVersion(ctx, "srv/search", 1); err != nil || string(v.InputSchema) != schemaV1 {
		t.Errorf("stored version = %s, %v; callers' edits leaked in", v.InputSchema, err)
	}
	if got, err := s.Snapshot(ctx, "srv", snap.ID); err != nil || string(got.Tools[0].InputSchema) != schemaV1 {
		t.Errorf("stored snapshot = %+v, %v; callers' edits leaked in", got.Tools, err)
	}
	if def, err := s.Definition(ctx, "c"); err != nil || string(def) != definition {
		t.Errorf("stored definition = %s, %v; callers' edits leaked in", def, err)
	}
}

// A name from a URL or a request may hold NUL or bytes that are not UTF-8:
// no such tool, snapshot or composition can exist.
func testUnstorableNames(t *testing.T, s registry.Store) {
	ctx := context.Background()
	mustDeclare(t, s, "srv", tool("search", schemaV1))
	lookups := map[string]func(name string) error{
		"ResolveTool":      func(n string) error { _, err := s.ResolveTool(ctx, n, 0); return err },
		"Tool":             func(n string) error { _, err := s.Tool(ctx, n); return err },
		"ToolVersion":      func(n string) error { _, err := s.ToolVersion(ctx, n, 1); return err },
		"ListVersions":     func(n string) error { _, err := s.ListVersions(ctx, n); return err },
		"Snapshot":         func(n string) error { _, err := s.Snapshot(ctx, n, 1); return err },
		"ApprovedSnapshot": func(n string) error { _, err := s.ApprovedSnapshot(ctx, n); return err },
		"ApproveSnapshot":  func(n string) error { _, err := s.ApproveSnapshot(ctx, n, 1); return err },
		"Composition":      func(n string) error { _, err := s.Composition(ctx, n); return err },
		"Definition":       func(n string) error { _, err := s.Definition(ctx, n); return err },
		"CompositionFreshness": func(n string) error {
			_, err := s.CompositionFreshness(ctx, n)
			return err
		},
		"RecordValidation": func(n string) error { return s.RecordValidation(ctx, n, registry.Validation{}) },
	}
	for _, name := range []string{"sea\x00rch", "srv\x00/search", "srv/se\xffarch", "\xff"} {
		for method, lookup := range lookups {
			if err := lookup(name); !errors.Is(err, registry.ErrNotFound) {
				t.Errorf("%s(%q) = %v, want ErrNotFound", method, name, err)
			}
		}
	}
}

func assertStale(t *testing.T, s registry.Store, want ...string) {
	t.Helper()
	stale, err := s.StaleCompositions(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, c := range stale {
		got = append(got, c.Name)
	}
	if !slices.Equal(got, want) {
		t.Errorf("stale = %v, want %v", got, want)
	}
	// Each composition's own freshness is its entry of the whole list.
	all, err := s.Freshness(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range all {
		one, err := s.CompositionFreshness(context.Background(), f.Composition)
		if err != nil || one.Composition != f.Composition || one.Stale != f.Stale ||
			!one.ValidatedAt.Equal(f.ValidatedAt) || !one.ToolsChangedAt.Equal(f.ToolsChangedAt) {
			t.Errorf("CompositionFreshness(%s) = %+v, %v; Freshness has %+v", f.Composition, one, err, f)
		}
	}
}

func toolNames(tools []registry.Tool) string {
	names := make([]string, len(tools))
	for i, t := range tools {
		names[i] = t.Name
	}
	return strings.Join(names, " ")
}

func jsonEqual(a, b json.RawMessage) bool {
	var va, vb any
	if json.Unmarshal(a, &va) != nil || json.Unmarshal(b, &vb) != nil {
		return false
	}
	ja, _ := json.Marshal(va)
	jb, _ := json.Marshal(vb)
	return string(ja) == string(jb)
}

func versionDigest(t *testing.T, in, out *schema.Schema) string {
	t.Helper()
	d, err := registry.VersionDigest(in, out)
	if err != nil {
		t.Fatal(err)
	}
	return d
}
