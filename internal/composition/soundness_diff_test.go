package composition

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/typeward/typeward/internal/compat"
	"github.com/typeward/typeward/internal/registry"
	"github.com/typeward/typeward/internal/schema"
	"github.com/typeward/typeward/internal/verdict"
)

// TestMappingSoundness is the composition-level differential test: random
// output and input schemas (objects, arrays, nullable unions, $ref, allOf,
// tagged unions) and random source paths. For every mapping the validator
// calls clean, generated source instances are projected along the path
// (per item with each) and the produced values validated against the target
// field's schema with the real validator. A produced value the target
// rejects, an absent value for a required target field, or an element
// missing inside a projection is a soundness bug.
func TestMappingSoundness(t *testing.T) {
	trials := *mappingTrials
	if testing.Short() || raceEnabled {
		trials /= 4
	}
	rnd := rand.New(rand.NewPCG(*mappingSeed, 7))
	checker := compat.NewChecker()
	var clean, flagged, produced, mappings, pathWitnesses, pathUnproven int
	for mappings < trials {
		g := &outputGen{rnd: rnd, defs: map[string]any{}}
		out := g.document()
		paths := sourcePaths(out, out, nil, 0)
		if len(paths) == 0 {
			continue
		}
		outSchema, err := schema.FromValue(out)
		if err != nil {
			t.Fatalf("generated output schema does not load: %v\n%s", err, mustJSON(out))
		}
		// Instances are drawn once per output schema and reused for
		// every mapping from it.
		ig := &outputInstances{rnd: rnd, root: out}
		var instances []any
		for range 40 {
			if inst := ig.instance(out, 0); outSchema.Validate(inst) == nil {
				instances = append(instances, inst)
			}
		}
		for range 4 {
			mappings++
			steps := paths[rnd.IntN(len(paths))]
			tr := g.trial(out, steps)
			inSchema, err := schema.FromValue(tr.input)
			if err != nil {
				t.Fatalf("generated input schema does not load: %v\n%s", err, mustJSON(tr.input))
			}
			if found := mappingFindings(t, checker, outSchema, inSchema, tr); len(found) > 0 {
				flagged++
				// A path finding's witness (no target pointer: it is the
				// validator's, not the checker's) is a whole output: the
				// output schema must accept it.
				for _, is := range found {
					if is.Verdict == verdict.Incompatible && is.TargetPointer == "" && (is.Code == verdict.CodeMayBeMissing || is.Code == verdict.CodeMayBeNull) {
						pathWitnesses++
						if err := outSchema.Validate(decodeWitness(t, is.Witness)); err != nil {
							t.Fatalf("false refusal: %s->%s %s witness %s is no output: %v\nsource %s", tr.source, tr.target, is.Code, is.Witness, err, mustJSON(out))
						}
					}
					if strings.Contains(is.Message, "no output value the schema accepts was found") {
						pathUnproven++
					}
				}
				continue
			}
			clean++
			for _, inst := range instances {
				for _, val := range project(inst, steps, tr.each) {
					produced++
					if why := tr.reject(inSchema, val); why != "" {
						t.Fatalf("soundness bug: %s->%s (each %t, optional %t) called clean but %s\nsource %s\nproduced %s from %s\ninput %s",
							tr.source, tr.target, tr.each, tr.optional, why, mustJSON(out), mustJSON(val.v), mustJSON(inst), mustJSON(tr.input))
					}
				}
			}
		}
	}
	t.Logf("mappings: %d clean (%d produced values checked), %d with issues (%d path-finding witnesses re-validated, %d path findings unproven)", clean, produced, flagged, pathWitnesses, pathUnproven)
	if clean < trials/10 || flagged < trials/10 {
		t.Errorf("generator too one-sided: %d clean, %d flagged of %d", clean, flagged, trials)
	}
	// Without produced values a clean verdict is never put to the test
	// (about 25 per clean mapping is typical).
	if produced < 5*clean {
		t.Errorf("only %d produced values for %d clean mappings: the instance generator is too thin", produced, clean)
	}
}

