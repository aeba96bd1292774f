package compat

import (
	"encoding/json"
	"maps"
	"math/big"
	"slices"
	"strconv"
	"strings"

	"github.com/typeward/typeward/internal/schemaview"
)

// Keywords of a node already accounted for elsewhere: a source node whose
// anyOf was split into branches, a target node whose $ref was checked on
// its own, and so on.
const (
	skRef uint16 = 1 << iota
	skAllOf
	skAnyOf
	skOneOf
	skNot
	skIf
	skDynRef
)

// inPlaceSkips ties each in-place keyword to its skip bit and to what the
// shared reader then need not follow.
var inPlaceSkips = []struct {
	keyword string
	bit     uint16
	follow  schemaview.Follow
}{
	{"$ref", skRef, schemaview.FollowRef},
	{"$dynamicRef", skDynRef, schemaview.FollowDynamicRef},
	{"$recursiveRef", skDynRef, schemaview.FollowDynamicRef},
	{"allOf", skAllOf, schemaview.FollowAllOf},
}

// node is one subschema of a document: a boolean schema or an object.
type node struct {
	v    any            // true, false or the object
	m    map[string]any // the object, nil for a boolean schema
	ptr  string         // absolute JSON pointer in its document
	skip uint16
	// synthetic: made by the rules (a negated bound turned around), not a
	// subschema of the document; never handed to the validator.
	synthetic bool
}

func newNode(v any, ptr string) node {
	m, _ := v.(map[string]any)
	return node{v: v, m: m, ptr: ptr}
}

// sub is n as the shared reader sees it; nodeOf is the way back.
func (n node) sub() schemaview.Sub { return schemaview.Sub{V: n.v, M: n.m, Ptr: n.ptr} }

func nodeOf(s schemaview.Sub) node { return node{v: s.V, m: s.M, ptr: s.Ptr} }

func nodesOf(subs []schemaview.Sub) []node {
	out := make([]node, len(subs))
	for i, s := range subs {
		out[i] = nodeOf(s)
	}
	return out
}

// child is the subschema under keyword (and, for maps and arrays of
// schemas, under key).
func (n node) child(keyword string, key ...string) (node, bool) {
	c, ok := n.sub().Child(keyword, key...)
	return nodeOf(c), ok
}

// schemas lists the subschemas of an array-valued keyword (allOf, …).
func (n node) schemas(keyword string) []node { return nodesOf(n.sub().Schemas(keyword)) }

// srcView and tgtView read the two documents through the shared reader.
func (r *run) srcView() schemaview.View { return schemaview.Of(r.src) }
func (r *run) tgtView() schemaview.View { return schemaview.Of(r.tgt) }

// view is the source side of a comparison: an instance satisfies every
// conjunct, none of the negated nodes, has every name in req when it is an
// object, and its kind is in types. Conjuncts come from allOf, $ref with
// siblings, dependentSchemas whose trigger is required, and the
// property/item schemas of several conjuncts; negated nodes from not, the
// other branches of a split oneOf, and the condition of a split else.
type view struct {
	conj  []node
	neg   []node
	req   []string
	types Kinds
	at    string // pointer reported when conj is empty (an undeclared value)
}

func viewOf(nodes ...node) view {
	v := view{conj: nodes, types: AnyKind}
	if len(nodes) > 0 {
		v.at = nodes[0].ptr
	}
	return v
}

