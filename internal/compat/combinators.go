package compat

import (
	"slices"

	"github.com/typeward/typeward/internal/verdict"
)

// allOf in the target: the source must fit every branch.
func (r *run) allOf(s view, t node, p path) []finding {
	var out []finding
	for _, b := range t.schemas("allOf") {
		out = append(out, r.sub(s, b, p)...)
	}
	return out
}

// anyOf: the source must fit some branch. When no branch takes the whole
// source, the source is split by kind (a string-or-null may fit a string
// branch and a null branch). A branch the source provably cannot meet is
// ruled out; if only one remains, its findings are exact.
func (r *run) anyOf(s view, t node, p path) []finding {
	return r.union(s, t, p, "anyOf", false)
}

// oneOf: as anyOf, but the fitting branch must also be disjoint from every
// other branch, or an instance matching two branches would be rejected.
func (r *run) oneOf(s view, t node, p path) []finding {
	return r.union(s, t, p, "oneOf", true)
}

func (r *run) union(s view, t node, p path, keyword string, exclusive bool) []finding {
	branches := t.schemas(keyword)
	results := make([][]finding, len(branches))
	if r.fitsOne(s, branches, results, exclusive, p) || r.coveredByBounds(s, branches, exclusive) {
		return nil
	}
	if kinds := splitKinds(s.types); len(kinds) > 1 {
		all := true
		for _, k := range kinds {
			part := s
			part.types = k
			if !r.fitsOne(part, branches, make([][]finding, len(branches)), exclusive, p) && !r.coveredByBounds(part, branches, exclusive) {
				all = false
				break
			}
		}
		if all {
			return nil
		}
	}
	if exclusive {
		// Every instance meets two whole branches, so none meets exactly one.
		var whole []int
		for i := range branches {
			if len(results[i]) == 0 {
				whole = append(whole, i)
			}
		}
		if len(whole) >= 2 {
			return r.errorf(verdict.CodeNoBranchMatches, r.srcPtr(s), t.ptr+"/"+keyword, p,
				"%s fits both branch %d and branch %d of %s, so no value matches exactly one (oneOf)", srcMark, whole[0], whole[1], tgtMark)
		}
	}
	var live []int
	var kinds Kinds
	for i, b := range branches {
		kinds |= branchKinds(b)
		if !r.disjoint(s, b, 0) {
			live = append(live, i)
		}
	}
	tp := t.ptr + "/" + keyword
	switch len(live) {
	case 0:
		if s.types&kinds == 0 {
			return r.errorf(verdict.CodeNoBranchMatches, r.srcPtr(s), tp, p,
				"%s is %s but %s expects %s (%s)", srcMark, describe(s.types), tgtMark, describe(kinds), keyword)
		}
		return r.errorf(verdict.CodeNoBranchMatches, r.srcPtr(s), tp, p,
			"%s can match none of the branches of %s (%s)", srcMark, tgtMark, keyword)
	case 1:
		// Every instance can only meet this branch: its verdict is the answer.
		return results[live[0]]
	}
	why := "it fits none of the branches as a whole"
	if exclusive {
		why = "it does not fit exactly one branch provably"
	}
	return r.cannotProve(r.srcPtr(s), tp, p, keyword, why)
}

// fitsOne records each branch's findings and reports whether some branch
// takes the whole source (and, for oneOf, no other branch can).
func (r *run) fitsOne(s view, branches []node, results [][]finding, exclusive bool, p path) bool {
	for i, b := range branches {
		results[i] = r.sub(s, b, p)
	}
	for i := range branches {
		if len(results[i]) > 0 {
			continue
		}
		if !exclusive {
			return true
		}
		alone := true
		for j, b := range branches {
			if j != i && !r.disjoint(s, b, 0) {
				alone = false
				break
			}
		}
		if alone {
			return true
		}
	}
	return false
}

// not: proven when the source cannot meet the negated schema; disproven
// when every source instance meets it.
func (r *run) not(s view, t node, p path) []finding {
	n, ok := t.child("not")
	if !ok {
		return nil
	}
	if r.disjoint(s, n, 0) {
		return nil
	}
	if len(r.sub(s, n, p)) == 0 {
		return r.errorf(verdict.CodeExcludedByNot, r.srcPtr(s), n.ptr, p, "%s is excluded by %s (not)", srcMark, tgtMark)
	}
	return r.cannotProve(r.srcPtr(s), n.ptr, p, "not", "the source may meet the excluded schema")
}

// ifThenElse: when the source always meets (or never meets) the condition,
// the target is then (or else); when it fits both, the condition does not
// matter; otherwise cannot_prove.
func (r *run) ifThenElse(s view, t node, p path) []finding {
	cond, ok := t.child("if")
	if !ok {
		return nil
	}
	then, hasThen := t.child("then")
	els, hasElse := t.child("else")
	if !hasThen && !hasElse {
		return nil
	}
	var fsThen, fsElse []finding
	if hasThen {
		fsThen = r.sub(s, then, p)
	}
	if hasElse {
		fsElse = r.sub(s, els, p)
	}
	if len(fsThen) == 0 && len(fsElse) == 0 {
		return nil
	}
	if len(r.sub(s, cond, p)) == 0 {
		return fsThen
	}
	if r.disjoint(s, cond, 0) {
		return fsElse
	}
	// A condition of required names alone is the source with those names
	// required (objects only; other values meet it vacuously): then must
	// take that, and else the whole source (it does, checked above).
	if names := stringList(cond.m["required"]); len(names) > 0 && r.onlyKeywordsIn(cond, map[string]bool{"required": true}, r.tgtD7) &&
		cond.m["type"] == nil && len(fsElse) == 0 {
		if !hasThen {
			return nil
		}
		with := s
		with.req = append(slices.Clip(s.req), names...)
		return r.sub(with, then, p) // exact: an instance of with meets the condition
	}
	return r.cannotProve(r.srcPtr(s), cond.ptr, p, "if", "the source may or may not meet the condition")
}

// splitKinds lists the single kinds in a mask.
func splitKinds(m Kinds) []Kinds {
	var out []Kinds
	for bit := Kinds(1); bit <= KindString; bit <<= 1 {
		if m&bit != 0 {
			out = append(out, bit)
		}
	}
	return out
}

// branchKinds is what a target branch accepts as far as its own kind
// keywords say (used in messages only).
func branchKinds(b node) Kinds {
	if b.m == nil {
		if v, _ := b.v.(bool); v {
			return AnyKind
		}
		return 0
	}
	return keywordKinds(b.m)
}
