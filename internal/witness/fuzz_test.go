package witness

import (
	"testing"
	"time"

	"github.com/typeward/typeward/internal/schema"
)

// FuzzSearch: any pair of loadable documents searches without panic, within
// its budget, and a witness it returns is one (source accepts, target
// rejects, after a JSON round trip).
func FuzzSearch(f *testing.F) {
	for _, p := range incompatible[:12] {
		f.Add([]byte(p.src), []byte(p.tgt))
	}
	for _, p := range []pair{
		{src: `{"$ref":"#"}`, tgt: `{}`},
		{src: `{"properties":{"a":{"$ref":"#"}},"required":["a"]}`, tgt: `false`},
		{src: `{"type":"string","pattern":"^(a|b)*\\bc{2,}$"}`, tgt: `{"maxLength":2}`},
		{src: `{"items":{"$ref":"#"},"minItems":1}`, tgt: `{"maxItems":0}`},
		{src: `{"multipleOf":1e-400}`, tgt: `{"type":"integer"}`},
		{src: `{"$schema":"http://json-schema.org/draft-07/schema#","items":[{"type":"string"}],"additionalItems":false}`, tgt: `{"maxItems":0}`},
		{src: `{"anyOf":[{"const":{"a":[1,2,{"b":null}]}},{"enum":[[],{}]}]}`, tgt: `{"type":"object"}`},
		{src: `{"propertyNames":{"pattern":"^[^\\x00-\\x7f]+$"},"minProperties":2}`, tgt: `{"maxProperties":1}`},
	} {
		f.Add([]byte(p.src), []byte(p.tgt))
	}
	f.Fuzz(func(t *testing.T, srcDoc, tgtDoc []byte) {
		if len(srcDoc) > 4096 || len(tgtDoc) > 4096 {
			return
		}
		src, err := schema.Parse(srcDoc)
		if err != nil {
			return
		}
		tgt, err := schema.Parse(tgtDoc)
		if err != nil {
			return
		}
		const candidates = 64
		s := NewSearcher(Budget{Candidates: candidates, Time: 200 * time.Millisecond}, 0)
		found, ok, st := s.search(Side{src, ""}, Side{tgt, ""})
		if st.tried > candidates {
			t.Fatalf("tried %d candidates, budget %d", st.tried, candidates)
		}
		if limit := 64*candidates + 4096; st.steps > limit {
			t.Fatalf("%d steps, bound %d", st.steps, limit)
		}
		if ok {
			confirm(t, string(srcDoc), "", string(tgtDoc), "", found)
		}
	})
}
