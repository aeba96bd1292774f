package composition

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
)

func mustPath(t testing.TB, s string) Path {
	t.Helper()
	p, err := ParsePath(s)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestParseForms(t *testing.T) {
	rows, data := mustPath(t, "rows"), mustPath(t, "data")
	tests := []struct {
		name string
		doc  string
		want *Composition
	}{
		{
			name: "nodes and edges",
			doc: `{"nodes":[{"id":"q","tool":"db_query"},{"id":"csv","tool":"transform_csv","version":2}],
			       "edges":[{"from":"q","to":"csv","map":{"rows":"data"},"optional":true}]}`,
			want: &Composition{
				Nodes: []Node{{ID: "q", Tool: "db_query"}, {ID: "csv", Tool: "transform_csv", Version: 2}},
				Edges: []Edge{{From: "q", To: "csv", Mappings: []Mapping{{rows, data}}, Optional: true}},
			},
		},
		{
			name: "short form derives nodes from edges in order",
			doc:  `{"edges":[{"from":"db_query","to":"transform_csv","map":{"rows":"data"}},{"from":"transform_csv","to":"srv/email_send","map":{"csv_string":"body"}}]}`,
			want: &Composition{
				Short: true,
				Nodes: []Node{{ID: "db_query", Tool: "db_query"}, {ID: "transform_csv", Tool: "transform_csv"}, {ID: "srv/email_send", Tool: "srv/email_send"}},
				Edges: []Edge{
					{From: "db_query", To: "transform_csv", Mappings: []Mapping{{rows, data}}},
					{From: "transform_csv", To: "srv/email_send", Mappings: []Mapping{{mustPath(t, "csv_string"), mustPath(t, "body")}}},
				},
			},
		},
		{
			name: "source_tool, target_tool, field_mappings",
			doc:  `{"edges":[{"source_tool":"db_query","target_tool":"transform_csv","field_mappings":{"rows":"data"}}]}`,
			want: &Composition{
				Short: true,
				Nodes: []Node{{ID: "db_query", Tool: "db_query"}, {ID: "transform_csv", Tool: "transform_csv"}},
				Edges: []Edge{{From: "db_query", To: "transform_csv", Mappings: []Mapping{{rows, data}}}},
			},
		},
		{
			name: "mappings keep document order; each; composition node",
			doc: `{"nodes":[{"id":"s","composition":"search"},{"id":"g","tool":"get"}],
			       "edges":[{"from":"s","to":"g","each":true,"map":{"hits[].id":"id","$":"context","hits[].meta.kind":"kind"}}]}`,
			want: &Composition{
				Nodes: []Node{{ID: "s", Composition: "search"}, {ID: "g", Tool: "get"}},
				Edges: []Edge{{From: "s", To: "g", Each: true, Mappings: []Mapping{
					{mustPath(t, "hits[].id"), mustPath(t, "id")},
					{mustPath(t, "$"), mustPath(t, "context")},
					{mustPath(t, "hits[].meta.kind"), mustPath(t, "kind")},
				}}},
			},
		},
		{
			name: "nodes without edges",
			doc:  `{"nodes":[{"id":"only","tool":"whoami"}]}`,
			want: &Composition{Nodes: []Node{{ID: "only", Tool: "whoami"}}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Parse([]byte(tt.doc))
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got  %+v\nwant %+v", got, tt.want)
			}
		})
	}
}