// mappingFindings validates the trial's one-edge composition and returns
// the issues of its mapping.
func mappingFindings(t *testing.T, checker *compat.Checker, out, in *schema.Schema, tr mappingTrial) []verdict.Issue {
	t.Helper()
	tools := fixedTools{
		"gen/src": {Server: "gen", Name: "src", Version: 1, Input: in, Output: out},
		"gen/tgt": {Server: "gen", Name: "tgt", Version: 1, Input: in, Output: out},
	}
	doc := fmt.Sprintf(`{"nodes":[{"id":"a","tool":"gen/src"},{"id":"b","tool":"gen/tgt"}],
		"edges":[{"from":"a","to":"b","map":{%q:%q},"each":%t,"optional":%t}]}`,
		tr.source, tr.target, tr.each, tr.optional)
	c, err := Parse([]byte(doc))
	if err != nil {
		t.Fatalf("parse %s: %v", doc, err)
	}
	res, err := NewValidator(tools, nil, checker).Validate(context.Background(), c)
	if err != nil {
		t.Fatal(err)
	}
	assertStrictRefusalsWitnessed(t, tools, res)
	label := tr.source + "->" + tr.target
	var mine []verdict.Issue
	for _, is := range res.Issues {
		if is.FieldPath == label {
			mine = append(mine, is)
		}
	}
	return mine
}

var (
	mappingSeed   = flag.Uint64("mapping.seed", 2026, "seed of the mapping soundness test")
	mappingTrials = flag.Int("mapping.trials", 1500, "random mappings in the mapping soundness test")
)

// fixedTools resolves a fixed set of tools by qualified name.
type fixedTools map[string]*registry.ResolvedTool

func (f fixedTools) ResolveTool(_ context.Context, name string, _ int) (*registry.ResolvedTool, error) {
	if t, ok := f[name]; ok {
		return t, nil
	}
	return nil, fmt.Errorf("tool %s: %w", name, registry.ErrNotFound)
}

func mustJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

// outputGen produces output schemas in the shapes real servers emit.
type outputGen struct {
	rnd  *rand.Rand
	defs map[string]any
}

func (g *outputGen) chance(p float64) bool { return g.rnd.Float64() < p }

func (g *outputGen) document() map[string]any {
	var root any
	switch g.rnd.IntN(10) {
	case 0:
		root = g.array(1)
	case 1:
		root = g.leaf()
	default:
		root = g.object(0)
	}
	doc, ok := root.(map[string]any)
	if !ok {
		doc = map[string]any{"allOf": []any{root}}
	}
	doc = maps.Clone(doc)
	if len(g.defs) > 0 {
		doc["$defs"] = g.defs
	}
	if g.chance(0.2) {
		// draft-07, as many real servers declare: definitions, and a $ref
		// that hides its siblings.
		var d7 map[string]any
		b := strings.ReplaceAll(mustJSON(doc), `"$defs"`, `"definitions"`)
		b = strings.ReplaceAll(b, `#/$defs/`, `#/definitions/`)
		dec := json.NewDecoder(strings.NewReader(b))
		dec.UseNumber()
		if err := dec.Decode(&d7); err == nil {
			d7["$schema"] = "http://json-schema.org/draft-07/schema#"
			return d7
		}
	}
	return doc
}

var genLeaves = []string{
	`{"type":"string"}`, `{"type":"string","maxLength":3}`, `{"type":"integer"}`, `{"type":"integer","minimum":0}`,
	`{"type":"number"}`, `{"type":"boolean"}`, `{"type":["string","null"]}`, `{"type":["integer","null"]}`,
	`{"enum":["x","y"]}`, `{"enum":["x",null]}`, `{"const":1}`, `{}`, `{"type":"null"}`,
}

func (g *outputGen) leaf() any {
	var v any
	_ = json.Unmarshal([]byte(genLeaves[g.rnd.IntN(len(genLeaves))]), &v)
	return numbers(v)
}

// numbers turns float64 into json.Number, as schema.Parse decodes.
func numbers(v any) any {
	switch v := v.(type) {
	case float64:
		return json.Number(strconv.FormatFloat(v, 'f', -1, 64))
	case map[string]any:
		for k, e := range v {
			v[k] = numbers(e)
		}
	case []any:
		for i, e := range v {
			v[i] = numbers(e)
		}
	}
	return v
}

