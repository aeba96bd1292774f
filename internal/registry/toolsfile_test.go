package registry

import (
	"errors"
	"github.com/typeward/typeward/internal/corpus"
	"strings"
	"testing"
)

func TestParseToolsFileShapes(t *testing.T) {
	tool := `{"name":"echo","inputSchema":{"type":"object"},"icons":[{"src":"x"}],"execution":{"taskSupport":"optional"}}`
	tests := []struct {
		name    string
		doc     string
		servers []string // server names
		tools   []int    // tools per server
	}{
		{"tools/list result", `{"tools":[` + tool + `],"nextCursor":"","_meta":{}}`, []string{""}, []int{1}},
		{"bare array", `[` + tool + `,{"name":"other","inputSchema":{"type":"object"},"outputSchema":null}]`, []string{""}, []int{2}},
		{"servers", `{"description":"d","servers":[{"server":"a","order":"x","tools":[` + tool + `]},{"server":"b","tools":[]}]}`, []string{"a", "b"}, []int{1, 0}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseToolsFile([]byte(tt.doc))
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(tt.servers) {
				t.Fatalf("%d servers, want %d", len(got), len(tt.servers))
			}
			for i, st := range got {
				if st.Server != tt.servers[i] || len(st.Tools) != tt.tools[i] {
					t.Errorf("server %d: %q with %d tools, want %q with %d", i, st.Server, len(st.Tools), tt.servers[i], tt.tools[i])
				}
			}
			if len(got[0].Tools) > 0 && got[0].Tools[0].Name != "echo" {
				t.Errorf("first tool %q", got[0].Tools[0].Name)
			}
		})
	}
}

func TestParseToolsFileErrors(t *testing.T) {
	tests := []struct{ name, doc, msg string }{
		{"empty", "  ", "empty document"},
		{"not JSON", `{"tools":`, "not JSON"},
		{"wrong shape", `{"tool":[]}`, `expected {"tools": [...]}`},
		{"both shapes", `{"tools":[],"servers":[]}`, "both"},
		{"unknown member", `{"tools":[],"cursor":"x"}`, `unknown member "cursor"`},
		{"paginated", `{"tools":[],"nextCursor":"abc"}`, "paginated"},
		{"tools not an array", `{"tools":{}}`, "tools: unexpected JSON object"},
		{"tool without name", `[{"inputSchema":{"type":"object"}}]`, `[0]: "name" must be a non-empty string`},
		{"name not a string", `[{"name":3,"inputSchema":{}}]`, "[0]: name: unexpected JSON number"},
		{"no inputSchema", `[{"name":"a"}]`, "[0] (a): no inputSchema"},
		{"null inputSchema", `[{"name":"a","inputSchema":null}]`, "no inputSchema"},
		{"duplicate tool", `[{"name":"a","inputSchema":{}},{"name":"a","inputSchema":{}}]`, `[1]: tool "a" is declared twice`},
		{"server without name", `{"servers":[{"tools":[]}]}`, `servers[0]: "server" must be a non-empty string`},
		{"server twice", `{"servers":[{"server":"a","tools":[]},{"server":"a","tools":[]}]}`, `server "a" is listed twice`},
		{"server without tools", `{"servers":[{"server":"a"}]}`, `servers[0] (a): no "tools"`},
		{"no servers", `{"servers":[]}`, "servers: empty"},
		{"too large", `[` + strings.Repeat(" ", MaxToolsFileBytes) + `]`, "bytes, at most"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParseToolsFile([]byte(tt.doc))
			if !errors.Is(err, ErrToolsFile) || !strings.Contains(err.Error(), tt.msg) {
				t.Errorf("got %v, want ErrToolsFile containing %q", err, tt.msg)
			}
		})
	}
}

func TestParseToolsFileCorpus(t *testing.T) {
	data := corpus.RealTools()
	servers, err := ParseToolsFile(data)
	if err != nil {
		t.Fatal(err)
	}
	total := 0
	for _, s := range servers {
		total += len(s.Tools)
	}
	if len(servers) != 16 || total != 297 {
		t.Errorf("%d servers, %d tools; want 16 and 297", len(servers), total)
	}
}

// FuzzParseToolsFile: any input is parsed or refused with ErrToolsFile;
// what parses has named tools with an inputSchema, unique per server.
func FuzzParseToolsFile(f *testing.F) {
	for _, seed := range []string{
		`{"tools":[{"name":"a","inputSchema":{"type":"object"}}]}`,
		`[{"name":"a","inputSchema":{},"outputSchema":null}]`,
		`{"servers":[{"server":"s","tools":[{"name":"a","inputSchema":{}}]}]}`,
		`{"tools":[],"nextCursor":"x"}`, `[]`, `{}`, `null`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		servers, err := ParseToolsFile(data)
		if err != nil {
			if !errors.Is(err, ErrToolsFile) {
				t.Fatalf("error %v is not ErrToolsFile", err)
			}
			return
		}
		for _, s := range servers {
			seen := map[string]bool{}
			for _, tool := range s.Tools {
				if tool.Name == "" || len(tool.InputSchema) == 0 || seen[tool.Name] {
					t.Fatalf("accepted tool %+v", tool)
				}
				seen[tool.Name] = true
			}
		}
		NewCatalog(servers) // loading what parsed must not panic either
	})
}
