package compat

import (
	"maps"
	"slices"
	"strconv"

	"github.com/typeward/typeward/internal/schema"
)

// maxEqualSteps bounds one structural comparison; beyond it the schemas are
// treated as different, which only costs a proof.
const maxEqualSteps = 4096

// side is a document and the pointer of one of its subschemas.
type side struct {
	doc *schema.Schema
	n   node
}

// sameSchema reports that a and b are the same schema: keyword by keyword
// equal, annotations aside, with references compared by where they land.
// Equal schemas accept the same instances, so S ⊆ S holds whatever S
// holds (the reflexivity law), including keywords no rule models. A pair
// met again below a property or an item is assumed equal: the comparison
// is a bisimulation, so recursive schemas compare in finite time. In place
// (the same value) the validator fails a schema it is already applying
// (see cycles.go), so a schema met again there is equal to the other side
// only if that one is met again too: {not: {$ref: a}} with a = {not: {$ref:
// a}} accepts nothing, a accepts everything, though they unfold alike.
func sameSchema(a, b side) bool {
	if a.doc.Dialect != b.doc.Dialect {
		return false
	}
	if a.doc.Digest == b.doc.Digest && a.n.ptr == b.n.ptr && !a.doc.DynamicScoped() && !a.n.synthetic && !b.n.synthetic {
		return true
	}
	e := &equality{a: a.doc, b: b.doc, steps: maxEqualSteps}
	return e.schemas(a.n.v, a.n.ptr, b.n.v, b.n.ptr)
}

type pairState uint8

const (
	comparing pairState = iota + 1 // on the current path: assumed, below a property or an item
	same                           // found equal without meeting aStack or bStack
)

type equality struct {
	a, b *schema.Schema
	seen map[[2]string]pairState
	// aStack and bStack hold the schemas being applied to the current
	// value (in place since the last property or item; short, so slices);
	// inPlace reports that a comparison met one of them.
	aStack, bStack []string
	inPlace        bool
	steps          int
}

func (e *equality) schemas(av any, ap string, bv any, bp string) bool {
	if e.steps--; e.steps < 0 {
		return false
	}
	am, aObj := av.(map[string]any)
	bm, bObj := bv.(map[string]any)
	if !aObj || !bObj {
		ab, aBool := av.(bool)
		bb, bBool := bv.(bool)
		switch {
		case aBool && bBool:
			return ab == bb
		case aBool:
			return ab && e.vacuous(bm)
		case bBool:
			return bb && e.vacuous(am)
		}
		return false
	}
	if onA, onB := slices.Contains(e.aStack, ap), slices.Contains(e.bStack, bp); onA || onB {
		e.inPlace = true
		return onA && onB // both fail there, or only one does
	}
	pair := [2]string{ap, bp}
	if e.seen[pair] != 0 {
		return true
	}
	if !e.sameKeywords(am, bm) {
		return false // most comparisons end here: nothing to remember
	}
	if e.seen == nil {
		e.seen = map[[2]string]pairState{}
	}
	e.seen[pair] = comparing
	e.aStack, e.bStack = append(e.aStack, ap), append(e.bStack, bp)
	outer := e.inPlace
	e.inPlace = false
	ok := e.fields(am, ap, bm, bp)
	e.aStack, e.bStack = e.aStack[:len(e.aStack)-1], e.bStack[:len(e.bStack)-1]
	if ok && !e.inPlace {
		e.seen[pair] = same // its answer does not depend on where it is applied
	} else {
		delete(e.seen, pair)
	}
	e.inPlace = e.inPlace || outer
	return ok
}

// fields compares two object schemas keyword by keyword.
// sameKeywords: a and b constrain with the same keywords.
func (e *equality) sameKeywords(am, bm map[string]any) bool {
	d7 := e.a.Dialect == schema.Draft7
	for kw := range bm {
		if _, inA := am[kw]; !inA && !ignoredInComparison(kw, d7) {
			return false
		}
	}
	for kw := range am {
		if _, inB := bm[kw]; !inB && !ignoredInComparison(kw, d7) {
			return false
		}
	}
	return true
}

func (e *equality) fields(am map[string]any, ap string, bm map[string]any, bp string) bool {
	d7 := e.a.Dialect == schema.Draft7
	for kw, x := range am {
		if ignoredInComparison(kw, d7) {
			continue
		}
		y, inB := bm[kw]
		if !inB || !e.keyword(kw, x, ap, y, bp, d7) {
			return false
		}
	}
	return true
}

// vacuous: an object schema with nothing but annotations, which accepts
// everything, as `true` does.
func (e *equality) vacuous(m map[string]any) bool {
	d7 := e.a.Dialect == schema.Draft7
	for kw := range m {
		if !ignoredInComparison(kw, d7) {
			return false
		}
	}
	return true
}

