package compat

import (
	"maps"
	"slices"

	"github.com/typeward/typeward/internal/schema"
	"github.com/typeward/typeward/internal/verdict"
)

// run is the state of one Check: the two documents, the step budget and
// the coinductive assumption set.
type run struct {
	checker      *Checker
	src, tgt     *schema.Schema
	srcD7, tgtD7 bool
	conditional  bool

	budget    int
	exhausted bool

	// inProgress holds the comparisons being proven, with the structural
	// depth at which each started. Meeting one again below a property or an
	// item lets us assume it (recursive schemas, coinduction: an instance is
	// finite, so the descent is well founded); meeting it again without
	// descending is a loop that proves nothing.
	inProgress map[string]int
	depth      int
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
	s, empty := r.normalize(s)
	if empty {
		return nil
	}
	if t.m == nil {
		b, isBool := t.v.(bool)
		if !isBool {
			return r.cannotProve(r.srcPtr(s), t.ptr, p, "$ref", "the target is not a schema")
		}
		if b {
			return nil
		}
		return r.errorf(verdict.CodeTargetAcceptsNothing, r.srcPtr(s), t.ptr, p, "%s may have a value but %s accepts none (false schema)", srcMark, tgtMark)
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

	if t.skip == 0 {
		if vals, ok := r.finiteValues(s, t.m["enum"] != nil || t.m["const"] != nil); ok {
			return r.checkValues(s, vals, t, p)
		}
	}
	if branches, widened, ok := r.splitSource(s); ok {
		var out []finding
		for i, b := range branches {
			fs := r.sub(b, t, p)
			if i == widened {
				fs = r.unproven(fs, s, t, p)
			}
			out = append(out, fs...)
		}
		return out
	}
	return r.subTarget(s, t, p)
}

// descend runs a comparison one structural level down (a property or an
// item), where coinductive assumptions become usable.
func (r *run) descend(s view, t node, p path) []finding {
	r.depth++
	defer func() { r.depth-- }()
	return r.sub(s, t, p)
}

// splitSource turns a disjunction in the source into branches, each of
// which must fit: anyOf and oneOf (an instance satisfies at least one
// branch), and if/then/else (an instance satisfies if∧then or else).
// widened is the index of a branch that is larger than the real one (the
// else branch, without "not if"), or -1.
func (r *run) splitSource(s view) (branches []view, widened int, ok bool) {
	for i, n := range s.conj {
		for _, kw := range []struct {
			name string
			bit  uint16
		}{{"anyOf", skAnyOf}, {"oneOf", skOneOf}} {
			if _, ok := n.m[kw.name]; !ok || n.skip&kw.bit != 0 {
				continue
			}
			var out []view
			for _, b := range n.schemas(kw.name) {
				out = append(out, s.with(i, kw.bit, b))
			}
			return out, -1, true
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
		var out []view
		yes := s.with(i, skIf, cond)
		if hasThen {
			yes.conj = append(yes.conj, then)
		}
		out = append(out, yes)
		no := s.with(i, skIf)
		if hasElse {
			no.conj = append(no.conj, els) // dropping "not if" only widens
		}
		return append(out, no), len(out), true
	}
	return nil, -1, false
}

// unproven turns the errors of a widened source branch into one
// cannot_prove: a witness there may not be a real source instance.
func (r *run) unproven(fs []finding, s view, t node, p path) []finding {
	var out []finding
	for _, f := range fs {
		if f.sev == verdict.SeverityError {
			return append(r.cannotProve(r.srcKeywordPtr(s, "if"), t.ptr, p, "if", "the source's else branch, without its condition, does not fit"), out...)
		}
		out = append(out, f)
	}
	return out
}

// with copies s, marks keyword bit of conjunct i as consumed and adds
// extra conjuncts.
func (s view) with(i int, bit uint16, extra ...node) view {
	conj := make([]node, len(s.conj), len(s.conj)+len(extra)+1)
	copy(conj, s.conj)
	conj[i].skip |= bit
	return view{conj: append(conj, extra...), types: s.types, at: s.at}
}

// subTarget splits the target into its conjuncts: $ref, allOf, and the
// applicators anyOf/oneOf/not/if, each checked on its own, then the plain
// keywords.
func (r *run) subTarget(s view, t node, p path) []finding {
	var out []finding
	if ref, ok := t.m["$ref"].(string); ok && t.skip&skRef == 0 {
		v, ptr, err := r.tgt.Resolve(ref)
		if err != nil {
			return r.cannotProve(r.srcPtr(s), t.ptr+"/$ref", p, "$ref", "the reference does not resolve")
		}
		refd := newNode(v, ptr)
		if r.tgtD7 {
			return r.sub(s, refd, p) // draft-07 ignores every sibling of $ref
		}
		out = append(out, r.sub(s, refd, p)...)
		t.skip |= skRef
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
		if targetUnmodeled[kw] {
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
