package compat

import (
	"encoding/json"
	"fmt"
	"maps"
	"math/big"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
)

// schemaGen produces small random schemas over a vocabulary rich enough to
// exercise every rule: kinds, bounds, tuples, combinators, refs and
// recursion. Numbers are json.Number, as schema.Parse produces.
type schemaGen struct {
	rnd *rand.Rand
}

func num(v string) json.Number { return json.Number(v) }

var (
	genNames   = []string{"a", "b", "c"}
	genNumbers = []string{"-1", "0", "0.5", "1", "2", "3", "5", "10", "0.1", "0.3", "1.0", "2.5"}
	genSteps   = []string{"0.5", "1", "2", "3", "4", "0.1", "0.3", "1.5", "0.25", "2.0"}
	// 1.0 is an integer in JSON Schema; "é" and "😀" are one code point
	// each (minLength counts code points, not bytes).
	genValues = []any{nil, true, false, num("0"), num("1"), num("2"), num("1.5"), num("-1"), "", "a", "ab", "b",
		[]any{}, []any{num("1")}, map[string]any{}, map[string]any{"a": num("1")},
		num("1.0"), num("0.3"), "é", "😀", "ba", []any{num("1"), num("1.0")}, []any{map[string]any{}, map[string]any{}},
		map[string]any{"a": num("1"), "b": "x"}, map[string]any{"x1": nil}}
)

func (g *schemaGen) pick(n int) int        { return g.rnd.IntN(n) }
func (g *schemaGen) chance(p float64) bool { return g.rnd.Float64() < p }

// document wraps a schema with $defs, some of them recursive, that inner
// schemas may reference.
func (g *schemaGen) document() map[string]any {
	doc := g.schema(0)
	m, ok := doc.(map[string]any)
	if !ok {
		m = map[string]any{"allOf": []any{doc}}
	}
	if g.chance(0.15) {
		// A draft-07 document: its tuples are items arrays, and the
		// 2019+ keywords inside mean nothing to the validator.
		m["$schema"] = "http://json-schema.org/draft-07/schema#"
		if items, ok := m["prefixItems"]; ok {
			m["items"], m["additionalItems"] = items, m["items"]
			delete(m, "prefixItems")
		}
	}
	if g.chance(0.3) || hasRef(m) {
		m["$defs"] = map[string]any{
			"node": map[string]any{"type": "object", "properties": map[string]any{
				"v":    g.schema(3),
				"next": map[string]any{"$ref": "#/$defs/node"},
			}},
			"leaf": g.schema(2),
		}
		defs := m["$defs"].(map[string]any)
		if leaf, ok := defs["leaf"].(map[string]any); ok {
			leaf["$anchor"] = "leafAnchor"
		} else {
			defs["leaf"] = map[string]any{"$anchor": "leafAnchor", "allOf": []any{defs["leaf"]}}
		}
	}
	return m
}

// hasRef tells whether a generated schema refers to its $defs.
func hasRef(v any) bool {
	b, _ := json.Marshal(v)
	return strings.Contains(string(b), `"$ref"`)
}

func (g *schemaGen) schema(depth int) any {
	if depth > 3 {
		return g.leaf()
	}
	switch g.pick(15) {
	case 0:
		return g.chance(0.7)
	case 1:
		return map[string]any{}
	case 2:
		return map[string]any{"enum": g.values(1 + g.pick(3))}
	case 3:
		return map[string]any{"const": genValues[g.pick(len(genValues))]}
	case 4, 5:
		kw := []string{"anyOf", "oneOf", "allOf"}[g.pick(3)]
		return map[string]any{kw: []any{g.schema(depth + 1), g.schema(depth + 1)}}
	case 6:
		return map[string]any{"not": g.schema(depth + 1)}
	case 7:
		return map[string]any{"$ref": []string{"#/$defs/node", "#/$defs/leaf"}[g.pick(2)]}
	case 8:
		return map[string]any{"if": g.schema(depth + 1), "then": g.schema(depth + 1), "else": g.schema(depth + 1)}
	case 9, 10:
		return g.object(depth)
	case 11:
		return g.array(depth)
	case 12:
		return g.exotic(depth)
	}
	return g.leaf()
}

