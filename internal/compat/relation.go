package compat

import (
	"maps"
	"math"
	"slices"

	"github.com/typeward/typeward/internal/schema"
	"github.com/typeward/typeward/internal/schemaview"
	"github.com/typeward/typeward/internal/verdict"
)

// run is the state of one Check: the two documents, the step budget and
// the coinductive assumption set.
type run struct {
	checker      *Checker
	src, tgt     *schema.Schema
	srcD7, tgtD7 bool

	budget    int
	exhausted bool

	// inProgress holds the comparisons being proven, with the structural
	// depth at which each started. Meeting one again below a property or an
	// item lets us assume it (recursive schemas, coinduction: an instance is
	// finite, so the descent is well founded); meeting it again without
	// descending is a loop that proves nothing.
	inProgress map[string]int
	depth      int

	// pruneDepth bounds the emptiness rules' look into members; negCheck is
	// set while a source negation is being tested (see sourceNot).
	pruneDepth int
	negCheck   int
	// requiredDepth counts the required properties the emptiness rules
	// stand inside (see prune).
	requiredDepth int
	srcRoot       node
	started       bool
	caches        *runCaches
}

// runCaches hold source-only answers within one Check, shared by the
// nested runs of asSource (same source document).
type runCaches struct {
	pruned      map[string]Kinds
	bounds      map[string]nodeBounds // see run.numberBounds
	contradicts map[string]bool
	universal   map[universalKey]bool
	loops       *loopGraph            // the source's in-place cycles, found on first use
	pruning     map[string]pruneFrame // views being pruned, by key (see prune)
	low         int                   // the lowest level of an assumption used, MaxInt for none
}

type universalKey struct{ digest, ptr string }

func newRunCaches() *runCaches {
	return &runCaches{pruned: map[string]Kinds{}, bounds: map[string]nodeBounds{}, contradicts: map[string]bool{}, universal: map[universalKey]bool{},
		pruning: map[string]pruneFrame{}, low: math.MaxInt}
}

// acceptsAll is the universality law for a node of either document,
// remembered within the Check.
func (r *run) acceptsAll(doc *schema.Schema, n node) bool {
	k := universalKey{doc.Digest, n.ptr}
	if v, ok := r.caches.universal[k]; ok {
		return v
	}
	r.budget--
	v := acceptsAll(doc, n, 0)
	r.caches.universal[k] = v
	return v
}

// spend takes one step of the budget. Once it is used up the caller stops
// looking (sub returns no findings, disjoint "not shown") and Check adds a
// cannot_prove, so the overall answer is never "compatible".
func (r *run) spend() bool {
	if r.budget--; r.budget < 0 {
		r.exhausted = true
		return false
	}
	return true
}

// sub answers whether every instance of s is an instance of t, as findings
// (none: proven).
func (r *run) sub(s view, t node, p path) []finding {
	if !r.spend() {
		return nil
	}
	if !r.started {
		// S ⊆ S whatever S holds: one document, one pointer, one scope.
		r.started = true
		r.caches = newRunCaches()
		if len(s.conj) == 1 && r.src.Digest == r.tgt.Digest && s.conj[0].ptr == t.ptr {
			return nil
		}
	}
	s, empty := r.normalize(s)
	if empty {
		return nil
	}
	if t.m == nil {
		b, isBool := t.v.(bool)
		if !isBool {
			return r.cannotProve(r.srcPtr(s), t.ptr, p, "$ref", "the target is not a schema")
		}
		if b || r.sourceContradicts(s) {
			return nil
		}
		return r.errorf(verdict.CodeTargetAcceptsNothing, r.srcPtr(s), t.ptr, p, "%s may have a value but %s accepts none (false schema)", srcMark, tgtMark)
	}
	if r.targetLoops(t) {
		return r.cannotProve(r.srcPtr(s), t.ptr, p, "not", "the target applies itself to the same value through a negation")
	}
	if r.reflexive(s, t) || r.acceptsAll(r.tgt, t) || r.excludedMiddle(s, t) {
		return nil
	}
	key := s.key(t)
	if d, ok := r.inProgress[key]; ok {
		if r.depth > d {
			return nil
		}
		return r.cannotProve(r.srcPtr(s), t.ptr, p, "$ref", "the schemas refer to themselves without nesting")
	}
	r.inProgress[key] = r.depth
	defer delete(r.inProgress, key)

	if r.sourceContradicts(s) {
		return nil
	}
	if t.skip == 0 {
		if vals, ok := r.finiteValues(s, t.m["enum"] != nil || t.m["const"] != nil); ok {
			return r.checkValues(s, vals, t, p)
		}
	}
	if branches, ok := r.splitSource(s); ok {
		var out []finding
		for _, b := range branches {
			out = append(out, r.sub(b, t, p)...)
		}
		return out
	}
	fs := r.subTarget(s, t, p)
	if len(fs) > 0 && len(s.neg) > 0 && r.sourceNot(s, t, p) {
		return nil
	}
	return fs
}

