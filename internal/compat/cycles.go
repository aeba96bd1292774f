package compat

import (
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/typeward/typeward/internal/schema"
	"github.com/typeward/typeward/internal/schemaview"
)

// The validator meets a reference cycle that does not descend into a
// property or item (the same value reached again through $ref, allOf, not,
// …) by failing at the repeated schema, so a schema's meaning depends on
// which schemas are already being applied to the value. The rules compare
// subschemas as if it did not ({"not":{"$ref":"#"}} accepts every value,
// yet reads as "not itself", hence nothing). So a negated source node that
// may lead back to itself or to a schema the view applies is dropped:
// widening the source is always sound.

// inPlaceKeywords apply their subschemas to the value itself
// (schemaview.Applicators).
var inPlaceKeywords = func() map[string]bool {
	m := make(map[string]bool, len(schemaview.Applicators))
	for _, kw := range schemaview.Applicators {
		m[kw] = true
	}
	return m
}()

// notApplied hold subschemas that are only reached through references.
var notApplied = map[string]bool{"$defs": true, "definitions": true, "contentSchema": true}

// loops finds, in the subschemas the validator may apply from the node at
// ptr, those lying on a cycle of in-place applicators (references
// included).
func loops(doc *schema.Schema, v any, ptr string) *loopGraph {
	g := &loopGraph{doc: doc, nodes: map[string]any{}, inPlace: map[string][]string{}, onCycle: map[string]bool{}}
	g.collect(doc.Root, "")
	g.collect(v, ptr)
	// Tarjan's strongly connected components over the in-place edges.
	index, low, onStack := map[string]int{}, map[string]int{}, map[string]bool{}
	var stack []string
	var strong func(p string)
	strong = func(p string) {
		index[p], low[p] = len(index), len(index)
		stack = append(stack, p)
		onStack[p] = true
		for _, q := range g.inPlace[p] {
			if _, seen := index[q]; !seen {
				strong(q)
				low[p] = min(low[p], low[q])
			} else if onStack[q] {
				low[p] = min(low[p], index[q])
			}
			if q == p {
				g.onCycle[p] = true
			}
		}
		if low[p] != index[p] {
			return
		}
		var comp []string
		for {
			q := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			onStack[q] = false
			comp = append(comp, q)
			if q == p {
				break
			}
		}
		if len(comp) > 1 {
			for _, q := range comp {
				g.onCycle[q] = true
			}
		}
	}
	for _, p := range slices.Sorted(maps.Keys(g.nodes)) {
		if _, seen := index[p]; !seen {
			strong(p)
		}
	}
	return g
}

// reaches: applying the node at ptr, the validator may meet, on the same
// value, ptr itself again or a schema of within.
func (g *loopGraph) reaches(ptr string, within map[string]bool) bool {
	if _, known := g.nodes[ptr]; !known {
		return true // not a subschema we walked: assume the worst
	}
	seen := map[string]bool{}
	queue := slices.Clone(g.inPlace[ptr])
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		if p == ptr || within[p] {
			return true
		}
		if seen[p] {
			continue
		}
		seen[p] = true
		queue = append(queue, g.inPlace[p]...)
	}
	return false
}

type loopGraph struct {
	doc     *schema.Schema
	nodes   map[string]any
	inPlace map[string][]string // in-place edges, by pointer
	onCycle map[string]bool
}

// collect walks every subschema the validator may apply from ptr: children
// of applicators and references' targets.
func (g *loopGraph) collect(v any, ptr string) {
	if _, done := g.nodes[ptr]; done {
		return
	}
	g.nodes[ptr] = v
	m, ok := v.(map[string]any)
	if !ok {
		return
	}
	edge := func(kw string, cv any, cp string) {
		if !isSchema(cv) {
			return
		}
		if inPlaceKeywords[kw] {
			g.inPlace[ptr] = append(g.inPlace[ptr], cp)
		}
		g.collect(cv, cp)
	}
	for _, kw := range slices.Sorted(maps.Keys(m)) {
		val := m[kw]
		if ref, isRef := val.(string); isRef {
			if kw == "$ref" || kw == "$dynamicRef" || kw == "$recursiveRef" {
				for _, t := range g.refTargets(ptr, kw, ref) {
					edge(kw, t.v, t.ptr)
				}
			}
			continue
		}
		if notApplied[kw] {
			continue
		}
		base := ptr + "/" + schema.EscapeToken(kw)
		switch schema.PositionOf(kw, val) {
		case schema.Subschema:
			edge(kw, val, base)
		case schema.SchemaList:
			arr, _ := val.([]any)
			for i, c := range arr {
				edge(kw, c, base+"/"+strconv.Itoa(i))
			}
		case schema.SchemaMap:
			mm, _ := val.(map[string]any)
			for _, k := range slices.Sorted(maps.Keys(mm)) {
				edge(kw, mm[k], base+"/"+schema.EscapeToken(k))
			}
		}
	}
}