func (g *outputGen) shape(depth int) any {
	if depth >= 3 {
		return g.leaf()
	}
	switch g.rnd.IntN(12) {
	case 0, 1, 2:
		return g.object(depth)
	case 3, 4:
		return g.array(depth)
	case 5:
		return map[string]any{"anyOf": []any{g.shape(depth + 1), map[string]any{"type": "null"}}}
	case 6:
		return g.union(depth)
	case 7:
		name := "d" + strconv.Itoa(len(g.defs))
		g.defs[name] = g.shape(depth + 1)
		ref := map[string]any{"$ref": "#/$defs/" + name}
		if g.chance(0.3) {
			// Siblings: conjoined in 2020-12, ignored in draft-07.
			ref["properties"] = map[string]any{"a": g.leaf()}
			ref["type"] = []any{"object", "array", "string", "integer", "number", "boolean", "null"}[g.rnd.IntN(7)]
		}
		return ref
	case 8:
		o, _ := g.object(depth).(map[string]any)
		if g.chance(0.5) {
			o["type"] = []any{"object", "null"}
		}
		return o
	}
	return g.leaf()
}

var genFields = []string{"a", "b", "c"}

func (g *outputGen) object(depth int) any {
	props := map[string]any{}
	var req []any
	for _, n := range genFields {
		if g.chance(0.7) {
			props[n] = g.shape(depth + 1)
			if g.chance(0.6) {
				req = append(req, n)
			}
		}
	}
	o := map[string]any{"type": "object", "properties": props}
	if len(req) > 0 {
		o["required"] = req
	}
	switch g.rnd.IntN(10) {
	case 0, 1:
		o["additionalProperties"] = false
	case 2:
		o["additionalProperties"] = g.shape(depth + 1)
	case 3:
		o["patternProperties"] = map[string]any{"^z": g.shape(depth + 1)}
	case 4:
		o["unevaluatedProperties"] = false
	case 5:
		o["unevaluatedProperties"] = g.shape(depth + 1)
	}
	if g.chance(0.15) && len(props) > 1 {
		// The same object as allOf of two halves, as zod's .and() emits.
		first := map[string]any{"type": "object", "properties": map[string]any{}}
		second := map[string]any{"properties": map[string]any{}}
		for i, n := range slices.Sorted(maps.Keys(props)) {
			half := first
			if i%2 == 1 {
				half = second
			}
			half["properties"].(map[string]any)[n] = props[n]
			if slices.Contains(req, any(n)) {
				r, _ := half["required"].([]any)
				half["required"] = append(r, n)
			}
		}
		return map[string]any{"allOf": []any{first, second}}
	}
	return o
}

func (g *outputGen) array(depth int) any {
	a := map[string]any{"type": "array", "items": g.shape(depth + 1)}
	if g.chance(0.2) {
		a["minItems"] = json.Number("1")
	}
	if g.chance(0.15) {
		a["type"] = []any{"array", "null"}
	}
	return a
}

// union is a tagged union of two object shapes that share some fields.
func (g *outputGen) union(depth int) any {
	kw := []string{"anyOf", "oneOf"}[g.rnd.IntN(2)]
	var branches []any
	for i, tag := range []string{"p", "q"} {
		o, _ := g.object(depth + 1).(map[string]any)
		if _, ok := o["allOf"]; ok {
			o = map[string]any{"allOf": []any{o, map[string]any{"properties": map[string]any{"kind": map[string]any{"const": tag}}, "required": []any{"kind"}}}}
		} else {
			o["properties"].(map[string]any)["kind"] = map[string]any{"const": tag}
			r, _ := o["required"].([]any)
			o["required"] = append(r, "kind")
		}
		if i == 1 && g.chance(0.3) {
			branches = append(branches, map[string]any{"type": "null"})
		}
		branches = append(branches, o)
	}
	return map[string]any{kw: branches}
}

// sourcePaths lists the paths a schema describes, following refs, allOf and
// unions, plus a few it does not.
func sourcePaths(root, v any, prefix []Step, depth int) [][]Step {
	if depth > 4 {
		return nil
	}
	out := [][]Step{slices.Clone(prefix)}
	if len(prefix) == 0 {
		out = out[:0] // "$" only sometimes: added below
	}
	m, ok := v.(map[string]any)
	if !ok {
		return out
	}
	if ref, ok := m["$ref"].(string); ok {
		out = append(out, sourcePaths(root, lookupRef(root, ref), prefix, depth+1)...)
	}
	for _, kw := range []string{"allOf", "anyOf", "oneOf"} {
		bs, _ := m[kw].([]any)
		for _, b := range bs {
			out = append(out, sourcePaths(root, b, prefix, depth+1)...)
		}
	}
	if props, ok := m["properties"].(map[string]any); ok {
		for _, n := range slices.Sorted(maps.Keys(props)) {
			out = append(out, sourcePaths(root, props[n], append(slices.Clone(prefix), Step{Name: n}), depth+1)...)
		}
		out = append(out, append(slices.Clone(prefix), Step{Name: "zz"}))
	}
	if it, ok := m["items"]; ok {
		out = append(out, sourcePaths(root, it, append(slices.Clone(prefix), Step{Items: true}), depth+1)...)
	}
	return out
}