// reflexive: some source conjunct is the target schema itself. Every
// instance of the view satisfies each conjunct in full (split keywords
// only narrow it further), so the view fits.
func (r *run) reflexive(s view, t node) bool {
	for _, n := range s.conj {
		if sameSchema(side{r.src, n}, side{r.tgt, t}) {
			return true
		}
	}
	return false
}

// asSource runs f with the target side set to the source document, for
// questions about the source alone (is s inside one of its own negated
// schemas?). The step budget is shared; assumptions are not.
func (r *run) asSource(f func(c *run) bool) bool {
	c := *r
	c.tgt, c.tgtD7 = r.src, r.srcD7
	c.inProgress = map[string]int{}
	c.negCheck++
	ok := f(&c)
	r.budget, r.exhausted = c.budget, r.exhausted || c.exhausted
	return ok
}

// flipped runs f with the documents swapped and t as the source root, for
// questions about the target inside the source (is t inside a schema the
// source negates?). Caches of source-only answers are the other document's.
func (r *run) flipped(t node, f func(c *run) bool) bool {
	c := *r
	c.src, c.tgt, c.srcD7, c.tgtD7 = r.tgt, r.src, r.tgtD7, r.srcD7
	c.srcRoot = t
	c.inProgress = map[string]int{}
	c.caches = newRunCaches()
	c.negCheck++
	ok := f(&c)
	r.budget, r.exhausted = c.budget, r.exhausted || c.exhausted
	return ok
}

// maxNegChecks bounds nested negation tests.
const maxNegChecks = 2

// sourceContradicts: s lies inside a schema it negates, so it is empty (a
// conjunction holding a schema and its negation, written differently).
func (r *run) sourceContradicts(s view) bool {
	if r.negCheck >= maxNegChecks {
		return false
	}
	key := s.srcKey()
	if v, ok := r.caches.contradicts[key]; ok {
		return v
	}
	found := false
	for _, g := range s.neg {
		if r.asSource(func(c *run) bool { return len(c.sub(s, g, path{})) == 0 }) {
			found = true
			break
		}
	}
	if r.negCheck == 0 {
		r.caches.contradicts[key] = found
	}
	return found
}

// sourceNot is the law s ∧ ¬n ⊆ t when s ⊆ t ∨ n, decided kind by kind:
// every kind of s either fits t or lies inside a negated schema.
func (r *run) sourceNot(s view, t node, p path) bool {
	if r.negCheck >= maxNegChecks {
		return false
	}
	kinds := splitKinds(s.types)
	if len(kinds) < 2 {
		return false // the whole source was tried by sourceContradicts
	}
	for _, k := range kinds {
		part := s
		part.types = k
		if len(r.sub(part, t, p)) == 0 {
			continue
		}
		inside := false
		for _, g := range s.neg {
			if r.asSource(func(c *run) bool { return len(c.sub(part, g, path{})) == 0 }) {
				inside = true
				break
			}
		}
		if !inside {
			return false
		}
	}
	return true
}

// descend runs a comparison one structural level down (a property or an
// item), where coinductive assumptions become usable.
func (r *run) descend(s view, t node, p path) []finding {
	r.depth++
	defer func() { r.depth-- }()
	return r.sub(s, t, p)
}

// splitSource turns a disjunction in the source into branches, each of
// which must fit; together they are exactly the source. anyOf: some branch
// holds; oneOf: one branch holds and the others do not; if/then/else: the
// condition and then, or else and not the condition.
func (r *run) splitSource(s view) (branches []view, ok bool) {
	for i, n := range s.conj {
		for _, kw := range []struct {
			name string
			bit  uint16
		}{{"anyOf", skAnyOf}, {"oneOf", skOneOf}} {
			if _, ok := n.m[kw.name]; !ok || n.skip&kw.bit != 0 {
				continue
			}
			bs := n.schemas(kw.name)
			var out []view
			for j, b := range bs {
				v := s.with(i, kw.bit, b)
				if kw.bit == skOneOf {
					for k, other := range bs {
						if k != j {
							v.neg = append(v.neg, other)
						}
					}
				}
				out = append(out, v)
			}
			return out, true
		}
		if n.skip&skIf != 0 {
			continue
		}
		cond, ok := n.child("if")
		if !ok {
			continue
		}
		then, hasThen := n.child("then")
		els, hasElse := n.child("else")
		if !hasThen && !hasElse {
			continue
		}
		yes := s.with(i, skIf, cond)
		if hasThen {
			yes.conj = append(yes.conj, then)
		}
		no := s.with(i, skIf)
		if hasElse {
			no.conj = append(no.conj, els)
		}
		no.neg = append(no.neg, cond)
		return []view{yes, no}, true
	}
	return nil, false
}

