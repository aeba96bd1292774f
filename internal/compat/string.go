package compat

import (
	"math/big"
	"regexp/syntax"

	"github.com/typeward/typeward/internal/schemaview"
	"github.com/typeward/typeward/internal/verdict"
)

// str checks the target's string keywords: length containment, and
// pattern/format, which are proven only by the same keyword in the source.
func (r *run) str(s view, t node, p path) []finding {
	var out []finding
	lo, loPtr := intKeyword(s, "minLength", true)
	hi, hiPtr := intKeyword(s, "maxLength", false)
	if tmin, ok := intOf(t.m["minLength"]); ok && tmin.Sign() > 0 && (lo == nil || lo.Cmp(tmin) < 0) {
		out = append(out, r.report(verdict.CodeLengthMismatch, orPtr(loPtr, r.srcPtr(s)), t.ptr+"/minLength", p,
			"%s may be shorter than %s characters, the minLength of %s", srcMark, tmin, tgtMark))
	}
	if tmax, ok := intOf(t.m["maxLength"]); ok && (hi == nil || hi.Cmp(tmax) > 0) {
		out = append(out, r.report(verdict.CodeLengthMismatch, orPtr(hiPtr, r.srcPtr(s)), t.ptr+"/maxLength", p,
			"%s may be longer than %s characters, the maxLength of %s", srcMark, tmax, tgtMark))
	}
	if pat, ok := t.m["pattern"].(string); ok && !sourceStates(s, "pattern", pat) && !r.matchesEveryString(pat) {
		out = append(out, r.cannotProve(r.srcKeywordPtr(s, "pattern"), t.ptr+"/pattern", p, "pattern",
			"the source does not declare the same pattern "+quote(pat))...)
	}
	if f, ok := t.m["format"].(string); ok {
		// typeward's validator annotates format in 2020-12 (see the keyword
		// table), but draft-07 and many validators a router may run (ajv
		// with formats, format-assertion) assert it: calling the pair
		// compatible could be unsound for them, so only the same format in
		// the source proves it (in a draft-07 target, a draft-07 source).
		switch {
		case !sourceStates(s, "format", f):
			out = append(out, r.cannotProve(r.srcKeywordPtr(s, "format"), t.ptr+"/format", p, "format",
				"the source does not declare format "+quote(f))...)
		case r.tgtD7 && !r.srcD7:
			out = append(out, r.cannotProve(r.srcKeywordPtr(s, "format"), t.ptr+"/format", p, "format",
				"the source's format "+quote(f)+" is an annotation in 2020-12, which draft-07 asserts")...)
		}
	}
	return out
}

// sourceStates reports whether some source conjunct has keyword = value.
func sourceStates(s view, keyword, value string) bool {
	for _, n := range s.conj {
		if v, ok := n.m[keyword].(string); ok && v == value {
			return true
		}
	}
	return false
}

// intKeyword is the tightest integer bound on keyword across the source
// conjuncts (largest for lower bounds), with where it was found.
func intKeyword(s view, keyword string, lower bool) (*big.Int, string) {
	var best *big.Int
	ptr := ""
	for _, n := range s.conj {
		v, ok := intOf(n.m[keyword])
		if !ok {
			continue
		}
		if best == nil || (lower && v.Cmp(best) > 0) || (!lower && v.Cmp(best) < 0) {
			best, ptr = v, n.ptr+"/"+keyword
		}
	}
	return best, ptr
}

// intOf reads a non-negative integer keyword value (2 and 2.0 alike).
func intOf(v any) (*big.Int, bool) {
	r, ok := ratOf(v)
	if !ok || !r.IsInt() {
		return nil, false
	}
	return new(big.Int).Set(r.Num()), true
}

func quote(s string) string {
	if len(s) > 60 {
		s = s[:57] + "..."
	}
	return "\"" + s + "\""
}

// matchesEveryString: an unanchored pattern that matches the empty string
// and has no assertion (a leading ^ aside) matches every string at its
// start: ".*", "", "^a*", "x?".
func (r *run) matchesEveryString(pat string) bool {
	re := schemaview.Regexp(pat)
	if re == nil || !re.MatchString("") {
		return false
	}
	tree, err := syntax.Parse(pat, syntax.Perl)
	if err != nil {
		return false
	}
	if tree.Op == syntax.OpConcat && len(tree.Sub) > 0 && (tree.Sub[0].Op == syntax.OpBeginText || tree.Sub[0].Op == syntax.OpBeginLine) {
		tree.Sub = tree.Sub[1:]
	} else if tree.Op == syntax.OpBeginText || tree.Op == syntax.OpBeginLine {
		return true
	}
	return !hasAssertion(tree)
}

func hasAssertion(t *syntax.Regexp) bool {
	switch t.Op {
	case syntax.OpBeginLine, syntax.OpEndLine, syntax.OpBeginText, syntax.OpEndText, syntax.OpWordBoundary, syntax.OpNoWordBoundary:
		return true
	}
	for _, s := range t.Sub {
		if hasAssertion(s) {
			return true
		}
	}
	return false
}