func lookupRef(root any, ref string) any {
	v := root
	for _, tok := range strings.Split(strings.TrimPrefix(ref, "#/"), "/") {
		m, _ := v.(map[string]any)
		v = m[tok]
	}
	return v
}

// mappingTrial is one mapping and the input schema it writes into.
type mappingTrial struct {
	source, target string
	required       bool
	each, optional bool
	input          map[string]any
}

var genTargets = []string{
	`{"type":"string"}`, `{"type":"integer"}`, `{"type":"number"}`, `{"type":["string","null"]}`, `true`,
	`{"type":"array","items":{"type":"string"}}`, `{"type":"array","items":{"type":["string","null"]}}`,
	`{"type":"array","items":{"type":"integer"}}`, `{"type":"array","minItems":1}`, `{"type":"array"}`,
	`{"type":"array","items":{"type":"array","items":{"type":"string"}}}`, `{"type":"object"}`,
	`{"type":"object","properties":{"a":{"type":"string"}},"required":["a"]}`, `{"enum":["x","y"]}`,
	`{"type":"boolean"}`, `{"type":["object","null"]}`,
}

// trial picks a mapping of the path and a target field: from a pool of
// common shapes, or the source's own schema there (often compatible, so
// that nullability and absence are what decides).
func (g *outputGen) trial(out map[string]any, steps []Step) mappingTrial {
	tr := mappingTrial{source: Path{Steps: steps}.String(), target: "f", required: g.chance(0.7), optional: g.chance(0.25)}
	if len(steps) == 0 {
		tr.source = "$"
	}
	items := 0
	for _, st := range steps {
		if st.Items {
			items++
		}
	}
	tr.each = items > 0 && g.chance(0.4)
	var field any
	if g.chance(0.5) {
		field = g.ownSchema(out, steps, tr.each)
	} else {
		_ = json.Unmarshal([]byte(genTargets[g.rnd.IntN(len(genTargets))]), &field)
		field = numbers(field)
	}
	defs := map[string]any{}
	for _, kw := range []string{"$defs", "definitions"} {
		if d, ok := out[kw].(map[string]any); ok {
			for k, v := range d {
				defs[k] = v
			}
		}
	}
	holder := g.holder(field, tr.required, defs)
	var in map[string]any
	if g.chance(0.2) {
		tr.target = "g.f"
		in = map[string]any{"type": "object", "properties": map[string]any{"g": holder}, "required": []any{"g"}}
	} else {
		in = maps.Clone(holder)
	}
	if len(defs) > 0 {
		// The output's definitions under both names, so that its refs
		// resolve whichever dialect it was written in.
		in["$defs"], in["definitions"] = defs, defs
	}
	if g.chance(0.2) {
		in["$schema"] = "http://json-schema.org/draft-07/schema#"
	}
	tr.input = in
	return tr
}