func TestParseErrors(t *testing.T) {
	tests := []struct {
		name, doc string
		at, msg   string // the ParseError's location and a part of its message
	}{
		{"not JSON", `{"edges":`, "", "not JSON at line 1, column 9: unexpected end of JSON input"},
		{"not JSON on line 3", "{\n \"edges\": [\n  {\"from\": \"a\" \"to\": \"b\"}\n ]\n}", "", "not JSON at line 3, column 16: invalid character"},
		{"two values", `{"nodes":[{"id":"a","tool":"t"}]} {}`, "", "after top-level value"},
		{"not an object", `[]`, "", "must be a JSON object"},
		{"empty", `{}`, "", "empty composition"},
		{"empty nodes", `{"nodes":[],"edges":[{"from":"a","to":"b","map":{"x":"y"}}]}`, "nodes", "empty"},
		{"unknown top member", `{"nodes":[{"id":"a","tool":"t"}],"egdes":[]}`, "", `unknown member "egdes"`},
		{"unknown node member", `{"nodes":[{"id":"a","tol":"t"}]}`, "nodes[0]", `unknown member "tol"`},
		{"unknown edge member", `{"edges":[{"from":"a","to":"b","map":{"x":"y"},"mode":"x"}]}`, "edges[0]", `unknown member "mode"`},
		{"duplicate key", `{"edges":[{"from":"a","to":"b","map":{"x":"y","x":"z"}}]}`, "", `duplicate key "x" at line 1, column 47`},
		{"duplicate top key", `{"nodes":[{"id":"a","tool":"t"}],"nodes":[{"id":"b","tool":"t"}]}`, "", `duplicate key "nodes"`},
		{"duplicate node id", `{"nodes":[{"id":"a","tool":"t"},{"id":"a","tool":"u"}]}`, "nodes[1]", `duplicate node id "a"`},
		{"duplicate edge", `{"edges":[{"from":"a","to":"b","map":{"x":"y"}},{"from":"a","to":"b","map":{"z":"y"}}]}`, "edges[1]", "declared twice"},
		{"node without id", `{"nodes":[{"tool":"t"}]}`, "nodes[0]", `"id" is required`},
		{"node without tool", `{"nodes":[{"id":"a"}]}`, "nodes[0]", `needs "tool" or "composition"`},
		{"node with both", `{"nodes":[{"id":"a","tool":"t","composition":"c"}]}`, "nodes[0]", `both "tool" and "composition"`},
		{"version zero", `{"nodes":[{"id":"a","tool":"t","version":0}]}`, "nodes[0].version", "positive integer"},
		{"version fraction", `{"nodes":[{"id":"a","tool":"t","version":1.5}]}`, "nodes[0].version", "unexpected JSON number 1.5, expected an integer"},
		{"version on composition", `{"nodes":[{"id":"a","composition":"c","version":1}]}`, "nodes[0].version", "no version"},
		{"id with arrow", `{"nodes":[{"id":"a->b","tool":"t"}]}`, "nodes[0].id", `contains "->"`},
		{"id with space", `{"nodes":[{"id":"a b","tool":"t"}]}`, "nodes[0].id", "whitespace"},
		{"id not a string", `{"nodes":[{"id":7,"tool":"t"}]}`, "nodes[0].id", "unexpected JSON number, expected a string"},
		{"edge without to", `{"edges":[{"from":"a","map":{"x":"y"}}]}`, "edges[0]", `"from" and "to" are required`},
		{"edge without map", `{"edges":[{"from":"a","to":"b"}]}`, "edges[0]", `has no "map"`},
		{"empty map", `{"edges":[{"from":"a","to":"b","map":{}}]}`, "edges[0].map", "empty"},
		{"map not object", `{"edges":[{"from":"a","to":"b","map":["x"]}]}`, "edges[0].map", "must be an object"},
		{"mapping value not string", `{"edges":[{"from":"a","to":"b","map":{"x":1}}]}`, "edges[0].map.x", "not a number"},
		{"mixed edge forms", `{"edges":[{"from":"a","target_tool":"b","map":{"x":"y"}}]}`, "edges[0]", "mixes"},
		{"bad source path", `{"edges":[{"from":"a","to":"b","map":{"x..y":"y"}}]}`, "edges[0].map", "empty property name"},
		{"projected target", `{"edges":[{"from":"a","to":"b","map":{"x":"y[]"}}]}`, "edges[0].map", "property names only"},
		{"whole target", `{"edges":[{"from":"a","to":"b","map":{"x":"$"}}]}`, "edges[0].map", "whole input"},
		{"each without []", `{"edges":[{"from":"a","to":"b","each":true,"map":{"x":"y"}}]}`, "edges[0].each", "needs a source path with []"},
		{"each over two arrays", `{"edges":[{"from":"a","to":"b","each":true,"map":{"x[].a":"y","z[].b":"w"}}]}`, "edges[0].each", "one array"},
		{"each not bool", `{"edges":[{"from":"a","to":"b","each":"yes","map":{"x[]":"y"}}]}`, "edges[0].each", "unexpected JSON string, expected true or false"},
		{"too deep", strings.Repeat("[", MaxDocumentDepth+1) + strings.Repeat("]", MaxDocumentDepth+1), "", "nested more than 32 deep at line 1, column 33"},
		{"escaped duplicate key", `{"nodes":[{"id":"a","tool":"t","\u0074ool":"u"}]}`, "", `duplicate key "tool"`},
		{"escaped quote in a key", `{"nodes":[{"id":"a","tool":"t","a\"b":1}]}`, "nodes[0]", `unknown member "a\"b"`},
		{"too large", `{"nodes":[` + strings.Repeat(" ", MaxDocumentBytes) + `]}`, "", "bytes, at most"},
		{"too many mappings", manyMappings(MaxMappingsOfEdge + 1), "edges[0].map", "more than 256 mappings"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := Parse([]byte(tt.doc))
			var pe *ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("got %v, %v; want a *ParseError", c, err)
			}
			if pe.At != tt.at || !strings.Contains(pe.Msg, tt.msg) {
				t.Errorf("got at %q: %q; want at %q containing %q", pe.At, pe.Msg, tt.at, tt.msg)
			}
		})
	}
}