type target struct {
	v   any
	ptr string
}

// refTargets lists where a reference may land: its static target, and for
// a dynamic reference in a bundled document every schema carrying the
// anchor it names (over-approximated: more edges only make more checks
// cannot_prove).
func (g *loopGraph) refTargets(from, kw, ref string) []target {
	var out []target
	if v, p, err := g.doc.ResolveFrom(from, ref); err == nil {
		out = append(out, target{v, p})
	}
	if kw == "$ref" || !g.doc.DynamicScoped() {
		return out
	}
	name, anchorKw := "", "$recursiveAnchor"
	if kw == "$dynamicRef" {
		_, name, _ = strings.Cut(ref, "#")
		anchorKw = "$dynamicAnchor"
	}
	var find func(v any, p string)
	find = func(v any, p string) {
		switch x := v.(type) {
		case map[string]any:
			if a, ok := x[anchorKw]; ok && (kw == "$recursiveRef" || a == name) {
				out = append(out, target{x, p})
			}
			for _, k := range slices.Sorted(maps.Keys(x)) {
				find(x[k], p+"/"+schema.EscapeToken(k))
			}
		case []any:
			for i, e := range x {
				find(e, p+"/"+strconv.Itoa(i))
			}
		}
	}
	find(g.doc.Root, "")
	return out
}

// negationLoops: the negated source node g may, on the same value, lead
// the validator back to itself or to a schema the source view already
// applies (its in-place ancestors among them), so its meaning there is not
// the one the rules would read.
func (r *run) negationLoops(g node, conj []node) bool {
	if g.synthetic {
		return false // made by the rules from bounds, no references
	}
	if r.caches.loops == nil {
		r.caches.loops = loopsFrom(r.src, r.srcRoot.v, r.srcRoot.ptr)
	}
	if len(r.caches.loops.onCycle) == 0 {
		return false
	}
	within := make(map[string]bool, len(conj))
	for _, n := range conj {
		within[n.ptr] = true
	}
	return r.caches.loops.reaches(g.ptr, within)
}

// targetLoops: the target node t lies on an in-place cycle of a document
// whose cycles pass through a negation (not, if, oneOf). Its meaning in
// place then depends on the schemas already applied to the value (the
// validator fails the repeated one), which the rules, reading each target
// node on its own, do not model: with a = {not: {$ref: a}}, a accepts every
// value and so does its not's reference read alone, yet inside a that
// reference fails. Nothing is proven about such a node; a refusal is still
// proven by a witness the validator confirms.
func (r *run) targetLoops(t node) bool {
	if t.synthetic {
		return false
	}
	dl := documentLoops(r.tgt)
	if !dl.negative {
		return false
	}
	g := dl.g
	if _, known := g.nodes[t.ptr]; !known {
		return true // not a subschema we walked: assume the worst
	}
	return g.onCycle[t.ptr]
}

// docLoops are a document's in-place cycles, from its root: a pure
// function of the document, found once per document (schema.Derived).
type docLoops struct {
	g        *loopGraph
	negative bool // g.negativeCycle()
}

func documentLoops(doc *schema.Schema) docLoops {
	return doc.Derived("compat.loops", func() any {
		g := loops(doc, doc.Root, "")
		return docLoops{g, g.negativeCycle()}
	}).(docLoops)
}

// loopsFrom is loops for the node v at ptr: the document's graph when it
// already holds ptr (collecting from ptr would add nothing), else a graph
// of its own.
func loopsFrom(doc *schema.Schema, v any, ptr string) *loopGraph {
	g := documentLoops(doc).g
	if _, ok := g.nodes[ptr]; ok {
		return g
	}
	return loops(doc, v, ptr)
}

// negativeCycle: some in-place cycle passes through a negated position.
func (g *loopGraph) negativeCycle() bool {
	for p := range g.onCycle {
		if strings.HasSuffix(p, "/not") || strings.HasSuffix(p, "/if") {
			return true
		}
		if i := strings.LastIndex(p, "/"); i >= 0 && strings.HasSuffix(p[:i], "/oneOf") {
			return true
		}
	}
	return false
}
