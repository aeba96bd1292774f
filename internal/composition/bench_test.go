package composition

import (
	"context"
	"encoding/json"
	"fmt"
	"github.com/typeward/typeward/internal/corpus"
	"runtime"
	"slices"
	"testing"

	"github.com/typeward/typeward/internal/compat"
	"github.com/typeward/typeward/internal/registry"
)

// benchTool is a corpus tool usable on both ends of an edge.
type benchTool struct {
	name   string
	output string // first output property
	input  string // first input property
}

// corpusPipelineTools picks the corpus tools with output and input
// properties, in a fixed order.
func corpusPipelineTools(b *testing.B, cat *registry.Catalog) []benchTool {
	b.Helper()
	servers := loadServers(b)
	var tools []benchTool
	for _, s := range servers {
		for _, tool := range s.Tools {
			rt, err := cat.ResolveTool(context.Background(), registry.QualifiedName(s.Server, tool.Name), 0)
			if err != nil || rt.Output == nil {
				continue
			}
			out := propertyNames(rt.Output.Root)
			in := propertyNames(rt.Input.Root)
			if len(out) == 0 || len(in) == 0 {
				continue
			}
			tools = append(tools, benchTool{rt.QualifiedName(), out[0], in[0]})
		}
	}
	if len(tools) < 10 {
		b.Fatalf("only %d corpus tools have output and input properties", len(tools))
	}
	return tools
}

func propertyNames(root any) []string {
	obj, _ := root.(map[string]any)
	props, _ := obj["properties"].(map[string]any)
	names := make([]string, 0, len(props))
	for k := range props {
		names = append(names, k)
	}
	slices.Sort(names)
	return names
}

// dagOf builds a layered DAG with the given number of edges: node i feeds
// nodes i+1 and i+2, each edge mapping the source's first output property
// onto the target's first input property.
func dagOf(b *testing.B, tools []benchTool, edges int) (*Composition, []byte) {
	b.Helper()
	nodes := edges/2 + 2
	type node struct {
		ID   string `json:"id"`
		Tool string `json:"tool"`
	}
	type edge struct {
		From string            `json:"from"`
		To   string            `json:"to"`
		Map  map[string]string `json:"map"`
	}
	doc := struct {
		Nodes []node `json:"nodes"`
		Edges []edge `json:"edges"`
	}{}
	for i := range nodes {
		doc.Nodes = append(doc.Nodes, node{fmt.Sprintf("n%d", i), tools[i%len(tools)].name})
	}
	for i := 0; len(doc.Edges) < edges; i++ {
		from := i / 2
		to := from + 1 + i%2
		src, tgt := tools[from%len(tools)], tools[to%len(tools)]
		doc.Edges = append(doc.Edges, edge{fmt.Sprintf("n%d", from), fmt.Sprintf("n%d", to), map[string]string{src.output: tgt.input}})
	}
	data, err := json.Marshal(doc)
	if err != nil {
		b.Fatal(err)
	}
	c, err := Parse(data)
	if err != nil {
		b.Fatal(err)
	}
	return c, data
}

// loadServers is the real corpus, parsed.
func loadServers(b testing.TB) []registry.ServerTools {
	b.Helper()
	servers, err := registry.ParseToolsFile(corpus.RealTools())
	if err != nil {
		b.Fatal(err)
	}
	return servers
}

// perEdge reports time and allocations per edge when the returned func
// runs (deferred past b.Loop). Allocations per edge are the steadier sign
// of linearity on a shared machine, where time per edge moves with the
// load and with GC over a result that grows with the edges.
func perEdge(b *testing.B, edges int) func() {
	var before runtime.MemStats
	runtime.ReadMemStats(&before)
	return func() {
		var after runtime.MemStats
		runtime.ReadMemStats(&after)
		n := float64(b.N * edges)
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/n, "ns/edge")
		b.ReportMetric(float64(after.Mallocs-before.Mallocs)/n, "allocs/edge")
	}
}

// BenchmarkValidate validates DAGs of corpus tools. Cold: a fresh checker
// (empty memo) every time; warm: one checker, so every pair of schemas is
// already proven. ns/edge should stay flat as edges grow.
func BenchmarkValidate(b *testing.B) {
	cat := registry.NewCatalog(loadServers(b))
	tools := corpusPipelineTools(b, cat)
	for _, edges := range []int{10, 100, 1000, 10000} {
		c, _ := dagOf(b, tools, edges)
		b.Run(fmt.Sprintf("edges=%d/cold", edges), func(b *testing.B) {
			defer perEdge(b, edges)()
			for b.Loop() {
				v := NewValidator(cat, nil, compat.NewChecker())
				if _, err := v.Validate(context.Background(), c); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(fmt.Sprintf("edges=%d/warm", edges), func(b *testing.B) {
			v := NewValidator(cat, nil, compat.NewChecker())
			if _, err := v.Validate(context.Background(), c); err != nil {
				b.Fatal(err)
			}
			defer perEdge(b, edges)()
			for b.Loop() {
				if _, err := v.Validate(context.Background(), c); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkParse parses a 10,000-edge composition document.
func BenchmarkParse(b *testing.B) {
	cat := registry.NewCatalog(loadServers(b))
	_, data := dagOf(b, corpusPipelineTools(b, cat), 10000)
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if _, err := Parse(data); err != nil {
			b.Fatal(err)
		}
	}
}
