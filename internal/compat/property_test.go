package compat

import (
	"encoding/json"
	"flag"
	"math/rand/v2"
	"testing"

	"github.com/typeward/typeward/internal/schema"
	"github.com/typeward/typeward/internal/verdict"
)

// TestDifferentialSoundness generates related schema pairs and checks the
// checker against the real validator: when it calls a pair compatible,
// every generated source instance must validate against the target (a
// failure is a soundness bug); when it calls a pair incompatible, a
// witness is looked for and the hit rate logged.
func TestDifferentialSoundness(t *testing.T) {
	pairs := *diffPairs
	if testing.Short() || raceEnabled {
		pairs /= 5
	}
	rnd := rand.New(rand.NewPCG(*diffSeed, 11))
	gen := &schemaGen{rnd: rnd}
	checker := NewChecker()
	var compatible, incompatible, unproven, witnessed, instancesChecked int
	for i := range pairs {
		srcDoc := gen.document()
		var tgtDoc any
		switch i % 3 {
		case 0:
			tgtDoc = gen.document()
		case 1:
			tgtDoc = gen.mutate(srcDoc)
		default:
			tgtDoc = srcDoc
			if rnd.IntN(2) == 0 {
				srcDoc = gen.mutate(srcDoc).(map[string]any)
			}
		}
		src, err := schema.FromValue(srcDoc)
		if err != nil {
			continue // the generator may produce a schema the loader refuses
		}
		tgt, err := schema.FromValue(tgtDoc)
		if err != nil {
			continue
		}
		ig := &instanceGen{rnd: rnd, root: src.Root}
		cands := ig.candidates(src.Root, 40) // for every pair: the seed fixes the pairs after it
		switch v, n, w := judge(t, checker, src, tgt, func() []any { return cands }); v {
		case verdict.Compatible:
			compatible++
			instancesChecked += n
		case verdict.Incompatible:
			incompatible++
			witnessed += w
		default:
			unproven++
		}
	}
	t.Logf("pairs: %d compatible (%d instances checked), %d incompatible (%d witnesses re-validated), %d not provable",
		compatible, instancesChecked, incompatible, witnessed, unproven)
	if compatible < pairs/20 || incompatible < pairs/20 {
		t.Errorf("generator too one-sided: %d compatible, %d incompatible of %d", compatible, incompatible, pairs)
	}
	// Without instances "compatible" is never put to the test (about 12 per
	// pair is typical).
	if instancesChecked < 4*compatible {
		t.Errorf("only %d source instances for %d compatible pairs: the instance generator is too thin", instancesChecked, compatible)
	}
	if witnessed < incompatible {
		t.Errorf("only %d witnesses for %d incompatible pairs", witnessed, incompatible)
	}
}

// judge checks one pair and puts its verdict to the validator: a compatible
// pair's source instances (cands, generated only then) must all fit the
// target (a failure is a soundness bug), an incompatible pair's witnesses
// are re-validated. It returns the verdict, the instances checked and the
// witnesses re-validated.
func judge(t *testing.T, checker *Checker, src, tgt *schema.Schema, cands func() []any) (verdict.Verdict, int, int) {
	t.Helper()
	res := checker.Check(Node{src, ""}, Node{tgt, ""}, Options{})
	checked, witnessed := 0, 0
	switch res.Verdict {
	case verdict.Compatible:
		for _, v := range cands() {
			if src.Validate(v) != nil {
				continue
			}
			checked++
			if err := tgt.Validate(v); err != nil {
				b, _ := json.Marshal(v)
				t.Errorf("soundness bug: checker says compatible but %s is valid under the source and not the target\n%s\n%v",
					b, describePair(src.Root, tgt.Root), err)
				break
			}
		}
	case verdict.Incompatible:
		// Every Incompatible verdict carries its witness, re-validated
		// here independently of the checker.
		for _, is := range res.Issues {
			if is.Verdict == verdict.Incompatible {
				assertWitness(t, Node{src, ""}, Node{tgt, ""}, is)
				witnessed++
			}
		}
	}
	return res.Verdict, checked, witnessed
}

// The seed fixes the generated pairs; pass -diff.seed=N to explore others
// and -diff.pairs=N for a longer run.
var (
	diffSeed  = flag.Uint64("diff.seed", 2026, "seed of the differential soundness test")
	diffPairs = flag.Int("diff.pairs", 2500, "schema pairs in the differential soundness test")
)
