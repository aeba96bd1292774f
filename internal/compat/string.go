package compat

import (
	"math/big"
	"regexp/syntax"
	"strings"

	"github.com/typeward/typeward/internal/schemaview"
	"github.com/typeward/typeward/internal/verdict"
)

// str checks the target's string keywords: length containment, and
// pattern/format, which are proven only by the same keyword in the source.
func (r *run) str(s view, t node, p path) []finding {
	var out []finding
	lo, loPtr := intKeyword(s, "minLength", true)
	hi, hiPtr := intKeyword(s, "maxLength", false)
	lo, hi, loPtr, hiPtr = srcPatternLengths(s, lo, hi, loPtr, hiPtr)
	if tmin, ok := intOf(t.m["minLength"]); ok && tmin.Sign() > 0 && (lo == nil || lo.Cmp(tmin) < 0) {
		out = append(out, r.report(verdict.CodeLengthMismatch, orPtr(loPtr, r.srcPtr(s)), t.ptr+"/minLength", p,
			"%s may be shorter than %s characters, the minLength of %s", srcMark, tmin, tgtMark))
	}
	if tmax, ok := intOf(t.m["maxLength"]); ok && (hi == nil || hi.Cmp(tmax) > 0) {
		out = append(out, r.report(verdict.CodeLengthMismatch, orPtr(hiPtr, r.srcPtr(s)), t.ptr+"/maxLength", p,
			"%s may be longer than %s characters, the maxLength of %s", srcMark, tmax, tgtMark))
	}
	if pat, ok := t.m["pattern"].(string); ok && !sourceStates(s, "pattern", pat) && !matchesEveryString(pat) {
		switch implied, witnesses := r.patternImplied(s, pat); {
		case implied:
		case len(witnesses) > 0:
			out = append(out, with([]finding{r.report(verdict.CodePatternMismatch, r.srcKeywordPtr(s, "pattern"), t.ptr+"/pattern", p,
				"%s may be a string that does not match the pattern %s of %s", srcMark, quote(pat), tgtMark)}, witnesses...)...)
		default:
			out = append(out, r.cannotProve(r.srcKeywordPtr(s, "pattern"), t.ptr+"/pattern", p, "pattern",
				"the source does not declare the same pattern "+quote(pat))...)
		}
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

// patternImplied: a source pattern's strings all match pat: its literal
// prefix starts with the prefix pat requires, each string of its finite
// language matches, or its automaton is included in pat's. witnesses are
// strings a source pattern matches and pat does not, found on the way.
func (r *run) patternImplied(s view, pat string) (implied bool, witnesses []any) {
	re := schemaview.Regexp(pat)
	if re == nil {
		return false, nil
	}
	want, isPrefix := prefixPattern(pat)
	hi, _ := intKeyword(s, "maxLength", false)
	maxLen := -1
	if hi != nil && hi.IsInt64() && hi.Int64() < lengthCap {
		maxLen = int(hi.Int64())
	}
	minLen := 0
	if lo, _ := intKeyword(s, "minLength", true); lo != nil && lo.IsInt64() {
		minLen = int(min(lo.Int64(), lengthCap))
	}
	for _, n := range s.conj {
		sp, ok := n.m["pattern"].(string)
		if !ok {
			continue
		}
		if isPrefix && strings.HasPrefix(literalPrefix(sp), want) {
			return true, nil
		}
		if lang, ok := patternLanguage(sp, maxLen); ok {
			r.budget -= len(lang)
			all := true
			for _, v := range lang {
				if !re.MatchString(v) {
					all = false
					break
				}
			}
			if all {
				return true, nil
			}
		}
		r.budget -= maxInclusionStates / 100
		if in, w, decided := patternIncludedWithin(sp, pat, minLen, maxLen); decided {
			if in {
				return true, nil
			}
			witnesses = append(witnesses, w)
		}
	}
	return false, witnesses
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