// with copies s, marks keyword bit of conjunct i as consumed and adds
// extra conjuncts.
func (s view) with(i int, bit uint16, extra ...node) view {
	conj := make([]node, len(s.conj), len(s.conj)+len(extra)+1)
	copy(conj, s.conj)
	conj[i].skip |= bit
	return view{conj: append(conj, extra...), neg: slices.Clip(s.neg), req: s.req, types: s.types, at: s.at}
}

// subTarget splits the target into its conjuncts: $ref, allOf, and the
// applicators anyOf/oneOf/not/if, each checked on its own, then the plain
// keywords.
func (r *run) subTarget(s view, t node, p path) []finding {
	var out []finding
	// $ref (draft-07: in place of its siblings) and the dynamic references,
	// each unless checked already (schemaview.View.InPlace).
	var follow schemaview.Follow
	if t.skip&skRef == 0 {
		follow |= schemaview.FollowRef
	}
	if t.skip&skDynRef == 0 {
		follow |= schemaview.FollowDynamicRef
	}
	in := r.tgtView().InPlace(t.sub(), follow)
	if in.RefErr != nil {
		return r.cannotProve(r.srcPtr(s), t.ptr+"/$ref", p, "$ref", "the reference does not resolve")
	}
	if in.HasRef {
		if in.Replaced {
			return r.sub(s, nodeOf(in.Ref), p)
		}
		out = append(out, r.sub(s, nodeOf(in.Ref), p)...)
		t.skip |= skRef
	}
	if follow&schemaview.FollowDynamicRef != 0 && !r.tgtD7 {
		for _, d := range in.Dynamic {
			out = append(out, r.sub(s, nodeOf(d), p)...)
		}
		for _, kw := range in.Scoped {
			out = append(out, r.cannotProve(r.srcPtr(s), t.ptr+"/"+kw, p, kw, "its target depends on the dynamic scope")...)
		}
		t.skip |= skDynRef
	}
	// Marking an applicator consumed once checked keeps it from being checked
	// again when t is passed on.
	for _, a := range []struct {
		keyword string
		bit     uint16
		check   func(r *run, s view, t node, p path) []finding
	}{
		{"allOf", skAllOf, (*run).allOf},
		{"anyOf", skAnyOf, (*run).anyOf},
		{"oneOf", skOneOf, (*run).oneOf},
		{"not", skNot, (*run).not},
		{"if", skIf, (*run).ifThenElse},
	} {
		if _, ok := t.m[a.keyword]; ok && t.skip&a.bit == 0 {
			out = append(out, a.check(r, s, t, p)...)
			t.skip |= a.bit
		}
	}
	return append(out, r.keywords(s, t, p)...)
}

// keywords checks the plain (non-applicator) keywords of the target.
func (r *run) keywords(s view, t node, p path) []finding {
	var out []finding
	for _, kw := range slices.Sorted(maps.Keys(t.m)) {
		if keywordClass(kw, r.tgtD7) == classUnmodeled {
			out = append(out, r.cannotProve(r.srcPtr(s), t.ptr+"/"+schema.EscapeToken(kw), p, kw, "the keyword is not modeled")...)
		}
	}
	for _, kw := range numericKeywords {
		if v, ok := t.m[kw]; ok {
			if _, isBool := v.(bool); isBool {
				continue // draft-04 exclusive flags, read by bounds
			}
			if _, exact := ratOf(v); !exact {
				out = append(out, r.cannotProve(r.srcPtr(s), t.ptr+"/"+kw, p, kw, "the number is too large to compare exactly")...)
			}
		}
	}
	typeFs, live := r.checkTypes(s, t, p)
	out = append(out, typeFs...)
	if _, ok := t.m["const"]; ok {
		out = append(out, r.enumTarget(s, t, p, "const")...)
	}
	if _, ok := t.m["enum"]; ok {
		out = append(out, r.enumTarget(s, t, p, "enum")...)
	}
	ls := s
	ls.types = live
	if live&KindObject != 0 {
		out = append(out, r.object(ls, t, p)...)
	}
	if live&KindArray != 0 {
		out = append(out, r.array(ls, t, p)...)
	}
	if live&KindNumber != 0 {
		out = append(out, r.number(ls, t, p)...)
	}
	if live&KindString != 0 {
		out = append(out, r.str(ls, t, p)...)
	}
	return out
}