// exotic covers keyword combinations the plain shapes above rarely make:
// $ref beside other keywords, anchors, if/then without else, type lists,
// enums mixing kinds and 1 with 1.0.
func (g *schemaGen) exotic(depth int) any {
	switch g.pick(8) {
	case 0:
		return map[string]any{"$ref": "#/$defs/leaf", "type": []any{"string", "integer", "null"}[g.pick(3)], "maxLength": num("1")}
	case 1:
		return map[string]any{"$ref": "#leafAnchor"}
	case 2:
		return map[string]any{"if": g.schema(depth + 1), "then": g.schema(depth + 1)}
	case 3:
		kinds := []any{"null", "boolean", "integer", "number", "string", "array", "object"}
		var t []any
		for _, k := range kinds {
			if g.chance(0.35) {
				t = append(t, k)
			}
		}
		if len(t) == 0 {
			t = kinds[:1]
		}
		return map[string]any{"type": t}
	case 4:
		return map[string]any{"enum": []any{num("1"), num("1.0"), "1", nil, false}[:1+g.pick(5)]}
	case 5:
		return map[string]any{"type": "string", "format": []string{"email", "date"}[g.pick(2)]}
	case 6:
		return map[string]any{"type": "number", "multipleOf": num(genSteps[g.pick(len(genSteps))]),
			[]string{"exclusiveMinimum", "minimum"}[g.pick(2)]: num(genNumbers[g.pick(len(genNumbers))])}
	}
	return map[string]any{"not": map[string]any{"type": []string{"null", "string", "integer"}[g.pick(3)]}}
}

func (g *schemaGen) values(n int) []any {
	out := make([]any, 0, n)
	for range n {
		out = append(out, genValues[g.pick(len(genValues))])
	}
	return out
}

func (g *schemaGen) leaf() any {
	types := []any{"null", "boolean", "integer", "number", "string",
		[]any{"string", "null"}, []any{"integer", "string"}, []any{"number", "null"}}
	m := map[string]any{"type": types[g.pick(len(types))]}
	if g.chance(0.4) {
		m[[]string{"minimum", "exclusiveMinimum"}[g.pick(2)]] = num(genNumbers[g.pick(len(genNumbers))])
	}
	if g.chance(0.4) {
		m[[]string{"maximum", "exclusiveMaximum"}[g.pick(2)]] = num(genNumbers[g.pick(len(genNumbers))])
	}
	if g.chance(0.2) {
		m["multipleOf"] = num(genSteps[g.pick(len(genSteps))])
	}
	if g.chance(0.3) {
		m["minLength"] = num(strconv.Itoa(g.pick(3)))
	}
	if g.chance(0.3) {
		m["maxLength"] = num(strconv.Itoa(g.pick(4)))
	}
	if g.chance(0.1) {
		m["pattern"] = []string{"^a", "^[ab]*$", "a", "^.$"}[g.pick(4)]
	}
	return m
}

func (g *schemaGen) object(depth int) any {
	props := map[string]any{}
	var required []any
	for _, n := range genNames {
		if g.chance(0.6) {
			props[n] = g.schema(depth + 1)
			if g.chance(0.5) {
				required = append(required, n)
			}
		}
	}
	m := map[string]any{"type": "object", "properties": props}
	if len(required) > 0 {
		m["required"] = required
	}
	switch g.pick(5) {
	case 0:
		m["additionalProperties"] = false
	case 1:
		m["additionalProperties"] = g.schema(depth + 1)
	case 2:
		m["patternProperties"] = map[string]any{"^x": g.schema(depth + 1)}
	}
	if g.chance(0.15) {
		m["minProperties"] = num(strconv.Itoa(g.pick(3)))
	}
	if g.chance(0.15) {
		m["maxProperties"] = num(strconv.Itoa(1 + g.pick(3)))
	}
	if g.chance(0.1) {
		m["dependentRequired"] = map[string]any{"a": []any{"b"}}
	}
	if g.chance(0.1) {
		m["unevaluatedProperties"] = false
	}
	if g.chance(0.12) {
		m["propertyNames"] = []any{map[string]any{"maxLength": num("1")}, map[string]any{"enum": []any{"a", "b"}},
			map[string]any{"pattern": "^[ab]$"}, false}[g.pick(4)]
	}
	if g.chance(0.08) {
		// draft-07's form, honoured by the validator in both dialects:
		// a list is dependentRequired, a schema dependentSchemas.
		m["dependencies"] = map[string]any{"a": []any{[]any{"c"}, g.schema(depth + 1)}[g.pick(2)]}
	}
	if g.chance(0.06) && len(props) > 0 {
		// A required property whose schema is false: no instance at all.
		name := slices.Sorted(maps.Keys(props))[0]
		props[name] = false
		m["required"] = append(required, name)
	}
	if g.chance(0.08) {
		m["dependentSchemas"] = map[string]any{"a": g.schema(depth + 1)}
	}
	if g.chance(0.08) {
		m["$ref"] = "#/$defs/leaf"
	}
	return m
}

