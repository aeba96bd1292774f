package compat

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/typeward/typeward/internal/schema"
	"github.com/typeward/typeward/internal/verdict"
)

// ruleCase is one pair and the exact issue list expected, each issue as
// "verdict code source_pointer target_pointer: message", and for an
// incompatible one " [witness W rejected at K]": the witness's JSON and the
// target keyword that refused it.
type ruleCase struct {
	name     string
	src, tgt string
	srcPtr   string
	tgtPtr   string
	opts     Options
	want     []string
}

// nodeCase is ruleCase for schemas already loaded: a pair of nodes of real
// documents (the corpus, the reference pipeline).
type nodeCase struct {
	name     string
	src, tgt Node
	opts     Options
	want     []string
}

func mustParse(t testing.TB, doc string) *schema.Schema {
	t.Helper()
	s, err := schema.Parse([]byte(doc))
	if err != nil {
		t.Fatalf("parse %s: %v", doc, err)
	}
	return s
}

func summarize(r Result) []string {
	out := make([]string, 0, len(r.Issues))
	for _, is := range r.Issues {
		line := fmt.Sprintf("%s %s %s %s: %s", is.Verdict, is.Code, is.SourcePointer, is.TargetPointer, is.Message)
		if is.WitnessError != nil {
			line += fmt.Sprintf(" [witness %s rejected at %s]", is.Witness, is.WitnessError.KeywordLocation)
		}
		out = append(out, line)
	}
	return out
}

func runRuleCases(t *testing.T, cases []ruleCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			src, tgt := Node{mustParse(t, tc.src), tc.srcPtr}, Node{mustParse(t, tc.tgt), tc.tgtPtr}
			res := NewChecker().Check(src, tgt, tc.opts)
			if got := summarize(res); !slices.Equal(got, tc.want) {
				t.Errorf("issues:\n got  %s\n want %s", strings.Join(got, "\n      "), strings.Join(tc.want, "\n      "))
			}
			// Every rule table re-validates its witnesses with the real
			// validator, not only the rendering of them.
			for _, is := range res.Issues {
				if is.Verdict == verdict.Incompatible {
					assertWitness(t, src, tgt, is)
				}
			}
		})
	}
}

// runNodeCases shares one Checker across the cases, as the server does.
func runNodeCases(t *testing.T, cases []nodeCase) {
	t.Helper()
	c := NewChecker()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := summarize(c.Check(tc.src, tc.tgt, tc.opts))
			if !slices.Equal(got, tc.want) {
				t.Errorf("issues:\n got  %q\n want %q", got, tc.want)
			}
		})
	}
}