// holder is an object schema that describes field f in one of the ways
// input schemas do: a property, additionalProperties, patternProperties,
// allOf halves, unevaluatedProperties, a $ref, a nullable object.
func (g *outputGen) holder(field any, required bool, defs map[string]any) map[string]any {
	h := map[string]any{"type": "object", "properties": map[string]any{"f": field}}
	switch g.rnd.IntN(10) {
	case 1:
		h = map[string]any{"type": "object", "additionalProperties": field}
	case 2:
		h = map[string]any{"type": "object", "patternProperties": map[string]any{"^f": field}}
	case 3:
		var extra any
		_ = json.Unmarshal([]byte(genTargets[g.rnd.IntN(len(genTargets))]), &extra)
		h = map[string]any{"type": "object", "allOf": []any{
			map[string]any{"properties": map[string]any{"f": field}},
			map[string]any{"properties": map[string]any{"f": numbers(extra)}}}}
	case 4:
		h["unevaluatedProperties"] = false
	case 5:
		h = map[string]any{"type": "object", "allOf": []any{map[string]any{"properties": map[string]any{"f": field}}},
			"unevaluatedProperties": false}
	case 6:
		h["type"] = []any{"object", "null"}
	case 7:
		defs["holder"] = h
		h = map[string]any{"$ref": "#/$defs/holder"}
	case 8, 9:
		// A union of shapes, one of which constrains f, here or under not;
		// the other needs a member the mapping does not write.
		var extra any
		_ = json.Unmarshal([]byte(genTargets[g.rnd.IntN(len(genTargets))]), &extra)
		shape := map[string]any{"properties": map[string]any{"f": numbers(extra)}}
		if g.chance(0.5) {
			shape = map[string]any{"not": map[string]any{"properties": map[string]any{"f": numbers(extra)}, "required": []any{"f"}}}
		}
		h["anyOf"] = []any{shape, map[string]any{"required": []any{"zz"}}}
	}
	if required {
		h["required"] = []any{"f"}
	}
	return h
}

// ownSchema is the source schema along the path (by pointer, so refs into
// $defs keep working in the input document), wrapped in one array per
// projected [].
func (g *outputGen) ownSchema(out map[string]any, steps []Step, each bool) any {
	var cur any = out
	wraps := 0
	iterated := !each
	for _, st := range steps {
		m, _ := cur.(map[string]any)
		m = g.plain(out, m)
		if st.Items {
			cur = m["items"]
			if iterated {
				wraps++
			}
			iterated = true
			continue
		}
		props, _ := m["properties"].(map[string]any)
		cur = props[st.Name]
	}
	if cur == nil {
		cur = true
	}
	for range wraps {
		cur = map[string]any{"type": "array", "items": cur}
	}
	return cur
}

// plain follows $ref, a nullable union, and merges allOf halves, so that
// ownSchema can step into properties and items.
func (g *outputGen) plain(root map[string]any, m map[string]any) map[string]any {
	for range 8 {
		if ref, ok := m["$ref"].(string); ok {
			m, _ = lookupRef(root, ref).(map[string]any)
			continue
		}
		if bs, ok := m["allOf"].([]any); ok {
			merged := map[string]any{"properties": map[string]any{}}
			for _, b := range bs {
				bm := g.plain(root, b.(map[string]any))
				props, _ := bm["properties"].(map[string]any)
				for k, v := range props {
					merged["properties"].(map[string]any)[k] = v
				}
			}
			return merged
		}
		for _, kw := range []string{"anyOf", "oneOf"} {
			if bs, ok := m[kw].([]any); ok {
				b := bs[g.rnd.IntN(len(bs))].(map[string]any)
				if b["type"] == "null" {
					b = bs[0].(map[string]any)
				}
				m = b
			}
		}
		if _, ok := m["$ref"]; !ok {
			return m
		}
	}
	return m
}

// produced is one value a mapping delivers to the target, or none.
type produced struct {
	v      any
	absent bool // the field is not there: the target field gets no value
	hole   bool // an element of a projected array has no value
}

// project applies a source path to an instance: one value, or with each
// one value per element of the first [] (none when that array is absent).
func project(inst any, steps []Step, each bool) []produced {
	if !each {
		return []produced{projectValue(inst, steps)}
	}
	cur := inst
	for i, st := range steps {
		if st.Items {
			arr, ok := cur.([]any)
			if !ok {
				return nil // no array: the target does not run
			}
			var out []produced
			for _, e := range arr {
				out = append(out, projectValue(e, steps[i+1:]))
			}
			return out
		}
		m, ok := cur.(map[string]any)
		if !ok {
			return nil
		}
		if cur, ok = m[st.Name]; !ok {
			return nil
		}
	}
	return nil
}

func projectValue(v any, steps []Step) produced {
	for i, st := range steps {
		if st.Items {
			arr, ok := v.([]any)
			if !ok {
				return produced{absent: true}
			}
			out := make([]any, len(arr))
			hole := false
			for j, e := range arr {
				p := projectValue(e, steps[i+1:])
				if p.absent || p.hole {
					hole = true
				}
				out[j] = p.v
			}
			return produced{v: out, hole: hole}
		}
		m, ok := v.(map[string]any)
		if !ok {
			return produced{absent: true}
		}
		if v, ok = m[st.Name]; !ok {
			return produced{absent: true}
		}
	}
	return produced{v: v}
}

