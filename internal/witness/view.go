package witness

import (
	"encoding/json"
	"maps"
	"math/big"
	"slices"
	"strconv"

	"github.com/typeward/typeward/internal/schema"
	"github.com/typeward/typeward/internal/schemaview"
)

// node is a subschema and its JSON pointer in the source document.
type node struct {
	v   any
	ptr string
}

// conj is a conjunction of subschemas an instance must satisfy at once: a
// schema with its allOf branches, its $ref target, one anyOf branch …
type conj []node

const (
	maxAlternatives = 8  // conjunctions one subschema expands into
	maxRefHops      = 16 // $ref followed in a row at one instance location
)

// expand turns a subschema into the alternatives an instance may satisfy,
// each a conjunction. false expands to none; true and {} to one empty
// conjunction (anything).
func (g *generator) expand(n node, hops int) []conj {
	g.steps++
	switch v := n.v.(type) {
	case bool:
		if v {
			return []conj{{}}
		}
		return nil
	case map[string]any:
		return g.expandObject(n, v, hops)
	}
	return []conj{{}}
}

func (g *generator) expandObject(n node, m map[string]any, hops int) []conj {
	alts := []conj{{n}}
	if hops < maxRefHops {
		// The references that apply where they are static, in the
		// dialect's rules (schemaview.View.InPlace, the checker's reading).
		in := g.sv.InPlace(schemaview.NewSub(m, n.ptr), schemaview.FollowRef|schemaview.FollowDynamicRef)
		if in.Replaced { // draft-07: a $ref's siblings are ignored
			if !in.HasRef {
				return []conj{{}} // a target the validator holds: nothing known
			}
			return g.expand(node{in.Ref.V, in.Ref.Ptr}, hops+1)
		}
		for _, r := range in.Refs() {
			alts = cross(alts, g.expand(node{r.V, r.Ptr}, hops+1))
		}
	}
	if list, ok := m["allOf"].([]any); ok {
		for i, b := range list {
			alts = cross(alts, g.expand(node{b, n.ptr + "/allOf/" + strconv.Itoa(i)}, hops))
		}
	}
	for _, kw := range []string{"anyOf", "oneOf"} {
		list, ok := m[kw].([]any)
		if !ok {
			continue
		}
		var union []conj
		for i, b := range list {
			union = append(union, g.expand(node{b, n.ptr + "/" + kw + "/" + strconv.Itoa(i)}, hops)...)
			if len(union) >= maxAlternatives {
				break
			}
		}
		alts = cross(alts, union)
	}
	if cond, ok := m["if"]; ok {
		yes := g.expand(node{cond, n.ptr + "/if"}, hops)
		if then, ok := m["then"]; ok {
			yes = cross(yes, g.expand(node{then, n.ptr + "/then"}, hops))
		}
		no := []conj{{}}
		if els, ok := m["else"]; ok {
			no = g.expand(node{els, n.ptr + "/else"}, hops)
		}
		alts = cross(alts, append(yes, no...))
	}
	return alts
}

// cross is the conjunction of two sets of alternatives, bounded.
func cross(a, b []conj) []conj {
	var out []conj
	for _, x := range a {
		for _, y := range b {
			c := make(conj, 0, len(x)+len(y))
			out = append(out, append(append(c, x...), y...))
			if len(out) >= maxAlternatives {
				return out
			}
		}
	}
	return out
}

// kinds of JSON instance, as bits; "integer" is its own kind so that
// {"type":"integer"} narrows numbers.
type kinds uint8

const (
	kNull kinds = 1 << iota
	kBool
	kInt  // integral numbers
	kFrac // numbers with a fractional part
	kString
	kArray
	kObject
	kAll = kNull | kBool | kInt | kFrac | kString | kArray | kObject
)

func kindsOf(name string) kinds {
	switch name {
	case "null":
		return kNull
	case "boolean":
		return kBool
	case "integer":
		return kInt
	case "number":
		return kInt | kFrac
	case "string":
		return kString
	case "array":
		return kArray
	case "object":
		return kObject
	}
	return 0
}

