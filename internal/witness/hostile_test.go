package witness

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"
)

// hostilePairs are sources built to make generation expensive: huge
// patterns, deep nesting, big enums, recursion, contradictions, width. Each
// must stay within its budget, counted in candidates and steps.
func hostilePairs(t testing.TB) []pair {
	t.Helper()
	alternatives := make([]string, 700)
	for i := range alternatives {
		alternatives[i] = fmt.Sprintf("w%03d", i)
	}
	deep := `{"type":"integer"}`
	for range 30 {
		deep = `{"type":"object","properties":{"a":` + deep + `},"required":["a"]}`
	}
	enum := make([]string, 5000)
	for i := range enum {
		enum[i] = fmt.Sprintf(`"v%d"`, i)
	}
	wide := make([]string, 150)
	for i := range wide {
		wide[i] = fmt.Sprintf(`"p%d":{"anyOf":[{"type":"string","pattern":"^(a|b)+c{2,9}$"},{"type":"integer","multipleOf":0.37},{"type":"array","items":{"$ref":"#"}}]}`, i)
	}
	branches := make([]string, 200)
	for i := range branches {
		branches[i] = fmt.Sprintf(`{"type":"object","properties":{"k":{"const":%d}},"required":["k"]}`, i)
	}
	return []pair{
		{name: "huge alternation pattern", src: `{"type":"string","pattern":"^(` + strings.Join(alternatives, "|") + `)$"}`, tgt: `{"type":"string","pattern":"^w"}`},
		{name: "nested repetition pattern", src: `{"type":"string","pattern":"^(((a|b){9}){9}){9}$"}`, tgt: `{"type":"string","maxLength":1}`},
		{name: "deep nesting", src: deep, tgt: `{}`},
		{name: "deep nesting into a deep mismatch", src: deep, tgt: strings.Replace(deep, `"integer"`, `"integer","maximum":-5`, 1)},
		{name: "big enum", src: `{"enum":[` + strings.Join(enum, ",") + `]}`, tgt: `{"type":"string","pattern":"^v"}`},
		{name: "recursive $ref at every property", src: `{"type":"object","properties":{"a":{"$ref":"#"},"b":{"$ref":"#"},"c":{"items":{"$ref":"#"}}},"required":["a"]}`, tgt: `{"type":"object"}`},
		{name: "mutual $ref", src: `{"$defs":{"a":{"properties":{"x":{"$ref":"#/$defs/b"}}},"b":{"properties":{"y":{"$ref":"#/$defs/a"}}}},"$ref":"#/$defs/a"}`, tgt: `{"type":["object","array","string","number","boolean","null"]}`},
		{name: "contradictory source", src: `{"allOf":[{"type":"string"},{"type":"integer"}],"minimum":5,"maximum":1}`, tgt: `false`},
		{name: "contradictory bounds deep inside", src: `{"type":"object","properties":{"a":{"type":"integer","minimum":5,"maximum":1}},"required":["a"]}`, tgt: `false`},
		{name: "wide object", src: `{"type":"object","properties":{` + strings.Join(wide, ",") + `}}`, tgt: `{"type":"object","maxProperties":200}`},
		{name: "wide anyOf", src: `{"anyOf":[` + strings.Join(branches, ",") + `]}`, tgt: `{"type":"object","properties":{"k":{"maximum":1000}}}`},
		{name: "huge minItems and minLength", src: `{"type":"object","properties":{"s":{"type":"string","minLength":100000},"a":{"type":"array","minItems":100000}},"required":["s","a"]}`, tgt: `false`},
		{name: "tiny multipleOf", src: `{"type":"number","multipleOf":1e-300,"minimum":1e-299}`, tgt: `{"type":"integer"}`},
	}
}

func TestHostilePairsStayWithinBudget(t *testing.T) {
	const candidates = 256
	for _, p := range hostilePairs(t) {
		t.Run(p.name, func(t *testing.T) {
			s := NewSearcher(Budget{Candidates: candidates, Time: time.Minute}, 0)
			f, ok, st := s.search(side(t, p.src, p.srcPtr), side(t, p.tgt, p.tgtPtr))
			if st.tried > candidates {
				t.Errorf("tried %d candidates, budget %d", st.tried, candidates)
			}
			if limit := 64*candidates + 4096; st.steps > limit {
				t.Errorf("%d generation steps, bound %d", st.steps, limit)
			}
			if ok {
				confirm(t, p.src, p.srcPtr, p.tgt, p.tgtPtr, f)
			}
			t.Logf("tried %d, steps %d, found %v, timed out %v", st.tried, st.steps, ok, st.timedOut)
		})
	}
}

// Every generated value stays within MaxValueBytes, mutations included.
func TestGeneratedValuesStaySmall(t *testing.T) {
	for _, p := range append(hostilePairs(t), incompatible...) {
		src := side(t, p.src, p.srcPtr)
		r := &run{src: src, budget: Budget{Candidates: 200, Time: DefaultTime}, deadline: farFuture()}
		g := newGenerator(src.Schema, seeded(1), r)
		start, _ := src.Schema.At(src.Pointer)
		n := 0
		var pool []any
		check := func(v any) bool {
			n++
			if _, ok := encodeBounded(v); !ok {
				b, _ := json.Marshal(v)
				if len(b) <= MaxValueBytes {
					t.Errorf("%s: a value of %d bytes was refused", p.name, len(b))
				}
				return n < 200
			}
			if len(pool) < 8 {
				pool = append(pool, v)
			}
			return n < 200
		}
		g.root(node{start, src.Pointer}, check)
		for i := range 200 {
			if len(pool) == 0 {
				break
			}
			m := g.mutate(pool[i%len(pool)], 0)
			if _, err := json.Marshal(m); err != nil {
				t.Errorf("%s: mutation %#v does not marshal: %v", p.name, m, err)
			}
		}
	}
}

// Mutations copy what they change: the values they start from are shared
// with candidate lists and the pool and must never change; and they vary.
func TestMutateCopiesAndVaries(t *testing.T) {
	g := newGenerator(mustParse(t, `{}`), seeded(7), &run{budget: Budget{Candidates: 64}, deadline: farFuture()})
	seeds := []any{
		map[string]any{"a": []any{json.Number("1"), "x", map[string]any{"b": nil}}, "c": true},
		[]any{map[string]any{"k": "v"}, []any{}},
		json.Number("2.5"), "text", nil,
	}
	for _, seed := range seeds {
		before, _ := encodeBounded(seed)
		distinct := map[string]bool{}
		for range 300 {
			m := g.mutate(seed, 0)
			if k, ok := encodeBounded(m); ok {
				distinct[k] = true
			}
		}
		if after, _ := encodeBounded(seed); after != before {
			t.Errorf("mutation changed its input: %s became %s", before, after)
		}
		if len(distinct) < 10 {
			t.Errorf("300 mutations of %s gave only %d distinct values", before, len(distinct))
		}
	}
}
