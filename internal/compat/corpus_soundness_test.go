package compat

import (
	"encoding/json"
	"maps"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/typeward/typeward/internal/schema"
	"github.com/typeward/typeward/internal/verdict"
)

// TestCorpusSoundness is the differential test on real schemas: for every
// pair of real fields the checker calls compatible (corpus pairs, plus
// same-named input properties across tools, the fields pipelines wire),
// instances generated from the source field must validate against the
// target field.
func TestCorpusSoundness(t *testing.T) {
	tools := loadCorpus(t)
	pairs := corpusPairs(tools)
	pairs = append(pairs, sameNamedInputs(tools)...)
	rnd := rand.New(rand.NewPCG(7, 2026))
	c := NewChecker()
	clean, checked := 0, 0
	stride := 1
	if testing.Short() || raceEnabled {
		stride = 3
	}
	for i, p := range pairs {
		if i%stride != 0 {
			continue
		}
		if c.Check(p[0], p[1], Options{}).Verdict != verdict.Compatible {
			continue
		}
		clean++
		sub, _ := p[0].Schema.At(p[0].Pointer)
		ig := &instanceGen{rnd: rnd, root: p[0].Schema.Root}
		for _, v := range ig.candidates(sub, 12) {
			if p[0].Schema.ValidateAt(p[0].Pointer, v) != nil {
				continue
			}
			checked++
			if err := p[1].Schema.ValidateAt(p[1].Pointer, v); err != nil {
				b, _ := json.Marshal(v)
				t.Fatalf("soundness bug: %s%s called compatible with %s%s but %s fails it: %v",
					p[0].Schema.Digest, p[0].Pointer, p[1].Schema.Digest, p[1].Pointer, b, err)
			}
		}
	}
	t.Logf("%d real pairs compatible, %d source instances checked against their targets", clean, checked)
	if clean < 100/stride {
		t.Errorf("only %d compatible real pairs: the corpus draw is too thin", clean)
	}
	// Without instances the soundness claim above is vacuous (about 8 per
	// pair is typical).
	if checked < 2*clean {
		t.Errorf("only %d source instances for %d compatible pairs: the instance generator is too thin", checked, clean)
	}
}

// sameNamedInputs pairs the input properties of different tools that share
// a name (owner, repo, path, …): one tool's argument often feeds another's.
func sameNamedInputs(tools []corpusTool) [][2]Node {
	byName := map[string][]Node{}
	for _, tl := range tools {
		if tl.in == nil {
			continue
		}
		props, _ := tl.in.At("/properties")
		m, _ := props.(map[string]any)
		for _, name := range slices.Sorted(maps.Keys(m)) {
			byName[name] = append(byName[name], Node{tl.in, "/properties/" + schema.EscapeToken(name)})
		}
	}
	var pairs [][2]Node
	for _, name := range slices.Sorted(maps.Keys(byName)) {
		nodes := byName[name]
		for i := 0; i < len(nodes) && i < 8; i++ {
			for j := 0; j < len(nodes) && j < 8; j++ {
				if i != j {
					pairs = append(pairs, [2]Node{nodes[i], nodes[j]})
				}
			}
		}
	}
	return pairs
}
