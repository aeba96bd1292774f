package registry

import (
	"context"
	"errors"
	"github.com/typeward/typeward/internal/corpus"
	"strings"
	"testing"
)

func testCatalog(t *testing.T) *Catalog {
	t.Helper()
	servers, err := ParseToolsFile([]byte(`{"servers":[
		{"server":"gh","tools":[{"name":"search","inputSchema":{"type":"object"},"outputSchema":{"type":"object"}},{"name":"only_here","inputSchema":{"type":"object"}}]},
		{"server":"gl","tools":[{"name":"search","inputSchema":{"type":"object","properties":{"q":{"type":"string"}}}},
			{"name":"whoami","inputSchema":{}},
			{"name":"list","inputSchema":{"type":"array"}},
			{"name":"broken","inputSchema":{"type":"object","properties":{"a":{"$ref":"https://example.com/s.json"}}}},
			{"name":"bad_output","inputSchema":{"type":"object"},"outputSchema":{"type":7}}]}]}`))
	if err != nil {
		t.Fatal(err)
	}
	return NewCatalog(servers)
}

func TestCatalogResolve(t *testing.T) {
	c := testCatalog(t)
	ctx := context.Background()
	tests := []struct {
		name    string
		version int
		want    string // qualified name
		err     error
		msg     string
	}{
		{"gh/search", 0, "gh/search", nil, ""},
		{"gl/search", 1, "gl/search", nil, ""},
		{"only_here", 0, "gh/only_here", nil, ""},
		{"search", 0, "", ErrAmbiguous, "declared by gh/search, gl/search"},
		{"nosuch", 0, "", ErrNotFound, "tool nosuch"},
		{"gh/nosuch", 0, "", ErrNotFound, ""},
		{"gh/search", 2, "", ErrNotFound, "version 1 only"},
		{"whoami", 0, "", ErrNotFound, `whoami: non_object_input_schema: inputSchema has no type: MCP requires type "object"`},
		{"list", 0, "", ErrNotFound, `tool gl/list is declared but refused: invalid tool declaration: list: non_object_input_schema at /type`},
		{"gl/broken", 0, "", ErrNotFound, "invalid_input_schema"},
		{"bad_output", 0, "", ErrNotFound, "invalid_output_schema"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := c.ResolveTool(ctx, tt.name, tt.version)
			if tt.err != nil {
				if !errors.Is(err, tt.err) || !strings.Contains(err.Error(), tt.msg) {
					t.Fatalf("got %v, want %v containing %q", err, tt.err, tt.msg)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if v, err := VersionDigest(got.Input, got.Output); err != nil || got.QualifiedName() != tt.want || got.Version != 1 || got.Input == nil || got.Digest != v {
				t.Errorf("got %+v", got)
			}
		})
	}
	if c.Len() != 3 || len(c.Refused()) != 4 || c.Refused()[0].Tool != "gl/bad_output" {
		t.Errorf("%d usable, refused %v", c.Len(), c.Refused())
	}
}

func TestCatalogResolvedToolsAreCopies(t *testing.T) {
	c := testCatalog(t)
	a, _ := c.ResolveTool(context.Background(), "gh/search", 0)
	a.Name = "changed"
	b, _ := c.ResolveTool(context.Background(), "gh/search", 0)
	if b.Name != "search" {
		t.Error("a caller changed the catalog")
	}
}

// Every tool of the corpus loads, except the two whose schemas do not
// compile (draft-07 tuple items without a $schema).
func TestCatalogCorpus(t *testing.T) {
	data := corpus.RealTools()
	servers, err := ParseToolsFile(data)
	if err != nil {
		t.Fatal(err)
	}
	c := NewCatalog(servers)
	var refused []string
	for _, r := range c.Refused() {
		refused = append(refused, r.Tool)
	}
	want := "sentry-mcp:catalog/create_uptime_monitor sentry-mcp:catalog/update_uptime_monitor sentry-mcp:catalog/whoami"
	if strings.Join(refused, " ") != want || c.Len() != 294 {
		t.Errorf("%d loaded, refused %v; want 294 and %s", c.Len(), refused, want)
	}
	if _, err := c.ResolveTool(context.Background(), "search_issues", 0); !errors.Is(err, ErrAmbiguous) {
		t.Errorf("search_issues is declared by two servers: %v", err)
	}
}
