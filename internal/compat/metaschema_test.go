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

// TestMetaschemaPairs: pairs referencing a standard metaschema (before,
// both schemas were refused at load). The rules cannot follow such a
// reference: a source drops it (it only widens, and a negation, a oneOf
// branch or a condition holding it is a target, where it cannot be proven),
// a finite source is decided by the validator, and two references to one
// place of one metaschema applied alone are the same schema.
func TestMetaschemaPairs(t *testing.T) {
	const m2020 = `{"$ref":"https://json-schema.org/draft/2020-12/schema"}`
	const m7 = `{"$ref":"http://json-schema.org/draft-07/schema#"}`
	tests := []struct {
		name     string
		src, tgt string
		want     verdict.Verdict
		not      verdict.Verdict // for an undecided pair: the verdict it must never get
	}{
		{name: "a schema const into the metaschema", src: `{"const":{"minLength":1}}`, tgt: m2020, want: verdict.Compatible},
		{name: "a non-schema const into the metaschema", src: `{"const":{"minLength":-1}}`, tgt: m2020, want: verdict.Incompatible},
		{name: "an enum with a number", src: `{"enum":[true,{"type":"string"},3]}`, tgt: m7, want: verdict.Incompatible},
		{name: "booleans are schemas", src: `{"type":"boolean"}`, tgt: m2020, want: verdict.Compatible},
		{name: "an argument declared to be a schema", src: `{"type":"object","properties":{"s":` + m2020 + `},"required":["s"]}`, tgt: `{"type":"object","required":["s"]}`, want: verdict.Compatible},
		{name: "the same metaschema by http and https", src: `{"type":"object","properties":{"s":` + m2020 + `},"required":["s"]}`,
			tgt: `{"type":"object","properties":{"s":{"$ref":"http://json-schema.org/draft/2020-12/schema#"}}}`, want: verdict.Compatible},
		{name: "the metaschema into itself", src: m2020, tgt: m2020, want: verdict.Compatible},
		{name: "a metaschema extended by the target's dynamic anchor", src: `{"type":"object","properties":{"s":` + m2020 + `}}`,
			tgt: `{"$dynamicAnchor":"meta","type":"object","properties":{"s":` + m2020 + `}}`, not: verdict.Compatible},
		{name: "2020-12 into 2019-09", src: m2020, tgt: `{"$ref":"https://json-schema.org/draft/2019-09/schema"}`, not: verdict.Compatible},
		{name: "a oneOf branch", src: `{"oneOf":[` + m2020 + `,{"type":"integer"}]}`, tgt: `{"not":{"type":"integer"}}`, not: verdict.Compatible},
		{name: "a condition", src: `{"if":` + m2020 + `,"then":{"type":"object"},"else":{"type":"integer"}}`, tgt: `{"type":["object","boolean"]}`, not: verdict.Compatible},
		{name: "unevaluatedProperties beside the reference", src: `{"$ref":"https://json-schema.org/draft/2020-12/schema","unevaluatedProperties":false}`, tgt: `{"maxProperties":0}`, not: verdict.Compatible},
		{name: "a dependent schema", src: `{"type":"object","dependentSchemas":{"a":{"not":` + m2020 + `}}}`, tgt: `{"type":"object","not":{"required":["a"]}}`, not: verdict.Compatible},
		{name: "contains none", src: `{"type":"array","contains":` + m2020 + `,"maxContains":0}`, tgt: `{"type":"array","maxItems":0}`, not: verdict.Compatible},
		{name: "names that are not schemas", src: `{"type":"object","propertyNames":{"not":` + m2020 + `}}`, tgt: `{"maxProperties":0}`, not: verdict.Compatible},
		{name: "a negated metaschema is not empty", src: `{"not":` + m2020 + `}`, tgt: `{"type":"null"}`, not: verdict.Compatible},
		{name: "a negated metaschema beside its type", src: `{"type":"object","not":{"$ref":"https://json-schema.org/draft/2020-12/schema","type":"object"}}`, tgt: `false`, not: verdict.Compatible},
		{name: "draft-07 siblings of the reference do not apply", src: `{"$schema":"http://json-schema.org/draft-07/schema#","$ref":"http://json-schema.org/draft-07/schema#","type":"string"}`, tgt: `{"type":"string"}`, not: verdict.Compatible},
		{name: "an object source into the metaschema", src: `{"type":"object"}`, tgt: m2020, not: verdict.Compatible},
		{name: "the metaschema into an object", src: m2020, tgt: `{"type":"object"}`, not: verdict.Compatible},
	}
	c := NewChecker()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src, tgt := Node{mustParse(t, tt.src), ""}, Node{mustParse(t, tt.tgt), ""}
			got := c.Check(src, tgt, Options{})
			switch {
			case tt.want != "" && got.Verdict != tt.want:
				t.Errorf("verdict %s, want %s: %v", got.Verdict, tt.want, summarize(got))
			case tt.not != "" && got.Verdict == tt.not:
				t.Errorf("verdict %s: %v", got.Verdict, summarize(got))
			}
			for _, is := range got.Issues {
				if is.Verdict == verdict.Incompatible {
					assertWitness(t, src, tgt, is)
				}
			}
		})
	}
}

