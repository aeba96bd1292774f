package compat

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/typeward/typeward/internal/verdict"
)

// A rule's "incompatible" stands only with a witness the real validator
// confirms: a claim whose candidates the validator does not confirm (the
// source rejects it, or the target accepts it) and that no search confirms
// comes out Unknown, cannot_prove, with the rule's reason in the message,
// and no witness. The rule here is made up on purpose: it claims
// integer ⊄ integer ≥ 0 with each candidate in turn.
func TestUnconfirmedClaimIsUnknown(t *testing.T) {
	src, tgt := Node{mustParse(t, `{"type":"integer"}`), ""}, Node{mustParse(t, `{"type":"integer","minimum":0}`), ""}
	claim := func(candidate any) []finding {
		return with([]finding{{claim: verdict.Incompatible, code: verdict.CodeRangeMismatch, tgtPtr: "/minimum",
			msg: srcMark + " may be below 0, the minimum of " + tgtMark}}, candidate)
	}
	noSearch := &Checker{memo: newMemo(memoBytes)} // only the rule's candidates count
	for _, tc := range []struct {
		name      string
		candidate any
		want      verdict.Verdict
	}{
		{"the source rejects the candidate", "x", verdict.Unknown},
		{"the target accepts the candidate", json.Number("5"), verdict.Unknown},
		{"a fraction the integer source rejects", json.Number("-0.5"), verdict.Unknown},
		{"control: the validator confirms -1", json.Number("-1"), verdict.Incompatible},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v, fs := noSearch.confirm(src, tgt, claim(tc.candidate))
			if v != tc.want || len(fs) != 1 {
				t.Fatalf("verdict %s with %d findings, want %s with 1", v, len(fs), tc.want)
			}
			is := render(fs, Options{})[0]
			if tc.want == verdict.Incompatible {
				if is.Code != verdict.CodeRangeMismatch || string(is.Witness) != "-1" {
					t.Fatalf("got %q", summarize(Result{v, []verdict.Issue{is}}))
				}
				assertWitness(t, src, tgt, is)
				return
			}
			want := "cannot confirm that source may be below 0, the minimum of target (range_mismatch): no value accepted by source and rejected by target was found"
			if is.Verdict != verdict.Unknown || is.Code != verdict.CodeCannotProve || is.Message != want || is.Witness != nil || is.WitnessError != nil {
				t.Fatalf("got %q\nwant unknown cannot_prove %q without a witness", summarize(Result{v, []verdict.Issue{is}}), want)
			}
		})
	}
	// With the search on, a wrong claim about a pair that is in fact
	// compatible still cannot become a refusal: nothing the search finds
	// is accepted by the source and rejected by the target.
	fit := Node{mustParse(t, `{"type":"integer","minimum":3}`), ""}
	v, fs := NewChecker().confirm(fit, tgt, claim(json.Number("-1")))
	if v != verdict.Unknown || len(fs) != 1 || !strings.HasPrefix(fs[0].msg, "cannot confirm that ") || fs[0].code != verdict.CodeCannotProve {
		t.Fatalf("a wrong claim on a compatible pair: verdict %s, %q", v, summarize(Result{v, render(fs, Options{})}))
	}
}
