package schema

import (
	"encoding/json"
	"errors"
	"github.com/typeward/typeward/internal/corpus"
	"testing"
)

type corpusSchema struct {
	server, tool, field string
	raw                 json.RawMessage
}

func loadCorpus(t testing.TB) []corpusSchema {
	t.Helper()
	data := corpus.RealTools()
	var doc struct {
		Servers []struct {
			Server string
			Tools  []map[string]json.RawMessage
		}
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	var out []corpusSchema
	for _, s := range doc.Servers {
		for _, tool := range s.Tools {
			var name string
			_ = json.Unmarshal(tool["name"], &name)
			for _, field := range []string{"inputSchema", "outputSchema"} {
				if raw, ok := tool[field]; ok {
					out = append(out, corpusSchema{s.Server, name, field, raw})
				}
			}
		}
	}
	return out
}

// Every real schema loads, except the two the 2020-12 metaschema rejects
// (draft-07 array-form items without a $schema), refused with that reason.
func TestCorpusLoads(t *testing.T) {
	var loaded int
	var refused []string
	draft7 := map[string]bool{} // tools with a draft-07 schema
	for _, c := range loadCorpus(t) {
		s, err := Parse(c.raw)
		if err != nil {
			if !errors.Is(err, ErrInvalid) {
				t.Errorf("%s/%s %s: unexpected kind: %v", c.server, c.tool, c.field, err)
			}
			refused = append(refused, c.tool)
			continue
		}
		loaded++
		if s.Dialect == Draft7 {
			draft7[c.server+"/"+c.tool] = true
		}
	}
	want := []string{"create_uptime_monitor", "update_uptime_monitor"}
	if len(refused) != len(want) || refused[0] != want[0] || refused[1] != want[1] {
		t.Errorf("refused %v, want %v", refused, want)
	}
	if loaded != 348 {
		t.Errorf("loaded %d schemas, want 348", loaded)
	}
	if len(draft7) != 49 {
		t.Errorf("%d tools declare draft-07, want 49", len(draft7))
	}
}

func BenchmarkParseCorpus(b *testing.B) {
	corpus := loadCorpus(b)
	b.ResetTimer()
	for b.Loop() {
		for _, c := range corpus {
			_, _ = Parse(c.raw)
		}
	}
}