func (g *schemaGen) array(depth int) any {
	m := map[string]any{"type": "array"}
	if g.chance(0.8) {
		m["items"] = g.schema(depth + 1)
	}
	if g.chance(0.2) {
		m["prefixItems"] = []any{g.schema(depth + 1)}
	}
	if g.chance(0.3) {
		m["minItems"] = num(strconv.Itoa(g.pick(3)))
	}
	if g.chance(0.3) {
		m["maxItems"] = num(strconv.Itoa(g.pick(4)))
	}
	if g.chance(0.15) {
		m["uniqueItems"] = true
	}
	if g.chance(0.15) {
		m["contains"] = g.schema(depth + 1)
		if g.chance(0.3) {
			m["minContains"] = num(strconv.Itoa(g.pick(3)))
		}
		if g.chance(0.2) {
			m["maxContains"] = num(strconv.Itoa(1 + g.pick(2)))
		}
	}
	if g.chance(0.08) {
		m["unevaluatedItems"] = g.schema(depth + 1)
	}
	return m
}

// mutate returns a variant of a schema: the same, loosened (keywords
// dropped) or perturbed, so that many generated pairs are related and
// compatibility is a live question.
func (g *schemaGen) mutate(v any) any {
	switch v := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(v))
		for _, k := range slices.Sorted(maps.Keys(v)) {
			if k != "$defs" && g.chance(0.15) {
				continue // drop a keyword
			}
			out[k] = g.mutateValue(k, v[k])
		}
		if g.chance(0.1) {
			out["type"] = []string{"string", "integer", "number", "object", "array", "null"}[g.pick(6)]
		}
		return out
	case []any:
		out := make([]any, len(v))
		for i, e := range v {
			out[i] = g.mutate(e)
		}
		return out
	}
	return v
}

func (g *schemaGen) mutateValue(key string, v any) any {
	switch key {
	case "properties", "patternProperties", "$defs":
		m, _ := v.(map[string]any)
		out := map[string]any{}
		for _, k := range slices.Sorted(maps.Keys(m)) {
			out[k] = g.mutate(m[k])
		}
		return out
	case "minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum":
		if g.chance(0.3) {
			return num(genNumbers[g.pick(len(genNumbers))])
		}
	case "minLength", "maxLength", "minItems", "maxItems":
		if g.chance(0.3) {
			return num(strconv.Itoa(g.pick(4)))
		}
	case "enum", "const", "required", "type", "pattern", "multipleOf", "dependentRequired":
		return v
	}
	return g.mutate(v)
}

// instanceGen produces candidate instances of a schema, guided by its
// keywords; callers keep only those the validator accepts.
type instanceGen struct {
	rnd  *rand.Rand
	root any
}

func (g *instanceGen) candidates(v any, n int) []any {
	seen := map[string]bool{}
	var out []any
	add := func(x any) {
		b, _ := json.Marshal(x)
		if !seen[string(b)] {
			seen[string(b)] = true
			out = append(out, x)
		}
	}
	for _, w := range genValues {
		add(w)
	}
	for range n {
		add(g.instance(v, 0))
	}
	return out
}

func (g *instanceGen) chance(p float64) bool { return g.rnd.Float64() < p }

func (g *instanceGen) resolve(ref string) any {
	if len(ref) < 2 {
		return g.root
	}
	if ref[1] != '/' { // an anchor: the generator only makes #leafAnchor
		ref = "#/$defs/leaf"
	}
	cur := g.root
	for _, tok := range splitPointer(ref[1:]) {
		m, ok := cur.(map[string]any)
		if !ok {
			return true
		}
		cur = m[tok]
	}
	return cur
}

func splitPointer(p string) []string {
	var out []string
	cur := ""
	for _, c := range p[1:] {
		if c == '/' {
			out = append(out, cur)
			cur = ""
			continue
		}
		cur += string(c)
	}
	return append(out, cur)
}

