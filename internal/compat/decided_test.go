package compat

import (
	"maps"
	"slices"
	"testing"

	"github.com/typeward/typeward/internal/schema"
	"github.com/typeward/typeward/internal/verdict"
)

// namedFieldPairs lists every (output property, input property) pair of
// the corpus whose names match: the fields a pipeline author would wire.
func namedFieldPairs(tools []corpusTool) [][2]Node {
	var pairs [][2]Node
	for _, o := range tools {
		if o.out == nil {
			continue
		}
		outProps, _ := o.out.At("/properties")
		om, _ := outProps.(map[string]any)
		for _, i := range tools {
			if i.in == nil {
				continue
			}
			inProps, _ := i.in.At("/properties")
			im, _ := inProps.(map[string]any)
			for _, name := range slices.Sorted(maps.Keys(om)) {
				if _, ok := im[name]; ok {
					ptr := "/properties/" + schema.EscapeToken(name)
					pairs = append(pairs, [2]Node{{o.out, ptr}, {i.in, ptr}})
				}
			}
		}
	}
	return pairs
}

// TestCorpusDecidedShare logs the share of same-named output→input field
// pairs of the real corpus the checker decides (no cannot_prove), the
// figure the issue tracks; it fails if the share ever drops below what the
// rules reached when it was written.
func TestCorpusDecidedShare(t *testing.T) {
	pairs := namedFieldPairs(loadCorpus(t))
	c := NewChecker()
	decided := 0
	for _, p := range pairs {
		// Decided: compatible, or incompatible with a confirmed witness.
		if c.Check(p[0], p[1], Options{}).Verdict != verdict.Unknown {
			decided++
		}
	}
	t.Logf("decided %d of %d same-named output→input field pairs (%.1f%%)", decided, len(pairs), 100*float64(decided)/float64(len(pairs)))
	// 326 of 331 before issue 7's laws; 328 after them; all 331 since a
	// draft-07 target's asserted format is decided (witness "" for uri).
	if decided < 331 {
		t.Errorf("only %d pairs decided; the checker reached 331", decided)
	}
}
