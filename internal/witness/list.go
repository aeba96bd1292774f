package witness

// list is the candidates of a nested subschema, computed lazily: a
// composite takes the first value of each part before it asks for more, so
// a list grows (doubling, up to limitAt its depth) only as far as it is
// read. A list over several alternatives takes from each in turn.
type list struct {
	c        conj
	depth    int
	parts    []*list // alternatives; nil for one conjunction
	vals     []any
	complete bool
	filling  bool // being computed: a recursive reference reads what is there
}

// at is the k-th value of a list, if it has one.
func (g *generator) at(l *list, k int) (any, bool) {
	if l == nil {
		return nil, false
	}
	if k >= len(l.vals) && !l.complete && !l.filling && k < limitAt(l.depth) {
		g.grow(l, k+1)
	}
	if k < len(l.vals) {
		return l.vals[k], true
	}
	return nil, false
}

func (g *generator) first(l *list) (any, bool) { return g.at(l, 0) }

func (g *generator) grow(l *list, want int) {
	limit := limitAt(l.depth)
	target := min(limit, max(2*len(l.vals), want, 2))
	l.filling = true
	defer func() { l.filling = false }()
	if l.parts != nil {
		var vals []any
		ended := true
		for i := 0; len(vals) < target; i++ {
			more := false
			for _, p := range l.parts {
				if v, ok := g.at(p, i); ok && len(vals) < target {
					vals = append(vals, v)
					more = true
				}
			}
			if !more {
				break
			}
			ended = false
		}
		l.vals = vals
		l.complete = ended || len(vals) < target || target == limit || g.exhausted()
		return
	}
	var valid, invalid []any
	seen := map[string]bool{}
	examined := 0
	natural := g.candidates(l.c, l.depth, func(v any) bool {
		examined++
		g.steps++
		enc, ok := encodeBounded(v)
		if ok && !seen[enc] {
			seen[enc] = true
			if len(l.c) == 0 || !isRejection(g.doc.ValidateAt(l.c[0].ptr, v)) {
				valid = append(valid, v)
			} else if len(invalid) < 2 {
				invalid = append(invalid, v)
			}
		}
		return len(valid) < target && examined < 4*target && !g.exhausted()
	})
	if len(valid) == 0 {
		valid = invalid // nothing passed alone; the whole instance is judged at the top
	}
	l.vals = valid
	l.complete = natural || target == limit || g.exhausted()
}

// leaf is the list of one conjunction at a depth, one per search.
func (g *generator) leaf(c conj, depth int) *list {
	if depth > maxDepth {
		return nil
	}
	key := listKey{ptrsOf(c), depth}
	if l, ok := g.lists[key]; ok {
		return l
	}
	l := &list{c: c, depth: depth}
	g.lists[key] = l
	return l
}

// conjValues is the list of a conjunction of unexpanded subschemas (a
// property declared by two allOf branches must satisfy both): the
// alternatives they expand into, in turn.
func (g *generator) conjValues(c conj, depth int) *list {
	if depth > maxDepth {
		return nil
	}
	if len(c) == 0 {
		return g.leaf(c, depth)
	}
	key := listKey{"\x01" + ptrsOf(c), depth}
	if l, ok := g.lists[key]; ok {
		return l
	}
	var alts []conj
	for _, n := range c {
		alts = cross(orAnything(alts), g.expand(n, 0))
	}
	var l *list
	switch len(alts) {
	case 0:
		l = &list{depth: depth, complete: true} // unsatisfiable
	case 1:
		l = g.leaf(alts[0], depth)
	default:
		l = &list{depth: depth}
		for _, a := range alts {
			l.parts = append(l.parts, g.leaf(a, depth))
		}
	}
	g.lists[key] = l
	return l
}

// all is every value of a list, computing it in full.
func (g *generator) all(l *list) []any {
	var out []any
	for k := 0; ; k++ {
		v, ok := g.at(l, k)
		if !ok {
			return out
		}
		out = append(out, v)
	}
}