// reject says why the target would not accept a produced value, or "":
// the whole input, holding only this field, is validated.
func (tr mappingTrial) reject(in *schema.Schema, p produced) string {
	if p.hole {
		return "an element of the projected array has no value"
	}
	holder := map[string]any{}
	if !p.absent {
		holder["f"] = p.v
	}
	var input any = holder
	if tr.target == "g.f" {
		input = map[string]any{"g": holder}
	}
	if err := in.Validate(input); err != nil {
		return "the target rejects the input: " + err.Error()
	}
	return ""
}

// outputInstances generates candidate instances of an output schema; the
// caller keeps those the validator accepts.
type outputInstances struct {
	rnd  *rand.Rand
	root any
}

var anyValues = []any{nil, true, "x", json.Number("1"), json.Number("1.5"), []any{}, map[string]any{}}

func (g *outputInstances) instance(v any, depth int) any {
	m, ok := v.(map[string]any)
	if !ok || depth > 8 {
		return anyValues[g.rnd.IntN(len(anyValues))]
	}
	if ref, ok := m["$ref"].(string); ok {
		return g.instance(lookupRef(g.root, ref), depth+1)
	}
	if bs, ok := m["allOf"].([]any); ok {
		merged := map[string]any{}
		for _, b := range bs {
			if o, ok := g.instance(b, depth+1).(map[string]any); ok {
				for k, e := range o {
					merged[k] = e
				}
			}
		}
		return merged
	}
	for _, kw := range []string{"anyOf", "oneOf"} {
		if bs, ok := m[kw].([]any); ok {
			return g.instance(bs[g.rnd.IntN(len(bs))], depth+1)
		}
	}
	if c, ok := m["const"]; ok {
		return c
	}
	if e, ok := m["enum"].([]any); ok {
		return e[g.rnd.IntN(len(e))]
	}
	kinds := []string{"null", "boolean", "integer", "number", "string", "array", "object"}
	switch t := m["type"].(type) {
	case string:
		kinds = []string{t}
	case []any:
		kinds = nil
		for _, e := range t {
			kinds = append(kinds, e.(string))
		}
	}
	switch kinds[g.rnd.IntN(len(kinds))] {
	case "null":
		return nil
	case "boolean":
		return true
	case "integer":
		return json.Number(strconv.Itoa(g.rnd.IntN(3)))
	case "number":
		return json.Number([]string{"0.5", "2"}[g.rnd.IntN(2)])
	case "string":
		return []string{"x", "y", "long string"}[g.rnd.IntN(3)]
	case "array":
		n := g.rnd.IntN(3)
		out := make([]any, n)
		for i := range out {
			out[i] = g.instance(m["items"], depth+1)
		}
		return out
	}
	props, _ := m["properties"].(map[string]any)
	req := stringsOf(m["required"])
	out := map[string]any{}
	for _, k := range slices.Sorted(maps.Keys(props)) {
		if slices.Contains(req, k) || g.rnd.IntN(3) > 0 {
			out[k] = g.instance(props[k], depth+1)
		}
	}
	if g.rnd.IntN(3) == 0 {
		// A member no property names: additionalProperties,
		// patternProperties or unevaluatedProperties decide.
		var extra any = true
		for _, kw := range []string{"additionalProperties", "unevaluatedProperties"} {
			if e, ok := m[kw]; ok {
				extra = e
			}
		}
		name := []string{"zz", "a", "b", "c"}[g.rnd.IntN(4)]
		if _, declared := props[name]; declared {
			name = "zz"
		}
		if pp, ok := m["patternProperties"].(map[string]any); ok && name == "zz" {
			extra = pp["^z"]
		}
		out[name] = g.instance(extra, depth+1)
	}
	return out
}

func stringsOf(v any) []string {
	arr, _ := v.([]any)
	var out []string
	for _, e := range arr {
		if s, ok := e.(string); ok {
			out = append(out, s)
		}
	}
	return out
}

func decodeWitness(t *testing.T, w json.RawMessage) any {
	t.Helper()
	d := json.NewDecoder(strings.NewReader(string(w)))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		t.Fatalf("witness %s: %v", w, err)
	}
	return v
}