// normalize expands allOf, $ref (and $dynamicRef where it is static) and
// triggered dependentSchemas into flat conjuncts, collects negations, drops
// `true`, and computes the kinds the conjuncts allow. empty reports that no
// instance satisfies the source (a `false` conjunct, contradictory types or
// bounds, a conjunct that is also negated, …), in which case anything is
// compatible.
func (r *run) normalize(s view) (out view, empty bool) {
	out = view{types: s.types, at: s.at, conj: make([]node, 0, len(s.conj)+2), req: s.req}
	queue := slices.Clone(s.conj)
	seen := make(map[string]bool, len(queue))
	negs := slices.Clone(s.neg)
	triggered := map[string]bool{}
	for {
		for len(queue) > 0 {
			n := queue[0]
			queue = queue[1:]
			if n.m == nil {
				if b, isBool := n.v.(bool); isBool && !b {
					return out, true
				}
				continue // true, or not a schema at all: no constraint we can use
			}
			if seen[n.ptr] {
				continue // a $ref cycle or a repeated schema: already a conjunct
			}
			seen[n.ptr] = true
			// $ref (with draft-07's sibling rule), static dynamic references
			// and allOf, each unless accounted for already; a dynamic
			// reference that is not static is dropped, which only widens.
			follow := schemaview.FollowAll
			for _, k := range inPlaceSkips {
				if n.skip&k.bit != 0 {
					follow &^= k.follow
				}
			}
			in := r.srcView().InPlace(n.sub(), follow)
			queue = append(append(queue, nodesOf(in.Refs())...), nodesOf(in.AllOf)...)
			if in.Replaced {
				continue // draft-07 ignores every sibling of $ref
			}
			for _, k := range inPlaceSkips {
				if _, ok := n.m[k.keyword]; ok && !(k.bit == skDynRef && r.srcD7) {
					n.skip |= k.bit
				}
			}
			if c, ok := n.child("not"); ok {
				negs = append(negs, c)
			}
			out.types &= keywordKinds(n.m)
			out.conj = append(out.conj, n)
		}
		// A dependentSchemas entry whose trigger is required applies to
		// every object; a source that may be another kind too keeps its
		// entries conditional (required names nothing of a string, so a
		// conjunct {type: null} would empty {type: string}). The required
		// names are computed only for a source that has such entries: a
		// hostile conjunction normalizes at every step.
		var req map[string]bool
		for _, n := range out.conj {
			if out.types&^KindObject != 0 {
				break
			}
			for _, kw := range r.srcDependentSchemaKeywords() {
				deps, _ := n.m[kw].(map[string]any)
				if len(deps) == 0 {
					continue
				}
				if req == nil {
					req = r.srcRequired(out)
				}
				for _, key := range slices.Sorted(maps.Keys(deps)) {
					if !req[key] {
						continue
					}
					if c, ok := n.child(kw, key); ok && !triggered[c.ptr] {
						triggered[c.ptr] = true
						queue = append(queue, c)
					}
				}
			}
		}
		if len(queue) == 0 {
			break
		}
	}
	negSeen := make(map[string]bool, len(negs))
	for _, g := range negs {
		if negSeen[g.ptr] {
			continue
		}
		negSeen[g.ptr] = true
		if g.m == nil {
			if b, _ := g.v.(bool); b {
				return out, true // not: true
			}
			continue // not: false excludes nothing
		}
		if r.negationLoops(g, out.conj) {
			continue // see cycles.go: dropping the negation widens the source
		}
		out.neg = append(out.neg, g)
		if drop, extra, ok := r.lowerNegation(g, out.types); ok {
			out.types &^= drop
			if extra.m != nil && !seen[extra.ptr] {
				seen[extra.ptr] = true
				out.conj = append(out.conj, extra)
			}
		}
	}
	if out.types == 0 {
		return out, true
	}
	out = r.prune(out)
	return out, out.types == 0
}

// srcDependentSchemaKeywords are the keywords whose map entries are
// schemas applied when their key is present, in the source's dialect.
func (r *run) srcDependentSchemaKeywords() []string {
	if r.srcD7 {
		return []string{"dependencies"}
	}
	return []string{"dependentSchemas", "dependencies"}
}

// key identifies a (source, target) comparison for the coinductive
// assumption set.
func (s view) key(t node) string {
	var b strings.Builder
	s.writeKey(&b)
	b.WriteString("->")
	b.WriteString(t.ptr)
	b.WriteByte('#')
	b.WriteString(strconv.Itoa(int(t.skip)))
	return b.String()
}

// srcKey identifies the source view alone, for the per-run caches of
// source-only answers (emptiness, contradiction).
func (s view) srcKey() string {
	var b strings.Builder
	s.writeKey(&b)
	return b.String()
}

