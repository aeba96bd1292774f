package compat

import "testing"

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
