package witness

import (
	"maps"
	"slices"
	"strconv"
)

// maxGenItems caps generated arrays and objects: a larger minItems or
// minProperties is out of reach and out of a readable 403.
const maxGenItems = 16

// objects emits the required-only object, the maximal one (every declared
// property), the required-only object with each property set to each of
// its candidates in turn, with extra properties of every kind (names
// matching patternProperties and propertyNames too), and objects filled to
// minProperties.
func (g *generator) objects(v *view, depth int, emit func(any) bool) bool {
	if depth >= maxDepth {
		return true
	}
	lists := map[string]*list{}
	valuesOf := func(name string) *list {
		if l, ok := lists[name]; ok {
			return l
		}
		var l *list
		if c, allowed := g.propertySchema(v, name); allowed {
			l = g.conjValues(c, depth+1)
		}
		lists[name] = l
		return l
	}
	// with adds a property (and what dependentRequired makes it pull in)
	// to a copy of an object.
	with := func(base map[string]any, name string, val any) (map[string]any, bool) {
		out := maps.Clone(base)
		out[name] = val
		for _, d := range v.depRequired[name] {
			if _, ok := out[d]; !ok {
				x, ok := g.first(valuesOf(d))
				if !ok {
					return nil, false
				}
				out[d] = x
			}
		}
		return out, true
	}
	base := map[string]any{}
	for _, r := range v.required {
		x, ok := g.first(valuesOf(r))
		if !ok {
			return true // a required property nothing satisfies
		}
		if base, ok = with(base, r, x); !ok {
			return true
		}
	}
	if !emit(base) {
		return false
	}
	order := slices.Clone(v.required)
	inOrder := map[string]bool{}
	for _, p := range order {
		inOrder[p] = true
	}
	for _, p := range v.propOrder {
		if !inOrder[p] {
			order = append(order, p)
		}
	}
	maximal := base
	for _, p := range order[:min(len(order), 4*maxGenItems)] {
		g.steps++
		if x, ok := g.first(valuesOf(p)); ok {
			if m, ok := with(maximal, p, x); ok {
				maximal = m
			}
		}
	}
	if !emit(maximal) {
		return false
	}
	// Each property through its candidates, and extra properties through
	// theirs, round-robin: every slot gets its first tries before any gets
	// many.
	slots := append(order, g.extraNames(v, depth)...)
	for k := 0; ; k++ {
		more := false
		for _, p := range slots {
			g.steps++
			x, ok := g.at(valuesOf(p), k)
			if !ok {
				continue
			}
			more = true
			if m, ok := with(base, p, x); ok && !emit(m) {
				return false
			}
		}
		if !more || g.exhausted() {
			break
		}
	}
	if len(base) < v.minProps {
		full := base
		for i := 0; full != nil && len(full) < min(v.minProps, maxGenItems) && i < len(order)+maxGenItems; i++ {
			name := "p" + strconv.Itoa(i)
			if i < len(order) {
				name = order[i]
			}
			if _, ok := full[name]; ok {
				continue
			}
			if x, ok := g.first(valuesOf(name)); ok {
				full, _ = with(full, name, x)
			}
		}
		if full != nil && !emit(full) {
			return false
		}
	}
	return true
}

// propertySchema is what a property's value must satisfy: its declared
// schemas, those of the patternProperties its name matches, and otherwise
// additionalProperties. allowed is false when additionalProperties is false
// and nothing else applies.
func (g *generator) propertySchema(v *view, name string) (conj, bool) {
	c := slices.Clone(v.props[name])
	declared := len(c) > 0
	for _, pp := range v.patternProps {
		if re := g.regexp(pp.pattern); re != nil && re.MatchString(name) {
			c = append(c, pp.schema)
			declared = true
		}
	}
	if !declared {
		if v.additionalNone {
			return nil, false
		}
		c = append(c, v.additional...)
	}
	return c, true
}