// view is the merge of a conjunction's keywords that drive generation.
// Keywords it does not model only narrow what the validator accepts; the
// search filters candidates through the validator anyway.
type view struct {
	kinds    kinds
	consts   []any // every const (an instance must equal all)
	hasConst bool
	enums    [][]any

	// numbers
	lo, hi         *big.Rat // inclusive bounds, nil when absent
	xlo, xhi       *big.Rat // exclusive bounds
	multipleOf     []*big.Rat
	numberKeywords bool

	// strings
	minLen, maxLen int // maxLen < 0: none
	patterns       []string
	formats        []string

	// arrays
	items         conj   // every item (after the prefix)
	itemsFalse    bool   // no item beyond the prefix
	prefix        []conj // prefixItems (2020-12) or array items (draft-07)
	minItems      int
	maxItems      int // < 0: none
	unique        bool
	contains      []conj
	minContains   int // 1 unless minContains says otherwise
	arrayKeywords bool

	// objects
	props          map[string]conj
	propOrder      []string
	required       []string
	isRequired     map[string]bool
	additional     conj
	additionalNone bool
	patternProps   []patternProp
	propertyNames  conj
	minProps       int
	maxProps       int // < 0: none
	depRequired    map[string][]string
	objectKeywords bool
}

type patternProp struct {
	pattern string
	schema  node
}

// view merges a conjunction once per search.
func (g *generator) view(c conj) *view {
	key := ptrsOf(c)
	if v, ok := g.views[key]; ok {
		return v
	}
	v := g.merged(c)
	g.views[key] = v
	return v
}

func (g *generator) merged(c conj) *view {
	g.steps += len(c)
	v := &view{kinds: kAll, maxLen: -1, maxItems: -1, maxProps: -1, props: map[string]conj{}}
	for _, n := range c {
		m, ok := n.v.(map[string]any)
		if !ok {
			if b, isBool := n.v.(bool); isBool && !b {
				v.kinds = 0
			}
			continue
		}
		g.merge(v, n, m)
	}
	return v
}

func (g *generator) merge(v *view, n node, m map[string]any) {
	switch t := m["type"].(type) {
	case string:
		v.kinds &= kindsOf(t)
	case []any:
		var k kinds
		for _, e := range t {
			if s, ok := e.(string); ok {
				k |= kindsOf(s)
			}
		}
		v.kinds &= k
	}
	if c, ok := m["const"]; ok {
		v.consts = append(v.consts, c)
		v.hasConst = true
	}
	if e, ok := m["enum"].([]any); ok {
		v.enums = append(v.enums, e)
	}
	g.mergeNumber(v, m)
	g.mergeString(v, m)
	g.mergeArray(v, n, m)
	g.mergeObject(v, n, m)
}

func (g *generator) mergeNumber(v *view, m map[string]any) {
	tighter := func(cur *big.Rat, kw string, lower bool) *big.Rat {
		r, ok := ratOf(m[kw])
		if !ok {
			return cur
		}
		v.numberKeywords = true
		if cur == nil || (lower && r.Cmp(cur) > 0) || (!lower && r.Cmp(cur) < 0) {
			return r
		}
		return cur
	}
	v.lo = tighter(v.lo, "minimum", true)
	v.hi = tighter(v.hi, "maximum", false)
	v.xlo = tighter(v.xlo, "exclusiveMinimum", true) // a number in draft-07 and 2020-12
	v.xhi = tighter(v.xhi, "exclusiveMaximum", false)
	if r, ok := ratOf(m["multipleOf"]); ok && r.Sign() > 0 {
		v.multipleOf = append(v.multipleOf, r)
		v.numberKeywords = true
	}
}

func (g *generator) mergeString(v *view, m map[string]any) {
	if n, ok := intOf(m["minLength"]); ok && n > v.minLen {
		v.minLen = n
	}
	if n, ok := intOf(m["maxLength"]); ok && (v.maxLen < 0 || n < v.maxLen) {
		v.maxLen = n
	}
	if p, ok := m["pattern"].(string); ok {
		v.patterns = append(v.patterns, p)
	}
	if f, ok := m["format"].(string); ok {
		v.formats = append(v.formats, f)
	}
}

func (g *generator) mergeArray(v *view, n node, m map[string]any) {
	prefixKw, itemsKw := "prefixItems", "items"
	if g.draft7 {
		if _, isList := m["items"].([]any); isList {
			prefixKw, itemsKw = "items", "additionalItems"
		} else {
			prefixKw = "" // draft-07 has no prefixItems
		}
	}
	if prefixKw != "" {
		if list, ok := m[prefixKw].([]any); ok {
			v.arrayKeywords = true
			for i, s := range list {
				for len(v.prefix) <= i {
					v.prefix = append(v.prefix, nil)
				}
				v.prefix[i] = append(v.prefix[i], node{s, n.ptr + "/" + prefixKw + "/" + strconv.Itoa(i)})
			}
		}
	}
	if s, ok := m[itemsKw]; ok {
		if _, isList := s.([]any); !isList {
			v.arrayKeywords = true
			if b, isBool := s.(bool); isBool && !b {
				v.itemsFalse = true
			}
			v.items = append(v.items, node{s, n.ptr + "/" + itemsKw})
		}
	}
	if k, ok := intOf(m["minItems"]); ok && k > v.minItems {
		v.minItems, v.arrayKeywords = k, true
	}
	if k, ok := intOf(m["maxItems"]); ok && (v.maxItems < 0 || k < v.maxItems) {
		v.maxItems, v.arrayKeywords = k, true
	}
	if u, ok := m["uniqueItems"].(bool); ok && u {
		v.unique, v.arrayKeywords = true, true
	}
	if s, ok := m["contains"]; ok {
		v.contains = append(v.contains, conj{{s, n.ptr + "/contains"}})
		v.arrayKeywords = true
	}
	if k, ok := intOf(m["minContains"]); ok && k > v.minContains {
		v.minContains = k
	}
}