// metaschemaRefs are the references the differential test sprinkles.
var metaschemaRefs = []string{
	"https://json-schema.org/draft/2020-12/schema",
	"http://json-schema.org/draft-07/schema#",
	"https://json-schema.org/draft/2019-09/schema",
}

// schemaish values are what a metaschema decides on: schemas and near misses.
var schemaish = []any{
	map[string]any{"type": num("5")}, map[string]any{"minLength": num("-1")}, map[string]any{"type": "string"},
	map[string]any{"properties": map[string]any{"a": num("5")}}, map[string]any{"not": num("3")},
	map[string]any{"items": "x"}, map[string]any{"exclusiveMinimum": true}, map[string]any{"$ref": "#"},
	map[string]any{"a": num("1"), "type": "integer"}, true, false, map[string]any{},
}

// sprinkle puts metaschema references into a generated document: in place
// of a subschema, beside one's keywords, under a not.
func sprinkle(rnd *rand.Rand, v any) any {
	m, ok := v.(map[string]any)
	if !ok {
		if rnd.IntN(6) == 0 {
			return map[string]any{"$ref": metaschemaRefs[rnd.IntN(len(metaschemaRefs))]}
		}
		return v
	}
	ref := metaschemaRefs[rnd.IntN(len(metaschemaRefs))]
	switch rnd.IntN(10) {
	case 0:
		return map[string]any{"$ref": ref}
	case 1:
		return map[string]any{"not": map[string]any{"$ref": ref}}
	case 2:
		if _, has := m["$ref"]; !has {
			m["$ref"] = ref
		}
	}
	for _, k := range slices.Sorted(maps.Keys(m)) {
		c := m[k]
		switch schema.PositionOf(k, c) {
		case schema.Subschema:
			m[k] = sprinkle(rnd, c)
		case schema.SchemaList:
			for i, e := range c.([]any) {
				c.([]any)[i] = sprinkle(rnd, e)
			}
		case schema.SchemaMap:
			if cm, ok := c.(map[string]any); ok && k != "$defs" {
				for _, n := range slices.Sorted(maps.Keys(cm)) {
					cm[n] = sprinkle(rnd, cm[n])
				}
			}
		}
	}
	return m
}

// TestMetaschemaDifferentialSoundness is TestDifferentialSoundness over
// documents holding metaschema references (which the rules cannot follow):
// every compatible pair is tried on generated instances and on schemas and
// near misses, at the top and one property or item down.
func TestMetaschemaDifferentialSoundness(t *testing.T) {
	pairs := *diffPairs
	if testing.Short() || raceEnabled {
		pairs /= 5
	}
	rnd := rand.New(rand.NewPCG(*diffSeed, 17))
	gen := &schemaGen{rnd: rnd}
	checker := NewChecker()
	var compatible, incompatible, unknown, checked int
	for i := range pairs {
		srcDoc := gen.document()
		var tgtDoc any
		if i%2 == 0 {
			tgtDoc = gen.mutate(srcDoc)
		} else {
			tgtDoc = gen.document()
		}
		b, _ := json.Marshal(tgtDoc) // detach before sprinkling the source
		srcDoc = sprinkle(rnd, srcDoc).(map[string]any)
		tgt, err := schema.Parse(b)
		if err != nil {
			continue
		}
		if rnd.IntN(2) == 0 {
			if tgt, err = schema.FromValue(sprinkle(rnd, tgt.Root)); err != nil {
				continue
			}
		}
		src, err := schema.FromValue(srcDoc)
		if err != nil {
			continue
		}
		if !src.ReferencesMetaschema() && !tgt.ReferencesMetaschema() {
			continue
		}
		cands := func() []any {
			ig := &instanceGen{rnd: rnd, root: src.Root}
			out := append(ig.candidates(src.Root, 40), schemaish...)
			for _, s := range schemaish {
				for _, name := range genNames {
					out = append(out, map[string]any{name: s})
				}
				out = append(out, []any{s}, []any{num("1"), s})
			}
			return out
		}
		switch v, n, _ := judge(t, checker, src, tgt, cands); v {
		case verdict.Compatible:
			compatible++
			checked += n
		case verdict.Incompatible:
			incompatible++
		default:
			unknown++
		}
	}
	t.Logf("pairs with a metaschema reference: %d compatible (%d instances checked), %d incompatible, %d unknown", compatible, checked, incompatible, unknown)
	if compatible == 0 || incompatible == 0 {
		t.Errorf("generator too one-sided: %d compatible, %d incompatible", compatible, incompatible)
	}
}