func (g *instanceGen) instance(v any, depth int) any {
	m, ok := v.(map[string]any)
	if !ok || depth > 6 {
		return genValues[g.rnd.IntN(len(genValues))]
	}
	if ref, ok := m["$ref"].(string); ok && g.chance(0.8) {
		return g.instance(g.resolve(ref), depth+1)
	}
	if c, ok := m["const"]; ok {
		return c
	}
	if e, ok := m["enum"].([]any); ok && len(e) > 0 {
		return e[g.rnd.IntN(len(e))]
	}
	for _, kw := range []string{"anyOf", "oneOf", "allOf"} {
		if bs, ok := m[kw].([]any); ok && len(bs) > 0 && g.chance(0.7) {
			return g.instance(bs[g.rnd.IntN(len(bs))], depth+1)
		}
	}
	if then, ok := m["then"]; ok && g.chance(0.5) {
		return g.instance(then, depth+1)
	}
	kinds := []string{"null", "boolean", "integer", "number", "string", "array", "object"}
	switch t := m["type"].(type) {
	case string:
		kinds = []string{t}
	case []any:
		kinds = kinds[:0:0]
		for _, e := range t {
			kinds = append(kinds, e.(string))
		}
	}
	switch kinds[g.rnd.IntN(len(kinds))] {
	case "null":
		return nil
	case "boolean":
		return g.chance(0.5)
	case "integer":
		return g.number(m, false)
	case "number":
		return g.number(m, true)
	case "string":
		return g.str(m)
	case "array":
		return g.array(m, depth)
	}
	return g.object(m, depth)
}

func (g *instanceGen) number(m map[string]any, frac bool) any {
	var cands []string
	for _, k := range []string{"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf"} {
		if n, ok := m[k].(json.Number); ok {
			r, _ := ratOf(n)
			for _, d := range []int64{-1, 0, 1, 2} {
				x := new(big.Rat).Add(r, new(big.Rat).SetInt64(d))
				cands = append(cands, x.RatString())
			}
		}
	}
	cands = append(cands, "0", "1", "-1", "2", "6", "12", "1.0", "3.0")
	if frac {
		cands = append(cands, "0.5", "1.5", "-0.5", "2.25", "0.1", "0.3", "0.6", "0.75")
	}
	return num(cands[g.rnd.IntN(len(cands))])
}

func (g *instanceGen) str(m map[string]any) any {
	n := g.rnd.IntN(4)
	if v, ok := intOf(m["minLength"]); ok && g.chance(0.5) {
		n = int(v.Int64())
	}
	if v, ok := intOf(m["maxLength"]); ok && g.chance(0.5) {
		n = int(v.Int64())
	}
	b := make([]rune, n)
	for i := range b {
		b[i] = []rune("abé😀")[g.rnd.IntN(4)]
	}
	return string(b)
}

func (g *instanceGen) array(m map[string]any, depth int) any {
	lo, hi := 0, 3
	if v, ok := intOf(m["minItems"]); ok {
		lo = int(v.Int64())
	}
	if v, ok := intOf(m["maxItems"]); ok && int(v.Int64()) < hi {
		hi = int(v.Int64())
	}
	if hi < lo {
		hi = lo
	}
	n := lo + g.rnd.IntN(hi-lo+1)
	prefix, _ := m["prefixItems"].([]any)
	out := make([]any, n)
	for i := range out {
		var item any = map[string]any{}
		if it, ok := m["items"]; ok {
			item = it
		}
		if i < len(prefix) {
			item = prefix[i]
		}
		if c, ok := m["contains"]; ok && g.chance(0.4) {
			item = c
		}
		out[i] = g.instance(item, depth+1)
	}
	return out
}

func (g *instanceGen) object(m map[string]any, depth int) any {
	props, _ := m["properties"].(map[string]any)
	req := stringList(m["required"])
	out := map[string]any{}
	for _, k := range slices.Sorted(maps.Keys(props)) {
		if slices.Contains(req, k) || g.chance(0.5) {
			out[k] = g.instance(props[k], depth+1)
		}
	}
	for _, k := range req {
		if _, ok := out[k]; !ok {
			out[k] = g.instance(nil, depth+1)
		}
	}
	if g.chance(0.25) {
		extra := "z"
		if g.chance(0.5) {
			extra = "x1"
		}
		var sch any = map[string]any{}
		if a, ok := m["additionalProperties"]; ok {
			sch = a
		}
		if pp, ok := m["patternProperties"].(map[string]any); ok && extra == "x1" {
			sch = pp["^x"]
		}
		out[extra] = g.instance(sch, depth+1)
	}
	return out
}

func describePair(src, tgt any) string {
	a, _ := json.Marshal(src)
	b, _ := json.Marshal(tgt)
	return fmt.Sprintf("source %s\ntarget %s", a, b)
}