func (g *generator) mergeObject(v *view, n node, m map[string]any) {
	if props, ok := m["properties"].(map[string]any); ok {
		v.objectKeywords = true
		for _, name := range slices.Sorted(maps.Keys(props)) {
			if _, seen := v.props[name]; !seen {
				v.propOrder = append(v.propOrder, name)
			}
			v.props[name] = append(v.props[name], node{props[name], n.ptr + "/properties/" + schema.EscapeToken(name)})
		}
	}
	if req, ok := m["required"].([]any); ok {
		v.objectKeywords = true
		if v.isRequired == nil {
			v.isRequired = map[string]bool{}
		}
		for _, r := range req {
			if s, ok := r.(string); ok && !v.isRequired[s] {
				v.isRequired[s] = true
				v.required = append(v.required, s)
			}
		}
	}
	if s, ok := m["additionalProperties"]; ok {
		v.objectKeywords = true
		if b, isBool := s.(bool); isBool && !b {
			v.additionalNone = true
		}
		v.additional = append(v.additional, node{s, n.ptr + "/additionalProperties"})
	}
	if pp, ok := m["patternProperties"].(map[string]any); ok {
		v.objectKeywords = true
		for _, p := range slices.Sorted(maps.Keys(pp)) {
			v.patternProps = append(v.patternProps, patternProp{p, node{pp[p], n.ptr + "/patternProperties/" + schema.EscapeToken(p)}})
		}
	}
	if s, ok := m["propertyNames"]; ok {
		v.objectKeywords = true
		v.propertyNames = append(v.propertyNames, node{s, n.ptr + "/propertyNames"})
	}
	if k, ok := intOf(m["minProperties"]); ok && k > v.minProps {
		v.minProps, v.objectKeywords = k, true
	}
	if k, ok := intOf(m["maxProperties"]); ok && (v.maxProps < 0 || k < v.maxProps) {
		v.maxProps, v.objectKeywords = k, true
	}
	for _, kw := range []string{"dependentRequired", "dependencies"} {
		deps, ok := m[kw].(map[string]any)
		if !ok || (kw == "dependentRequired" && g.draft7) {
			continue // dependentRequired is not a draft-07 keyword
		}
		for _, name := range slices.Sorted(maps.Keys(deps)) {
			list, isList := deps[name].([]any)
			if !isList {
				continue
			}
			if v.depRequired == nil {
				v.depRequired = map[string][]string{}
			}
			for _, d := range list {
				if s, ok := d.(string); ok {
					v.depRequired[name] = append(v.depRequired[name], s)
				}
			}
		}
	}
}

// ratOf reads a number keyword exactly. Loaded schemas bound exponents
// (schema.MaxExponent), so big.Rat work stays small.
func ratOf(v any) (*big.Rat, bool) {
	n, ok := v.(json.Number)
	if !ok {
		if f, isFloat := v.(float64); isFloat {
			r := new(big.Rat)
			if r.SetFloat64(f) == nil {
				return nil, false
			}
			return r, true
		}
		return nil, false
	}
	for i := 0; i < len(n); i++ {
		if n[i] == 'e' || n[i] == 'E' {
			exp, err := strconv.Atoi(string(n[i+1:]))
			if err != nil || exp > schema.MaxExponent || exp < -schema.MaxExponent {
				return nil, false
			}
		}
	}
	return new(big.Rat).SetString(string(n))
}

// intOf reads a non-negative integer keyword (minLength, maxItems …) capped
// at a size generation can afford; larger bounds read as the cap.
func intOf(v any) (int, bool) {
	r, ok := ratOf(v)
	if !ok || !r.IsInt() || r.Sign() < 0 {
		return 0, false
	}
	if !r.Num().IsInt64() || r.Num().Int64() > maxCount {
		return maxCount, true
	}
	return int(r.Num().Int64()), true
}

// maxCount caps lengths and sizes read from a schema.
const maxCount = 1 << 20
