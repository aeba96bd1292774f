package compat

import (
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/typeward/typeward/internal/verdict"
)

// TestLabelsAfterMemo: one memo entry serves any labels.
func TestLabelsAfterMemo(t *testing.T) {
	src := mustParse(t, `{"type":"array","items":{"type":"object"}}`)
	tgt := mustParse(t, `{"type":"array","items":{"type":"string"}}`)
	c := NewChecker()
	first := c.Check(Node{src, ""}, Node{tgt, ""}, Options{SourceLabel: "rows", TargetLabel: "data"})
	second := c.Check(Node{src, ""}, Node{tgt, ""}, Options{SourceLabel: "a.b", TargetLabel: "c"})
	third := c.Check(Node{src, ""}, Node{tgt, ""}, Options{})
	if got := []string{first.Issues[0].Message, second.Issues[0].Message, third.Issues[0].Message}; !slices.Equal(got, []string{
		"rows[] is object but data[] expects string",
		"a.b[] is object but c[] expects string",
		"source[] is object but target[] expects string",
	}) {
		t.Errorf("messages: %q", got)
	}
	// The caller owns what it gets: mutating it must not touch the memo.
	first.Issues[0].Message = "changed"
	if again := c.Check(Node{src, ""}, Node{tgt, ""}, Options{SourceLabel: "rows", TargetLabel: "data"}); again.Issues[0].Message == "changed" {
		t.Error("memo shares issue slices with callers")
	}
}

// TestNullIsAWitness: a nullable source into a non-nullable target is
// Incompatible with the witness null, whatever the edge (whether that
// refuses the token is policy's business, not the checker's).
func TestNullIsAWitness(t *testing.T) {
	src := mustParse(t, `{"type":["string","null"]}`)
	tgt := mustParse(t, `{"type":"string"}`)
	r := NewChecker().Check(Node{src, ""}, Node{tgt, ""}, Options{})
	if r.Verdict != verdict.Incompatible || len(r.Issues) != 1 || r.Issues[0].Code != verdict.CodeMayBeNull ||
		string(r.Issues[0].Witness) != "null" || r.Issues[0].WitnessError == nil || r.Issues[0].WitnessError.KeywordLocation != "/type" {
		t.Errorf("got %+v", r)
	}
}

// TestConcurrentChecks shares one Checker between goroutines (run with
// -race) and expects identical answers.
func TestConcurrentChecks(t *testing.T) {
	tools := referenceTools(t)
	src, tgt := Node{tools["db_query"][1], "/properties/rows"}, Node{tools["transform_csv"][0], "/properties/data"}
	c := NewChecker()
	want := summarize(NewChecker().Check(src, tgt, Options{}))
	var wg sync.WaitGroup
	errs := make(chan string, 8)
	for range 8 {
		wg.Go(func() {
			for range 50 {
				if got := summarize(c.Check(src, tgt, Options{})); !slices.Equal(got, want) {
					errs <- fmt.Sprint(got)
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Errorf("concurrent answer differs: %s", e)
	}
}

// TestStepBudget: a source whose disjunctions multiply out to 2^16
// branches exhausts the budget and is reported, never passed.
func TestStepBudget(t *testing.T) {
	var conj []string
	for i := range 16 {
		conj = append(conj, fmt.Sprintf(`{"anyOf":[{"type":"integer","minimum":%d},{"type":"integer","maximum":%d}]}`, i, 100+i))
	}
	src := mustParse(t, `{"allOf":[`+strings.Join(conj, ",")+`]}`)
	tgt := mustParse(t, `{"type":"number"}`)
	got := summarize(NewChecker().Check(Node{src, ""}, Node{tgt, ""}, Options{}))
	want := []string{"unknown cannot_prove  : cannot prove source fits target: the schemas need more than the step budget"}
	if !slices.Equal(got, want) {
		t.Errorf("issues: %q", got)
	}
}

// TestEdgeCases covers inputs that must not panic and must not pass.
func TestEdgeCases(t *testing.T) {
	s := mustParse(t, `{"type":"string"}`)
	c := NewChecker()
	cases := []struct {
		name     string
		src, tgt Node
		want     []string
	}{
		{name: "missing schema", src: Node{nil, ""}, tgt: Node{s, ""},
			want: []string{"unknown cannot_prove  : cannot prove compatibility: a schema is missing"}},
		{name: "pointer that does not resolve", src: Node{s, "/nope"}, tgt: Node{s, ""},
			want: []string{"unknown cannot_prove /nope : cannot prove source fits target: a pointer does not resolve in its schema"}},
		{name: "pointer at a keyword value, not a schema", src: Node{s, "/type"}, tgt: Node{s, ""},
			want: []string{"unknown cannot_prove /type : cannot prove source fits target: a pointer does not point at a schema"}},
		{name: "self", src: Node{s, ""}, tgt: Node{s, ""}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := summarize(c.Check(tc.src, tc.tgt, Options{})); !slices.Equal(got, tc.want) {
				t.Errorf("issues: %q", got)
			}
		})
	}
}

// TestUnmodeledTargetKeyword: a validating keyword the rules do not model
// is reported, not ignored; a vendor keyword the validator ignores is
// ignored.
func TestUnmodeledTargetKeyword(t *testing.T) {
	runRuleCases(t, []ruleCase{
		{name: "$dynamicRef in one resource is followed", src: `{"type":"string"}`,
			tgt: `{"$defs":{"s":{"$dynamicAnchor":"s","type":"string"}},"$dynamicRef":"#s"}`},
		{name: "$dynamicRef in one resource is followed to a refusal", src: `{"type":"integer"}`,
			tgt:  `{"$defs":{"s":{"$dynamicAnchor":"s","type":"string"}},"$dynamicRef":"#s"}`,
			want: []string{"incompatible type_mismatch /type /$defs/s/type: source is integer but target expects string [witness 0 rejected at /$defs/s/type]"}},
		{name: "vendor keyword", src: `{"type":"string"}`, tgt: `{"type":"string","x-order":3}`},
		{name: "annotations", src: `{"type":"string"}`, tgt: `{"type":"string","title":"t","description":"d","default":"x","examples":["y"],"readOnly":true,"deprecated":true,"$comment":"c"}`},
	})
}
