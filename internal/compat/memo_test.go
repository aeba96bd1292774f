package compat

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/typeward/typeward/internal/cache"
	"github.com/typeward/typeward/internal/verdict"
)

// manyFields is one document with n properties of alternating types, so
// that pairs of its fields are n² distinct memo keys, compatible and not.
func manyFields(t testing.TB, n int) Node {
	t.Helper()
	var b strings.Builder
	b.WriteString(`{"type":"object","properties":{`)
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		typ := []string{"string", "integer", "boolean"}[i%3]
		fmt.Fprintf(&b, `"p%d":{"type":%q}`, i, typ)
	}
	b.WriteString(`}}`)
	return Node{Schema: mustParse(t, b.String())}
}

func field(n Node, i int) Node { return Node{n.Schema, fmt.Sprintf("/properties/p%d", i)} }

// TestMemoIsBoundedBySize: novel pairs evict old answers, the memo never
// holds more bytes than its budget, and an evicted pair is answered the
// same again.
func TestMemoIsBoundedBySize(t *testing.T) {
	doc := manyFields(t, 40)
	c := NewChecker()
	const budget = 64 << 10
	c.memo = newMemo(budget)
	first := map[[2]int][]string{}
	for i := range 40 {
		for j := range 40 {
			r := c.Check(field(doc, i), field(doc, j), Options{SourceLabel: "a", TargetLabel: "b"})
			first[[2]int{i, j}] = summarize(r)
			if b := c.memo.c.Bytes(); b > budget {
				t.Fatalf("memo holds %d bytes, budget %d", b, budget)
			}
		}
	}
	st := c.memo.c.Stats()
	if st.Evictions == 0 || st.Entries >= 1600 {
		t.Fatalf("1600 pairs into a %d-byte memo evicted nothing: %+v", budget, st)
	}
	for _, ij := range [][2]int{{0, 0}, {0, 1}, {1, 2}, {2, 0}} {
		got := summarize(c.Check(field(doc, ij[0]), field(doc, ij[1]), Options{SourceLabel: "a", TargetLabel: "b"}))
		if !slices.Equal(got, first[ij]) {
			t.Errorf("pair %v answered %q after eviction, %q before", ij, got, first[ij])
		}
	}
}

// TestMemoHits: a hit on a compatible pair allocates nothing; one on an
// incompatible pair only the caller's copy of the issues; other labels are
// rendered for them, and the copy handed out cannot change the memo.
func TestMemoHits(t *testing.T) {
	doc := manyFields(t, 2)
	c := NewChecker()
	same, other := [2]Node{field(doc, 0), field(doc, 0)}, [2]Node{field(doc, 0), field(doc, 1)}
	opts := Options{SourceLabel: "a", TargetLabel: "b"}
	c.Check(same[0], same[1], opts)
	if n := testing.AllocsPerRun(100, func() { c.Check(same[0], same[1], opts) }); n != 0 {
		t.Errorf("a compatible hit allocates %.0f times", n)
	}
	r := c.Check(other[0], other[1], opts)
	if r.Verdict != verdict.Incompatible {
		t.Fatalf("string into integer: %q", summarize(r))
	}
	if n := testing.AllocsPerRun(100, func() { c.Check(other[0], other[1], opts) }); n != 1 {
		t.Errorf("an incompatible hit allocates %.0f times, want 1 (the caller's copy)", n)
	}
	r.Issues[0].Message = "changed by the caller"
	again := c.Check(other[0], other[1], opts)
	if again.Issues[0].Message == "changed by the caller" {
		t.Error("a caller's change to its issues reached the memo")
	}
	relabelled := c.Check(other[0], other[1], Options{SourceLabel: "x", TargetLabel: "y"})
	if !strings.HasPrefix(relabelled.Issues[0].Message, "x ") {
		t.Errorf("relabelled message %q does not name x", relabelled.Issues[0].Message)
	}
}

// TestFindingsBytes: the memo's cheap size of findings is never below what
// cache.Sizeof, which follows every pointer, finds in them (made-up and
// real corpus pairs).
func TestFindingsBytes(t *testing.T) {
	doc := manyFields(t, 3)
	tools := referenceTools(t)
	pairs := [][2]Node{{field(doc, 0), field(doc, 1)}, {field(doc, 1), field(doc, 2)},
		{{tools["db_query"][1], "/properties/rows"}, {tools["transform_csv"][0], "/properties/data"}}}
	for i, p := range corpusPairs(loadCorpus(t)) {
		if i%100 == 0 {
			pairs = append(pairs, p)
		}
	}
	c := NewChecker()
	for _, p := range pairs {
		_, fs := c.confirm(p[0], p[1], c.compute(p[0], p[1]))
		if got, floor := findingsBytes(fs), cache.Sizeof(fs); got < floor {
			t.Errorf("findingsBytes %d < Sizeof %d", got, floor)
		}
	}
}
