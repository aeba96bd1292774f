package witness

import (
	"encoding/json"
	"os"
	"sort"
	"testing"
	"time"
)

// referenceEdge is the incompatible edge of the reference pipeline
// (examples/pipeline-invalid.json): db_query's rows (objects) into
// transform_csv's data (strings).
func referenceEdge(b *testing.B) (Side, Side) {
	b.Helper()
	raw, err := os.ReadFile("../../examples/registry.json")
	if err != nil {
		b.Fatal(err)
	}
	var reg struct {
		Tools []struct {
			Name         string
			InputSchema  json.RawMessage
			OutputSchema json.RawMessage
		}
	}
	if err := json.Unmarshal(raw, &reg); err != nil {
		b.Fatal(err)
	}
	var src, tgt Side
	for _, tl := range reg.Tools {
		switch tl.Name {
		case "db_query":
			src = Side{mustParse(b, string(tl.OutputSchema)), "/properties/rows"}
		case "transform_csv":
			tgt = Side{mustParse(b, string(tl.InputSchema)), "/properties/data"}
		}
	}
	if src.Schema == nil || tgt.Schema == nil {
		b.Fatal("examples/registry.json lacks db_query or transform_csv")
	}
	if _, ok := NewSearcher(untimed, 0).Search(src, tgt); !ok {
		b.Fatal("no witness on the reference edge")
	}
	return src, tgt
}

// latencies runs each search once per round, times each, and reports the
// median and 99th percentile of one search.
func latencies(b *testing.B, pairs [][2]Side, budget Budget) {
	b.Helper()
	var samples []time.Duration
	tried, maxTried, found := 0, 0, 0
	for b.Loop() {
		for _, p := range pairs {
			s := NewSearcher(budget, 0)
			start := time.Now()
			_, ok, st := s.search(p[0], p[1])
			samples = append(samples, time.Since(start))
			tried += st.tried
			maxTried = max(maxTried, st.tried)
			if ok {
				found++
			}
		}
	}
	sort.Slice(samples, func(i, j int) bool { return samples[i] < samples[j] })
	q := func(p float64) float64 { return float64(samples[int(p*float64(len(samples)-1))].Nanoseconds()) }
	b.ReportMetric(q(0.5), "p50-ns/search")
	b.ReportMetric(q(0.99), "p99-ns/search")
	b.ReportMetric(float64(tried)/float64(len(samples)), "tried/search")
	b.ReportMetric(float64(maxTried), "max-tried")
	b.ReportMetric(float64(found)/float64(len(samples)), "found/search")
}

func BenchmarkSearchReferenceEdge(b *testing.B) {
	src, tgt := referenceEdge(b)
	latencies(b, [][2]Side{{src, tgt}}, Budget{})
}

func BenchmarkSearchReferenceEdgeMemoized(b *testing.B) {
	src, tgt := referenceEdge(b)
	s := NewSearcher(Budget{}, 1<<20)
	s.Search(src, tgt)
	for b.Loop() {
		if _, ok := s.Search(src, tgt); !ok {
			b.Fatal("no witness")
		}
	}
}

// The incompatible pairs of the test table, one search each per round.
func BenchmarkSearchIncompatibleTable(b *testing.B) {
	var pairs [][2]Side
	for _, p := range incompatible {
		pairs = append(pairs, [2]Side{side(b, p.src, p.srcPtr), side(b, p.tgt, p.tgtPtr)})
	}
	latencies(b, pairs, Budget{})
}

// Hostile pairs under a 256-candidate budget: max-tried must not exceed it.
func BenchmarkSearchHostile(b *testing.B) {
	var pairs [][2]Side
	for _, p := range hostilePairs(b) {
		pairs = append(pairs, [2]Side{side(b, p.src, p.srcPtr), side(b, p.tgt, p.tgtPtr)})
	}
	latencies(b, pairs, Budget{Candidates: 256, Time: time.Second})
	b.ReportMetric(256, "budget")
}

// Real corpus pairs: every top-level output property of a tool against
// every input property of the same name of another (or the same) tool.
func BenchmarkSearchCorpus(b *testing.B) {
	pairs := corpusFieldPairs(b)
	latencies(b, pairs, Budget{})
	b.ReportMetric(float64(len(pairs)), "pairs")
}
