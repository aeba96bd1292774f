package compat

import (
	"math/rand/v2"
	"testing"

	"github.com/typeward/typeward/internal/schema"
)

// splitDefs separates a generated document into its $defs and the rest, so
// that the rest can be placed elsewhere in a new document whose $defs
// keep every "#/$defs/…" reference landing on the same schema.
func splitDefs(doc map[string]any) (defs any, body map[string]any) {
	body = map[string]any{}
	for k, v := range doc {
		switch k {
		case "$defs":
			defs = v
		case "$schema":
		default:
			body[k] = v
		}
	}
	return defs, body
}

func withDefs(like map[string]any, defs any, root map[string]any) map[string]any {
	if defs != nil {
		root["$defs"] = defs
	}
	if d, ok := like["$schema"]; ok {
		root["$schema"] = d
	}
	return root
}

// TestLaws checks the three laws on generated schemas, each of which must
// be answered with no issue at all whatever the schemas hold:
// reflexivity (S ⊆ S, also across documents and through allOf),
// emptiness (S ∧ ¬S ⊆ T) and universality (T' ⊆ T ∨ ¬T).
func TestLaws(t *testing.T) {
	n := 150
	if testing.Short() || raceEnabled {
		n = 60
	}
	rnd := rand.New(rand.NewPCG(2026, 7))
	gen := &schemaGen{rnd: rnd}
	c := NewChecker()
	load := func(doc any) *schema.Schema {
		s, err := schema.FromValue(doc)
		if err != nil {
			return nil
		}
		return s
	}
	counts := map[string]int{}
	for range n {
		doc := gen.document()
		other := gen.document()
		defs, body := splitDefs(doc)
		odefs, obody := splitDefs(other)
		s, o := load(doc), load(other)
		if s == nil || o == nil {
			continue
		}
		copyDoc := map[string]any{"title": "a copy", "$comment": "another document"}
		for k, v := range doc {
			copyDoc[k] = v
		}
		cases := map[string][2]*schema.Schema{
			"reflexive":                    {s, s},
			"reflexive across documents":   {s, load(copyDoc)},
			"reflexive through allOf":      {s, load(withDefs(doc, defs, map[string]any{"allOf": []any{body}}))},
			"an empty source fits":         {load(withDefs(doc, defs, map[string]any{"allOf": []any{body, map[string]any{"not": body}}})), o},
			"a target of T or not T":       {s, load(withDefs(other, odefs, map[string]any{"anyOf": []any{obody, map[string]any{"not": obody}}}))},
			"a target of exactly T or not": {s, load(withDefs(other, odefs, map[string]any{"oneOf": []any{map[string]any{"not": obody}, obody}}))},
		}
		for name, pair := range cases {
			if pair[0] == nil || pair[1] == nil {
				continue
			}
			counts[name]++
			if issues := c.Check(Node{pair[0], ""}, Node{pair[1], ""}, Options{}); len(issues.Issues) > 0 {
				t.Errorf("%s: %s\nsource %s\ntarget %s\n%q", name, issues.Issues[0].Message, pair[0].Canonical, pair[1].Canonical, summarize(issues))
			}
		}
	}
	for _, name := range []string{"reflexive", "reflexive across documents", "reflexive through allOf", "an empty source fits", "a target of T or not T"} {
		if counts[name] < n/2 {
			t.Errorf("%s: only %d of %d generated cases loaded", name, counts[name], n)
		}
	}
}