func manyMappings(n int) string {
	var b strings.Builder
	b.WriteString(`{"edges":[{"from":"a","to":"b","map":{`)
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `"f%d":"g"`, i)
	}
	b.WriteString(`}}]}`)
	return b.String()
}

func TestParseBoundsOfCount(t *testing.T) {
	var b strings.Builder
	b.WriteString(`{"nodes":[`)
	for i := range MaxNodes + 1 {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"id":"n%d","tool":"t"}`, i)
	}
	b.WriteString(`]}`)
	_, err := Parse([]byte(b.String()))
	var pe *ParseError
	if !errors.As(err, &pe) || pe.At != "nodes" || !strings.Contains(pe.Msg, "at most 10000") {
		t.Errorf("got %v, want the node bound", err)
	}
}

// FuzzParse: any input either parses into a composition whose every part
// is within bounds, or is refused with a *ParseError; never a panic.
func FuzzParse(f *testing.F) {
	for _, seed := range []string{
		`{"nodes":[{"id":"q","tool":"db_query"},{"id":"csv","tool":"transform_csv","version":2}],"edges":[{"from":"q","to":"csv","map":{"rows":"data"},"optional":true}]}`,
		`{"edges":[{"source_tool":"a","target_tool":"b","field_mappings":{"x[].y":"z"}}]}`,
		`{"nodes":[{"id":"s","composition":"c"}],"edges":[{"from":"s","to":"s","each":true,"map":{"$[]":"a.b"}}]}`,
		`{"edges":[{"from":"a","to":"b","map":{"x":"y","x":"z"}}]}`,
		`[[[[`, `{"nodes":null}`, `{"edges":[{"from":"","to":"b","map":{"":""}}]}`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := Parse(data)
		if err != nil {
			var pe *ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("error %v is not a *ParseError", err)
			}
			return
		}
		if len(c.Nodes) == 0 && len(c.Edges) == 0 {
			t.Fatal("parsed an empty composition")
		}
		if len(c.Nodes) > MaxNodes || len(c.Edges) > MaxEdges {
			t.Fatal("bounds not enforced")
		}
		for _, e := range c.Edges {
			if len(e.Mappings) == 0 || len(e.Mappings) > MaxMappingsOfEdge {
				t.Fatalf("edge %s has %d mappings", e.Label(), len(e.Mappings))
			}
			for _, m := range e.Mappings {
				if m.Target.HasItems() || len(m.Target.Steps) == 0 {
					t.Fatalf("target %s is not a property path", m.Target)
				}
			}
		}
	})
}
