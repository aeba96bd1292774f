package compat

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/typeward/typeward/internal/verdict"
)

// BenchmarkCheck measures one edge check: the reference pipeline's refused
// edge and the corpus pairs, each with a fresh memo (cold) and warm.
func BenchmarkCheck(b *testing.B) {
	tools := referenceTools(b)
	ref := [2]Node{{tools["db_query"][1], "/properties/rows"}, {tools["transform_csv"][0], "/properties/data"}}
	opts := Options{SourceLabel: "rows", TargetLabel: "data"}
	b.Run("reference-cold", func(b *testing.B) {
		for b.Loop() {
			NewChecker().Check(ref[0], ref[1], opts)
		}
	})
	b.Run("reference-memoized", func(b *testing.B) {
		c := NewChecker()
		c.Check(ref[0], ref[1], opts)
		for b.Loop() {
			c.Check(ref[0], ref[1], opts)
		}
	})
	pairs := corpusPairs(loadCorpus(b))
	b.Run("corpus-cold", func(b *testing.B) {
		i := 0
		for b.Loop() {
			p := pairs[i%len(pairs)]
			NewChecker().Check(p[0], p[1], opts)
			i++
		}
	})
	b.Run("corpus-memoized", func(b *testing.B) {
		c := NewChecker()
		for _, p := range pairs {
			c.Check(p[0], p[1], opts)
		}
		i := 0
		for b.Loop() {
			p := pairs[i%len(pairs)]
			c.Check(p[0], p[1], opts)
			i++
		}
	})
}

// coldLatencies checks each pair with a fresh Checker (every memo empty),
// once per round, and reports the median, 99th percentile and maximum of
// one check, and the share of checks that ran the pair's witness search
// (the rules' candidates and a plain source instance confirmed nothing).
func coldLatencies(b *testing.B, pairs [][2]Node) time.Duration {
	b.Helper()
	var samples []time.Duration
	searched := 0
	for b.Loop() {
		for _, p := range pairs {
			c := NewChecker()
			inner, ran := c.search, false
			c.search = func(src, tgt Node) (any, error, bool) {
				ran = ran || tgt.Schema != nothing
				return inner(src, tgt)
			}
			start := time.Now()
			c.Check(p[0], p[1], Options{SourceLabel: "out", TargetLabel: "in"})
			samples = append(samples, time.Since(start))
			if ran {
				searched++
			}
		}
	}
	slices.Sort(samples)
	q := func(p float64) float64 { return float64(samples[int(p*float64(len(samples)-1))].Nanoseconds()) }
	b.ReportMetric(q(0.5), "p50-ns/check")
	b.ReportMetric(q(0.99), "p99-ns/check")
	b.ReportMetric(q(1), "max-ns/check")
	b.ReportMetric(float64(searched)/float64(len(samples)), "searched/check")
	b.ReportMetric(float64(len(pairs)), "pairs")
	return samples[len(samples)-1]
}

// BenchmarkCheckIncompatible: cold checks of the real corpus's
// incompatible pairs (every 20th, so a round stays short), and of those
// among all corpus and same-named field pairs whose witness only the
// search found.
func BenchmarkCheckIncompatible(b *testing.B) {
	tools := loadCorpus(b)
	all := corpusPairs(tools) // whole schemas and same-named fields
	var incompatible, searched [][2]Node
	warm := NewChecker()
	inner := warm.search
	ran := false
	warm.search = func(src, tgt Node) (any, error, bool) {
		ran = ran || tgt.Schema != nothing
		return inner(src, tgt)
	}
	for i, p := range all {
		ran = false
		if warm.Check(p[0], p[1], Options{}).Verdict != verdict.Incompatible {
			continue
		}
		if i%20 == 0 {
			incompatible = append(incompatible, p)
		}
		if ran {
			searched = append(searched, p)
		}
	}
	b.Run("corpus", func(b *testing.B) { coldLatencies(b, incompatible) })
	if len(searched) > 0 {
		b.Run("corpus-searched", func(b *testing.B) { coldLatencies(b, searched) })
	}
}

// BenchmarkCheckHostile: cold checks of adversarial pairs (the step
// budget's, deep nesting, a wide recursive source, a huge enum and
// alternation); a check must stay within the search's time budget, the
// safety net, and in practice far below it.
func BenchmarkCheckHostile(b *testing.B) {
	if worst := coldLatencies(b, hostileCheckPairs(b)); worst > searchTime {
		b.Fatalf("a hostile check took %v, past the search's %v budget", worst, searchTime)
	}
}

func hostileCheckPairs(b testing.TB) [][2]Node {
	var conj []string
	for i := range 16 {
		conj = append(conj, fmt.Sprintf(`{"anyOf":[{"type":"integer","minimum":%d},{"type":"integer","maximum":%d}]}`, i, 100+i))
	}
	deep := `{"type":"integer"}`
	for range 30 {
		deep = `{"type":"object","properties":{"a":` + deep + `},"required":["a"]}`
	}
	wide := make([]string, 150)
	for i := range wide {
		wide[i] = fmt.Sprintf(`"p%d":{"anyOf":[{"type":"string","pattern":"^(a|b)+c{2,9}$"},{"type":"integer","multipleOf":0.37},{"type":"array","items":{"$ref":"#"}}]}`, i)
	}
	enum, alts := make([]string, 5000), make([]string, 700)
	for i := range enum {
		enum[i] = fmt.Sprintf(`"v%d"`, i)
	}
	for i := range alts {
		alts[i] = fmt.Sprintf("w%03d", i)
	}
	docs := [][2]string{
		{`{"allOf":[` + strings.Join(conj, ",") + `]}`, `{"type":"number"}`},
		{deep, strings.Replace(deep, `"integer"`, `"integer","maximum":-5`, 1)},
		{`{"type":"object","properties":{` + strings.Join(wide, ",") + `}}`, `{"type":"object","properties":{"p7":{"type":"string"}}}`},
		{`{"enum":[` + strings.Join(enum, ",") + `]}`, `{"type":"string","pattern":"^v[0-9]{1,3}$"}`},
		{`{"type":"string","pattern":"^(` + strings.Join(alts, "|") + `)$"}`, `{"type":"string","pattern":"^w0"}`},
		{`{"type":"string","pattern":"^(((a|b){9}){9}){9}$"}`, `{"type":"string","maxLength":1}`},
	}
	var pairs [][2]Node
	for _, d := range docs {
		pairs = append(pairs, [2]Node{{mustParse(b, d[0]), ""}, {mustParse(b, d[1]), ""}})
	}
	return pairs
}
