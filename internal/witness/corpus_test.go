package witness

import (
	"encoding/json"
	"github.com/typeward/typeward/internal/corpus"
	"maps"
	"slices"
	"testing"
	"time"

	"github.com/typeward/typeward/internal/schema"
)

func corpusFieldPairs(tb testing.TB) [][2]Side {
	tb.Helper()
	raw := corpus.RealTools()
	var doc struct {
		Servers []struct {
			Tools []struct {
				InputSchema  json.RawMessage `json:"inputSchema"`
				OutputSchema json.RawMessage `json:"outputSchema"`
			} `json:"tools"`
		} `json:"servers"`
	}
	if err := json.Unmarshal(raw, &doc); err != nil {
		tb.Fatal(err)
	}
	var ins, outs []*schema.Schema
	for _, s := range doc.Servers {
		for _, t := range s.Tools {
			if s, err := schema.Parse(t.InputSchema); err == nil && len(t.InputSchema) > 0 {
				ins = append(ins, s)
			}
			if s, err := schema.Parse(t.OutputSchema); err == nil && len(t.OutputSchema) > 0 {
				outs = append(outs, s)
			}
		}
	}
	var pairs [][2]Side
	for _, o := range outs {
		op, _ := o.At("/properties")
		om, _ := op.(map[string]any)
		for _, i := range ins {
			ip, _ := i.At("/properties")
			im, _ := ip.(map[string]any)
			for _, name := range slices.Sorted(maps.Keys(om)) {
				if _, ok := im[name]; ok {
					ptr := "/properties/" + schema.EscapeToken(name)
					pairs = append(pairs, [2]Side{{o, ptr}, {i, ptr}})
				}
			}
		}
	}
	return pairs
}

// Every witness found on the real corpus's field pairs is one, and the
// search finds at least those known today (73 pairs the checker refuses and
// 3 it cannot decide, all with a witness).
func TestCorpusWitnesses(t *testing.T) {
	pairs := corpusFieldPairs(t)
	if len(pairs) < 300 {
		t.Fatalf("only %d field pairs with matching names in the corpus", len(pairs))
	}
	s := NewSearcher(Budget{Candidates: 128, Time: 10 * time.Second}, 0)
	found := 0
	for _, p := range pairs {
		f, ok := s.Search(p[0], p[1])
		if !ok {
			continue
		}
		found++
		if err := p[0].Schema.ValidateAt(p[0].Pointer, f.Value); err != nil {
			t.Errorf("%s: witness rejected by the source: %v", p[0].Pointer, err)
		}
		if err := p[1].Schema.ValidateAt(p[1].Pointer, f.Value); !isRejection(err) {
			t.Errorf("%s: witness accepted by the target", p[1].Pointer)
		}
	}
	t.Logf("%d of %d corpus field pairs have a witness", found, len(pairs))
	if found < 76 {
		t.Errorf("witnesses for %d corpus field pairs, fewer than the 76 known", found)
	}
}
