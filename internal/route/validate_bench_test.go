package route

import (
	"encoding/json"
	"github.com/typeward/typeward/internal/corpus"
	"os"
	"testing"

	"github.com/typeward/typeward/internal/schema"
)

// BenchmarkArgumentValidation is the router's cost per tools/call for
// checking arguments against the pinned inputSchema: the reference
// db_query, and the largest inputSchema of the real corpus (GitHub's
// projects_write, 7 KB, oneOf items), each with valid arguments.
func BenchmarkArgumentValidation(b *testing.B) {
	cases := []struct {
		name, tool, args string
		load             func(b *testing.B, tool string) json.RawMessage
	}{
		{"reference-db_query", "db_query", `{"sql":"select region, total from sales","limit":100}`, exampleSchema},
		{"corpus-projects_write", "projects_write", `{"method":"update_project_items","owner":"octo","owner_type":"org","project_number":7,
			"items":[{"node_id":"PVTI_1"},{"item_id":2},{"item_owner":"octo","item_repo":"r","issue_number":3}],"body":"weekly status"}`, corpusSchema},
	}
	for _, tc := range cases {
		b.Run(tc.name, func(b *testing.B) {
			s, err := schema.Parse(tc.load(b, tc.tool))
			if err != nil {
				b.Fatal(err)
			}
			args, err := decodeArguments(json.RawMessage(tc.args))
			if err != nil {
				b.Fatal(err)
			}
			if fs := check(s, args, "arguments"); len(fs) > 0 {
				b.Fatalf("the benchmark's arguments are invalid: %v", fs)
			}
			b.ReportAllocs()
			for b.Loop() {
				if check(s, args, "arguments") != nil {
					b.Fatal("invalid")
				}
			}
		})
	}
}

func exampleSchema(b *testing.B, tool string) json.RawMessage {
	raw, err := os.ReadFile("../../examples/registry.json")
	if err != nil {
		b.Fatal(err)
	}
	var doc struct {
		Tools []struct {
			Name        string          `json:"name"`
			InputSchema json.RawMessage `json:"inputSchema"`
		} `json:"tools"`
	}
	if err := json.Unmarshal(raw, &doc); err != nil {
		b.Fatal(err)
	}
	for _, t := range doc.Tools {
		if t.Name == tool {
			return t.InputSchema
		}
	}
	b.Fatalf("no %s in the examples", tool)
	return nil
}

func corpusSchema(b *testing.B, tool string) json.RawMessage {
	raw := corpus.RealTools()
	var doc struct {
		Servers []struct {
			Tools []struct {
				Name        string          `json:"name"`
				InputSchema json.RawMessage `json:"inputSchema"`
			} `json:"tools"`
		} `json:"servers"`
	}
	if err := json.Unmarshal(raw, &doc); err != nil {
		b.Fatal(err)
	}
	for _, s := range doc.Servers {
		for _, t := range s.Tools {
			if t.Name == tool {
				return t.InputSchema
			}
		}
	}
	b.Fatalf("no %s in the corpus", tool)
	return nil
}