// extraNames are property names the source does not declare: a plain one,
// names generated from patternProperties and propertyNames, and property
// names the target declares.
func (g *generator) extraNames(v *view, depth int) []string {
	var out []string
	add := func(s string) {
		if _, declared := v.props[s]; !declared && !slices.Contains(out, s) && len(out) < 8 {
			out = append(out, s)
		}
	}
	add("extra")
	for _, pp := range v.patternProps {
		ss := g.patternStrings(pp.pattern)
		for _, s := range ss[:min(2, len(ss))] {
			add(s)
		}
	}
	if len(v.propertyNames) > 0 {
		for _, n := range g.all(g.conjValues(v.propertyNames, depth+1)) {
			if s, ok := n.(string); ok {
				add(s)
			}
		}
	}
	for _, s := range g.hints.names {
		add(s)
	}
	return out
}

// arrays emits the empty array, minItems-long arrays of each item
// candidate, tuples with each prefixItems position through its candidates
// (and one item beyond), duplicates (for uniqueItems), arrays holding a
// contains candidate, and a maxItems-long array.
func (g *generator) arrays(v *view, depth int, emit func(any) bool) bool {
	if depth >= maxDepth || v.minItems > maxGenItems {
		return true
	}
	var items *list
	if !v.itemsFalse {
		items = g.conjValues(v.items, depth+1)
	}
	prefix := make([]*list, min(len(v.prefix), maxGenItems))
	for i := range prefix {
		prefix[i] = g.conjValues(v.prefix[i], depth+1)
	}
	// build makes an n-long array: position i from the prefix, else an item;
	// fill chooses which candidate.
	build := func(n int, fill func(i int) (any, bool)) ([]any, bool) {
		out := make([]any, 0, n)
		for i := range n {
			x, ok := fill(i)
			if !ok {
				return nil, false
			}
			out = append(out, x)
		}
		return out, true
	}
	// first fills a prefix position with its first candidate and the
	// items after it with successive item candidates (the first again when
	// there are too few), so that the array has a chance to be unique.
	first := func(i int) (any, bool) {
		if i < len(prefix) {
			return g.first(prefix[i])
		}
		if x, ok := g.at(items, i-len(prefix)); ok {
			return x, true
		}
		return g.first(items)
	}
	try := func(a []any, ok bool) bool { return !ok || emit(a) }
	if !try(build(v.minItems, first)) {
		return false
	}
	n := max(v.minItems, 1)
	for k := 0; ; k++ {
		it, ok := g.at(items, k)
		if !ok {
			break
		}
		if !try(build(n, func(i int) (any, bool) {
			if i < len(prefix) {
				return first(i)
			}
			return it, true
		})) {
			return false
		}
	}
	if len(prefix) > 0 {
		full := max(len(prefix), v.minItems)
		if !try(build(full, first)) || !try(build(full+1, first)) {
			return false
		}
		for p := range prefix {
			for k := 1; ; k++ {
				c, ok := g.at(prefix[p], k)
				if !ok {
					break
				}
				if !try(build(full, func(i int) (any, bool) {
					if i == p {
						return c, true
					}
					return first(i)
				})) {
					return false
				}
			}
		}
	}
	// Duplicates, then distinct items.
	for k := range 3 {
		it, ok := g.at(items, k)
		if !ok {
			break
		}
		if !try(build(max(n, len(prefix)+2), func(i int) (any, bool) {
			if i < len(prefix) {
				return first(i)
			}
			return it, true
		})) {
			return false
		}
	}
	if _, ok := g.at(items, 1); ok && !try(build(max(n, len(prefix)+2), first)) {
		return false
	}
	// Arrays holding minContains matches of a contains candidate, alone
	// and after the minItems-long base.
	copies := min(max(v.minContains, 1), maxGenItems)
	for _, cs := range v.contains {
		for _, c := range g.all(g.conjValues(cs, depth+1)) {
			matches := make([]any, copies)
			for i := range matches {
				matches[i] = c
			}
			if !try(matches, true) {
				return false
			}
			if base, ok := build(v.minItems, first); ok && v.minItems > 0 && !try(append(base, matches...), true) {
				return false
			}
		}
	}
	if v.maxItems > n && v.maxItems <= maxGenItems {
		if !try(build(v.maxItems, first)) {
			return false
		}
	}
	return true
}
