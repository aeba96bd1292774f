package compat

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/typeward/typeward/internal/schema"
	"github.com/typeward/typeward/internal/verdict"
)

// containmentCase is one hand-labelled pair of testdata/containment: the
// truth is reasoned by hand (note says why); an incompatible truth carries a
// witness the test re-validates with the real validator.
type containmentCase struct {
	Source  json.RawMessage `json:"source"`
	Target  json.RawMessage `json:"target"`
	Truth   verdict.Verdict `json:"truth"`
	Witness json.RawMessage `json:"witness,omitempty"`
	Note    string          `json:"note"`
}

// containmentFloor is the number of cases the rules answered exactly when
// this was last measured (393 of 425 when the corpus was first written); the test
// fails if a change loses one.
const containmentFloor = 1073

// TestContainmentCorpus is the differential corpus of issue 7: every case's
// label is checked against the validator (an incompatible truth's witness
// is accepted by the source and refused by the target; a compatible truth's
// generated source instances all fit the target), then the checker's verdict
// is compared with it. Unsound answers and false refusals fail the test;
// Unknown is a miss, reported per family, and the number of exact answers
// must not drop below containmentFloor.
func TestContainmentCorpus(t *testing.T) {
	files, err := filepath.Glob("testdata/containment/*.json")
	if err != nil || len(files) == 0 {
		t.Fatalf("no containment corpus: %v", err)
	}
	c := NewChecker()
	rnd := rand.New(rand.NewPCG(3, 2026))
	total, agree := 0, 0
	var report []string
	var misses []string
	for _, f := range files {
		family := strings.TrimSuffix(filepath.Base(f), ".json")
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var cases []containmentCase
		if err := json.Unmarshal(data, &cases); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		famAgree := 0
		for i, tc := range cases {
			name := fmt.Sprintf("%s#%d (%s)", family, i, tc.Note)
			src, err := schema.Parse(tc.Source)
			if err != nil {
				t.Fatalf("%s: source: %v", name, err)
			}
			tgt, err := schema.Parse(tc.Target)
			if err != nil {
				t.Fatalf("%s: target: %v", name, err)
			}
			checkLabel(t, name, tc, src, tgt, rnd)
			got := c.Check(Node{src, ""}, Node{tgt, ""}, Options{})
			switch {
			case got.Verdict == tc.Truth:
				famAgree++
			case got.Verdict == verdict.Compatible:
				t.Errorf("UNSOUND %s: compatible, truth incompatible (witness %s)", name, tc.Witness)
			case got.Verdict == verdict.Incompatible:
				t.Errorf("FALSE REFUSAL %s: incompatible %v", name, summarize(got))
			default:
				misses = append(misses, fmt.Sprintf("%s: %v", name, summarize(got)))
			}
		}
		total += len(cases)
		agree += famAgree
		report = append(report, fmt.Sprintf("%-14s %3d/%3d", family, famAgree, len(cases)))
	}
	slices.Sort(misses)
	for _, m := range misses {
		t.Logf("miss %s", m)
	}
	t.Logf("exact agreement per family:\n%s", strings.Join(report, "\n"))
	share := float64(agree) / float64(total)
	t.Logf("exact agreement %d of %d (%.1f%%)", agree, total, 100*share)
	if agree < containmentFloor {
		t.Errorf("%d exact answers, fewer than the %d reached before", agree, containmentFloor)
	}
}

// checkLabel keeps the corpus honest: a wrong label would make the test
// praise a wrong answer.
func checkLabel(t *testing.T, name string, tc containmentCase, src, tgt *schema.Schema, rnd *rand.Rand) {
	t.Helper()
	switch tc.Truth {
	case verdict.Incompatible:
		dec := json.NewDecoder(bytes.NewReader(tc.Witness))
		dec.UseNumber()
		var w any
		if len(tc.Witness) == 0 || dec.Decode(&w) != nil {
			t.Fatalf("%s: an incompatible truth needs a witness", name)
		}
		if err := src.ValidateAt("", w); err != nil {
			t.Fatalf("%s: the source refuses the witness %s: %v", name, tc.Witness, err)
		}
		if tgt.ValidateAt("", w) == nil {
			t.Fatalf("%s: the target accepts the witness %s", name, tc.Witness)
		}
	case verdict.Compatible:
		ig := &instanceGen{rnd: rnd, root: src.Root}
		for _, v := range ig.candidates(src.Root, 12) {
			if src.ValidateAt("", v) != nil {
				continue
			}
			if err := tgt.ValidateAt("", v); err != nil {
				b, _ := json.Marshal(v)
				t.Fatalf("%s: labelled compatible but %s fits the source, not the target: %v", name, b, err)
			}
		}
	default:
		t.Fatalf("%s: truth %q is neither compatible nor incompatible", name, tc.Truth)
	}
}
