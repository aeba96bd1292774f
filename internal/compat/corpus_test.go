package compat

import (
	"encoding/json"
	"fmt"
	realtools "github.com/typeward/typeward/internal/corpus"
	"slices"
	"sync"
	"testing"

	"github.com/typeward/typeward/internal/schema"
	"github.com/typeward/typeward/internal/verdict"
)

// corpusTool is one tool of real-tools.json with its loaded schemas (nil
// when absent or refused by the loader).
type corpusTool struct {
	server, name string
	in, out      *schema.Schema
}

// corpus is the real corpus, loaded once for every test and benchmark of
// the package: its schemas are immutable (each compiles a subschema once),
// and parsing 600 of them per test cost seconds under -race.
var corpus struct {
	once  sync.Once
	tools []corpusTool
	err   error
}

func loadCorpus(t testing.TB) []corpusTool {
	t.Helper()
	corpus.once.Do(func() { corpus.tools, corpus.err = readCorpus() })
	if corpus.err != nil {
		t.Fatal(corpus.err)
	}
	return slices.Clone(corpus.tools)
}

func readCorpus() ([]corpusTool, error) {
	raw := realtools.RealTools()
	var doc struct {
		Servers []struct {
			Server string `json:"server"`
			Tools  []struct {
				Name         string          `json:"name"`
				InputSchema  json.RawMessage `json:"inputSchema"`
				OutputSchema json.RawMessage `json:"outputSchema"`
			} `json:"tools"`
		} `json:"servers"`
	}
	if err := json.Unmarshal(raw, &doc); err != nil {
		return nil, fmt.Errorf("decode corpus: %v", err)
	}
	var tools []corpusTool
	for _, s := range doc.Servers {
		for _, tl := range s.Tools {
			ct := corpusTool{server: s.Server, name: tl.Name}
			if len(tl.InputSchema) > 0 {
				ct.in, _ = schema.Parse(tl.InputSchema) // a refused schema is skipped
			}
			if len(tl.OutputSchema) > 0 {
				ct.out, _ = schema.Parse(tl.OutputSchema)
			}
			tools = append(tools, ct)
		}
	}
	return tools, nil
}

func findTool(t testing.TB, tools []corpusTool, server, name string) corpusTool {
	t.Helper()
	i := slices.IndexFunc(tools, func(c corpusTool) bool { return c.server == server && c.name == name })
	if i < 0 {
		t.Fatalf("corpus has no %s %s", server, name)
	}
	return tools[i]
}

// corpusPairs lists (output field, input field) pairs drawn from the
// corpus: every whole output against every whole input, then every
// top-level output property against every input property of the same name
// (namedFieldPairs).
func corpusPairs(tools []corpusTool) [][2]Node {
	var pairs [][2]Node
	for _, o := range tools {
		if o.out == nil {
			continue
		}
		for _, i := range tools {
			if i.in != nil {
				pairs = append(pairs, [2]Node{{o.out, ""}, {i.in, ""}})
			}
		}
	}
	return append(pairs, namedFieldPairs(tools)...)
}

// TestCorpusPairs checks every drawn pair without panic, gets the same
// answer from a second checker, and sees all three outcomes.
func TestCorpusPairs(t *testing.T) {
	tools := loadCorpus(t)
	loadedIn, loadedOut := 0, 0
	for _, tl := range tools {
		if tl.in != nil {
			loadedIn++
		}
		if tl.out != nil {
			loadedOut++
		}
	}
	if loadedIn < 290 || loadedOut < 50 {
		t.Fatalf("corpus loaded only %d input and %d output schemas", loadedIn, loadedOut)
	}
	pairs := corpusPairs(tools)
	c, fresh := NewChecker(), NewChecker()
	counts := map[verdict.Verdict]int{}
	for i, p := range pairs {
		issues := c.Check(p[0], p[1], Options{SourceLabel: "out", TargetLabel: "in"})
		if i%5 == 0 {
			// Deterministic: a second checker, the reverse pair in between.
			fresh.Check(p[1], p[0], Options{})
			if again := fresh.Check(p[0], p[1], Options{SourceLabel: "out", TargetLabel: "in"}); !slices.Equal(summarize(again), summarize(issues)) {
				t.Fatalf("pair %d answered differently:\n%q\n%q", i, summarize(issues), summarize(again))
			}
		}
		for _, is := range issues.Issues {
			if is.Message == "" || is.Code == "" {
				t.Fatalf("issue without code or message: %+v", is)
			}
		}
		counts[issues.Verdict]++
	}
	t.Logf("%d corpus pairs: %v", len(pairs), counts)
	for _, o := range []verdict.Verdict{verdict.Compatible, verdict.Incompatible} {
		if counts[o] == 0 {
			t.Errorf("no corpus pair was %s", o)
		}
	}
}

// TestCorpusExpectations pins the verdict on real pairs a pipeline would
// wire.
func TestCorpusExpectations(t *testing.T) {
	tools := loadCorpus(t)
	sentry := "sentry-mcp"
	orgs := findTool(t, tools, sentry, "find_organizations")
	projects := findTool(t, tools, sentry, "find_projects")
	readFile := findTool(t, tools, "modelcontextprotocol/servers:filesystem", "read_file")
	writeFile := findTool(t, tools, "modelcontextprotocol/servers:filesystem", "write_file")
	readGraph := findTool(t, tools, "modelcontextprotocol/servers:memory", "read_graph")
	createEntities := findTool(t, tools, "modelcontextprotocol/servers:memory", "create_entities")
	cases := []nodeCase{
		{name: "organization slug feeds organizationSlug",
			src: Node{orgs.out, "/properties/organizations/items/properties/slug"}, tgt: Node{projects.in, "/properties/organizationSlug"}},
		{name: "nullable regionUrl feeds nullable regionUrl",
			src: Node{orgs.out, "/properties/organizations/items/properties/regionUrl"}, tgt: Node{projects.in, "/properties/regionUrl"}},
		{name: "file content feeds file content",
			src: Node{readFile.out, "/properties/content"}, tgt: Node{writeFile.in, "/properties/content"}},
		{name: "a graph's entities feed create_entities",
			src: Node{readGraph.out, "/properties/entities"}, tgt: Node{createEntities.in, "/properties/entities"}},
		{name: "organizations are not a slug",
			src: Node{orgs.out, "/properties/organizations"}, tgt: Node{projects.in, "/properties/organizationSlug"},
			opts: Options{SourceLabel: "organizations", TargetLabel: "organizationSlug"},
			want: []string{"incompatible type_mismatch /properties/organizations/type /properties/organizationSlug/type: organizations is array but organizationSlug expects string [witness [] rejected at /properties/organizationSlug/type]"}},
		{name: "nullable regionUrl into a plain string",
			src: Node{orgs.out, "/properties/organizations/items/properties/regionUrl"}, tgt: Node{projects.in, "/properties/organizationSlug"},
			opts: Options{SourceLabel: "organizations[].regionUrl", TargetLabel: "organizationSlug"},
			want: []string{"incompatible may_be_null /properties/organizations/items/properties/regionUrl/anyOf/1/type /properties/organizationSlug/type: organizations[].regionUrl may be null but organizationSlug does not accept null [witness null rejected at /properties/organizationSlug/type]"}},
	}
	runNodeCases(t, cases)
}