// ignoredInComparison: keywords that never change which instances a
// schema accepts once references are compared by target: annotations,
// identifiers and anchors (references are followed, not compared as
// text), and definitions (they matter only through references).
func ignoredInComparison(kw string, d7 bool) bool {
	switch kw {
	case "$id", "$anchor", "$dynamicAnchor", "$recursiveAnchor", "$defs", "definitions", "$schema", "$vocabulary":
		return true
	}
	return !constrains(kw, d7)
}

func (e *equality) keyword(kw string, x any, ap string, y any, bp string, d7 bool) bool {
	if inPlaceKeywords[kw] || schema.PositionOf(kw, x) == schema.NotSchema {
		return e.keywordHere(kw, x, ap, y, bp, d7)
	}
	// A property, an item, a name: another value, where no schema is
	// being applied yet.
	aStack, bStack := e.aStack, e.bStack
	e.aStack, e.bStack = nil, nil
	ok := e.keywordHere(kw, x, ap, y, bp, d7)
	e.aStack, e.bStack = aStack, bStack
	return ok
}

func (e *equality) keywordHere(kw string, x any, ap string, y any, bp string, d7 bool) bool {
	at := func(p string) string { return p + "/" + schema.EscapeToken(kw) }
	switch kw {
	case "$ref":
		return e.refs(x, ap, y, bp, false)
	case "$dynamicRef", "$recursiveRef":
		return e.refs(x, ap, y, bp, true)
	case "required":
		return sameStringSet(x, y)
	}
	switch schema.PositionOf(kw, x) {
	case schema.Subschema:
		return e.schemas(x, at(ap), y, at(bp))
	case schema.SchemaList:
		xs, _ := x.([]any)
		ys, _ := y.([]any)
		if len(xs) != len(ys) {
			return false
		}
		for i := range xs {
			if !e.schemas(xs[i], at(ap)+"/"+strconv.Itoa(i), ys[i], at(bp)+"/"+strconv.Itoa(i)) {
				return false
			}
		}
		return true
	case schema.SchemaMap:
		xm, _ := x.(map[string]any)
		ym, _ := y.(map[string]any)
		if len(xm) != len(ym) {
			return false
		}
		for _, k := range slices.Sorted(maps.Keys(xm)) {
			yv, ok := ym[k]
			if !ok {
				return false
			}
			xv := xm[k]
			if _, isList := xv.([]any); isList { // dependencies: a list of names
				if !sameStringSet(xv, yv) {
					return false
				}
				continue
			}
			if !e.schemas(xv, at(ap)+"/"+schema.EscapeToken(k), yv, at(bp)+"/"+schema.EscapeToken(k)) {
				return false
			}
		}
		return true
	}
	return jsonEqual(x, y)
}

func (e *equality) refs(x any, ap string, y any, bp string, dynamic bool) bool {
	xr, xok := x.(string)
	yr, yok := y.(string)
	if !xok || !yok {
		return jsonEqual(x, y)
	}
	var xv, yv any
	var xp, yp string
	if dynamic {
		var ok1, ok2 bool
		xv, xp, ok1 = e.a.ResolveDynamic(ap, xr)
		yv, yp, ok2 = e.b.ResolveDynamic(bp, yr)
		if !ok1 || !ok2 {
			return false
		}
	} else {
		var err1, err2 error
		xv, xp, err1 = e.a.ResolveFrom(ap, xr)
		yv, yp, err2 = e.b.ResolveFrom(bp, yr)
		if err1 != nil && err2 != nil {
			return e.sameMetaschema(ap, xr, bp, yr)
		}
		if err1 != nil || err2 != nil {
			return false
		}
	}
	return e.schemas(xv, xp, yv, yp)
}

// sameMetaschema: both references land at one place of one standard
// metaschema, applied alone (neither document declares a dynamic anchor
// that the metaschema's dynamic references could land in).
func (e *equality) sameMetaschema(ap, xr, bp, yr string) bool {
	x, ok1 := e.a.MetaschemaTarget(ap, xr)
	y, ok2 := e.b.MetaschemaTarget(bp, yr)
	return ok1 && ok2 && x == y && !e.a.ExtendsMetaschema() && !e.b.ExtendsMetaschema()
}

func sameStringSet(x, y any) bool {
	xs, ys := stringList(x), stringList(y)
	xa, _ := x.([]any)
	ya, _ := y.([]any)
	if len(xs) != len(xa) || len(ys) != len(ya) {
		return jsonEqual(x, y)
	}
	slices.Sort(xs)
	slices.Sort(ys)
	return slices.Equal(slices.Compact(xs), slices.Compact(ys))
}