func (s view) writeKey(b *strings.Builder) {
	for _, n := range s.conj {
		b.WriteString(n.ptr)
		b.WriteByte('#')
		b.WriteString(strconv.Itoa(int(n.skip)))
		b.WriteByte('|')
	}
	for _, n := range s.neg {
		b.WriteByte('!')
		b.WriteString(n.ptr)
		b.WriteByte('|')
	}
	for _, name := range s.req {
		b.WriteByte('+')
		b.WriteString(strconv.Quote(name))
	}
	b.WriteString(strconv.Itoa(int(s.types)))
}

// srcKeywordPtr points at the first conjunct that states keyword, or at the
// first conjunct (the schema the source field resolved to).
func (r *run) srcKeywordPtr(s view, keyword string) string {
	for _, n := range s.conj {
		if _, ok := n.m[keyword]; ok {
			if n.synthetic {
				return n.ptr
			}
			return n.ptr + "/" + keyword
		}
	}
	return r.srcPtr(s)
}

func (r *run) srcPtr(s view) string {
	if len(s.conj) > 0 {
		return s.conj[0].ptr
	}
	return s.at
}

// flipped bounds: the negation of one bound is the opposite bound.
var flippedBound = map[string]string{
	"minimum": "exclusiveMaximum", "exclusiveMinimum": "maximum",
	"maximum": "exclusiveMinimum", "exclusiveMaximum": "minimum",
}

// countBounds: a negated minimum count n is a maximum of n-1, and so on.
var countBounds = map[string]struct {
	flip string
	kind Kinds
	min  bool
}{
	"minLength": {"maxLength", KindString, true}, "maxLength": {"minLength", KindString, false},
	"minItems": {"maxItems", KindArray, true}, "maxItems": {"minItems", KindArray, false},
	"minProperties": {"maxProperties", KindObject, true}, "maxProperties": {"minProperties", KindObject, false},
}

// lowerNegation turns a negated schema that says one thing into what its
// negation says positively: ¬{type: T} removes the kinds T; ¬{minimum: 5}
// is {exclusiveMaximum: 5} on numbers; ¬{minLength: 2} is {maxLength: 1}
// on strings. A type beside the bound must cover the bound's whole kind
// (the other kinds then satisfy the negation outright), or the numbers the
// source allows (types). ok is false for anything else; the negation is
// still kept in the view.
func (r *run) lowerNegation(g node, types Kinds) (drop Kinds, extra node, ok bool) {
	var kw string
	hasType, several := false, false
	var fam Kinds // the kinds g's keywords constrain (AnyKind: one that constrains all)
	for k := range g.m {
		switch {
		case !asserts(k, r.srcD7):
			continue
		case k == "type":
			hasType = true
			continue
		case kw != "":
			several = true
		default:
			kw = k
		}
		if f, ok := keywordFamily[k]; ok {
			fam |= f
		} else {
			fam = AnyKind
		}
	}
	declared := DeclaredKinds(g.m)
	if kw == "" {
		return declared, node{}, hasType
	}
	if !hasType && fam != AnyKind {
		// Every value of another kind satisfies g, so ¬g keeps none.
		drop = AnyKind &^ fam
	}
	if several {
		return drop, node{}, drop != 0
	}
	mk := func(k string, v any) node {
		return node{v: map[string]any{k: v}, m: map[string]any{k: v}, ptr: g.ptr + "/" + kw, synthetic: true}
	}
	if flip, isBound := flippedBound[kw]; isBound {
		if _, num := ratOf(g.m[kw]); !num || types&KindNumber&^declared != 0 {
			return drop, node{}, drop != 0
		}
		return drop, mk(flip, g.m[kw]), true
	}
	if c, isCount := countBounds[kw]; isCount {
		n, isInt := intOf(g.m[kw])
		if !isInt || declared&c.kind == 0 {
			return drop, node{}, drop != 0
		}
		if c.min {
			if n.Sign() == 0 {
				return drop | c.kind, node{}, true
			}
			return drop, mk(c.flip, json.Number(new(big.Int).Sub(n, big.NewInt(1)).String())), true
		}
		return drop, mk(c.flip, json.Number(new(big.Int).Add(n, big.NewInt(1)).String())), true
	}
	return drop, node{}, drop != 0
}
