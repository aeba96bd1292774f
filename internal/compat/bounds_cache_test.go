package compat

import (
	"math/big"
	"testing"
)

// TestCachedBoundsAreCopies: the per-Check bounds cache answers as the
// uncached reading does, for integer and fraction sources, and a caller
// that changes the bound it was given (cover.go rounds one in place)
// does not change the next answer.
func TestCachedBoundsAreCopies(t *testing.T) {
	doc := mustParse(t, `{"allOf":[{"minimum":1.5,"exclusiveMaximum":9},{"minimum":2},{"maximum":8.25},{"not":{"minimum":7}}]}`)
	r := &run{src: doc, tgt: doc, caches: newRunCaches()}
	for _, types := range []Kinds{KindNumber, KindInteger} {
		s := viewOf(newNode(doc.Root, ""))
		s.types = types
		s, _ = r.normalize(s)
		wantLo, wantHi := numberBounds(s)
		for i := range 3 {
			lo, hi := r.numberBounds(s)
			if lo.v.Cmp(wantLo.v) != 0 || hi.v.Cmp(wantHi.v) != 0 || lo.ptr != wantLo.ptr || hi.ptr != wantHi.ptr || lo.excl != wantLo.excl || hi.excl != wantHi.excl {
				t.Fatalf("types %v, call %d: [%v %v], want [%v %v]", types, i, lo, hi, wantLo, wantHi)
			}
			lo.v.Set(big.NewRat(-100, 1))
			hi.v.Set(big.NewRat(100, 1))
		}
	}
	if len(r.caches.bounds) == 0 {
		t.Error("nothing was cached")
	}
}
