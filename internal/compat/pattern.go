package compat

import (
	"math/big"
	"regexp/syntax"
	"strings"
	"unicode/utf8"

	"github.com/typeward/typeward/internal/schemaview"
)

// What a pattern says about the strings it matches, read from its syntax
// tree (Go's engine, the validator's): the length of every string that
// contains a match, the whole language when the pattern is anchored at both
// ends and finite, and whether every string matches. The validator searches
// for a match anywhere in the string, so only a pattern anchored at both
// ends bounds a string's length from above.

// maxPatternLen bounds the patterns these rules parse.
const maxPatternLen = 1024

func parsePattern(pat string) (*syntax.Regexp, bool) {
	if len(pat) > maxPatternLen {
		return nil, false
	}
	return schemaview.ParsePattern(pat)
}

// infinite marks an unbounded maximum length.
const infinite = -1

// matchLengths is the least and the greatest number of characters (code
// points) a match of re spans; ok is false when re matches nothing.
func matchLengths(re *syntax.Regexp) (lo, hi int, ok bool) {
	switch re.Op {
	case syntax.OpNoMatch:
		return 0, 0, false
	case syntax.OpEmptyMatch, syntax.OpBeginLine, syntax.OpEndLine, syntax.OpBeginText, syntax.OpEndText,
		syntax.OpWordBoundary, syntax.OpNoWordBoundary:
		return 0, 0, true
	case syntax.OpLiteral:
		return len(re.Rune), len(re.Rune), true
	case syntax.OpCharClass:
		return 1, 1, len(re.Rune) > 0
	case syntax.OpAnyChar, syntax.OpAnyCharNotNL:
		return 1, 1, true
	case syntax.OpCapture:
		return matchLengths(re.Sub[0])
	case syntax.OpStar, syntax.OpQuest:
		_, h, ok := matchLengths(re.Sub[0])
		if !ok || re.Op == syntax.OpStar {
			h = infinite
			if !ok {
				h = 0
			}
		}
		return 0, h, true
	case syntax.OpPlus, syntax.OpRepeat:
		l, h, ok := matchLengths(re.Sub[0])
		min, max := 1, -1
		if re.Op == syntax.OpRepeat {
			min, max = re.Min, re.Max
		}
		if !ok {
			return 0, 0, min == 0
		}
		lo = mulCap(l, min)
		switch {
		case max < 0 && h != 0:
			hi = infinite
		case max < 0:
			hi = 0
		case h == infinite:
			hi = infinite
		default:
			hi = mulCap(h, max)
		}
		return lo, hi, true
	case syntax.OpConcat:
		for _, s := range re.Sub {
			l, h, ok := matchLengths(s)
			if !ok {
				return 0, 0, false
			}
			lo = addCap(lo, l)
			if hi != infinite {
				if h == infinite {
					hi = infinite
				} else {
					hi = addCap(hi, h)
				}
			}
		}
		return lo, hi, true
	case syntax.OpAlternate:
		first := true
		for _, s := range re.Sub {
			l, h, ok := matchLengths(s)
			if !ok {
				continue
			}
			if first {
				lo, hi, first = l, h, false
				continue
			}
			lo = min(lo, l)
			if hi != infinite && (h == infinite || h > hi) {
				hi = h
			}
		}
		return lo, hi, !first
	}
	return 0, infinite, true // unknown operator: no claim
}

// lengthCap keeps length arithmetic far from overflow; a length beyond it
// is treated as that large (lower bounds only get weaker).
const lengthCap = 1 << 30

func addCap(a, b int) int { return min(a+b, lengthCap) }

func mulCap(a, b int) int {
	if a != 0 && b > lengthCap/a {
		return lengthCap
	}
	return min(a*b, lengthCap)
}

// anchoredBody is the part of re between a leading ^ and a trailing $ (\A,
// \z): the whole string must match it. ok is false otherwise.
func anchoredBody(re *syntax.Regexp) ([]*syntax.Regexp, bool) {
	if re.Op != syntax.OpConcat || len(re.Sub) < 2 {
		return nil, false
	}
	if re.Sub[0].Op != syntax.OpBeginText || re.Sub[len(re.Sub)-1].Op != syntax.OpEndText {
		return nil, false
	}
	return re.Sub[1 : len(re.Sub)-1], true
}

// patternLengths bounds the length of a string pat matches: at least its
// shortest match; at most its longest when it is anchored at both ends
// (hi is infinite otherwise). ok is false when pat matches no string.
func patternLengths(pat string) (lo, hi int, ok bool) {
	re, parsed := parsePattern(pat)
	if !parsed {
		return 0, infinite, true
	}
	lo, hi, ok = matchLengths(re)
	if _, anchored := anchoredBody(re); !anchored {
		hi = infinite
	}
	return lo, hi, ok
}

// srcPatternLengths tightens a source's length bounds by its patterns.
func srcPatternLengths(s view, lo, hi *big.Int, loPtr, hiPtr string) (*big.Int, *big.Int, string, string) {
	for _, n := range s.conj {
		pat, ok := n.m["pattern"].(string)
		if !ok {
			continue
		}
		l, h, _ := patternLengths(pat)
		if bl := big.NewInt(int64(l)); l > 0 && (lo == nil || bl.Cmp(lo) > 0) {
			lo, loPtr = bl, n.ptr+"/pattern"
		}
		if bh := big.NewInt(int64(h)); h != infinite && (hi == nil || bh.Cmp(hi) < 0) {
			hi, hiPtr = bh, n.ptr+"/pattern"
		}
	}
	return lo, hi, loPtr, hiPtr
}

// matchesEveryString: the pattern matches the empty string at the start of
// any string, by a path whose only assertions are ^ or \A (".*", "", "^a*",
// "x?", "a|^").
func matchesEveryString(pat string) bool {
	re, ok := parsePattern(pat)
	return ok && emptyAtStart(re)
}

func emptyAtStart(re *syntax.Regexp) bool {
	switch re.Op {
	case syntax.OpEmptyMatch, syntax.OpBeginText, syntax.OpBeginLine, syntax.OpStar, syntax.OpQuest:
		return true
	case syntax.OpLiteral:
		return len(re.Rune) == 0
	case syntax.OpCapture, syntax.OpPlus:
		return emptyAtStart(re.Sub[0])
	case syntax.OpRepeat:
		return re.Min == 0 || emptyAtStart(re.Sub[0])
	case syntax.OpConcat:
		for _, s := range re.Sub {
			if !emptyAtStart(s) {
				return false
			}
		}
		return true
	case syntax.OpAlternate:
		for _, s := range re.Sub {
			if emptyAtStart(s) {
				return true
			}
		}
	}
	return false
}

// maxLanguage bounds the strings a finite pattern is expanded into.
const maxLanguage = maxFiniteValues

// patternLanguage lists every string pat matches when pat is anchored at
// both ends and, with strings of at most maxLen characters (maxLen <
// 0: no limit), its language is finite and small. The list may hold
// strings pat does not match (inner assertions are read as empty), never
// miss one: callers validate each.
func patternLanguage(pat string, maxLen int) ([]string, bool) {
	re, ok := parsePattern(pat)
	if !ok {
		return nil, false
	}
	body, ok := anchoredBody(re)
	if !ok {
		return nil, false
	}
	return expandConcat(body, maxLen)
}

func expand(re *syntax.Regexp, maxLen int) ([]string, bool) {
	switch re.Op {
	case syntax.OpNoMatch:
		return nil, true
	case syntax.OpEmptyMatch, syntax.OpBeginLine, syntax.OpEndLine, syntax.OpBeginText, syntax.OpEndText,
		syntax.OpWordBoundary, syntax.OpNoWordBoundary:
		return []string{""}, true
	case syntax.OpLiteral:
		if re.Flags&syntax.FoldCase != 0 {
			return nil, false
		}
		return []string{string(re.Rune)}, true
	case syntax.OpCharClass:
		var out []string
		for i := 0; i+1 < len(re.Rune); i += 2 {
			if int(re.Rune[i+1]-re.Rune[i]) >= maxLanguage-len(out) {
				return nil, false
			}
			for c := re.Rune[i]; c <= re.Rune[i+1]; c++ {
				out = append(out, string(c))
			}
		}
		return out, true
	case syntax.OpCapture:
		return expand(re.Sub[0], maxLen)
	case syntax.OpConcat:
		return expandConcat(re.Sub, maxLen)
	case syntax.OpAlternate:
		var out []string
		for _, s := range re.Sub {
			l, ok := expand(s, maxLen)
			if !ok || len(out)+len(l) > maxLanguage {
				return nil, false
			}
			out = append(out, l...)
		}
		return out, true
	case syntax.OpQuest, syntax.OpStar, syntax.OpPlus, syntax.OpRepeat:
		min, max := 0, 1
		switch re.Op {
		case syntax.OpStar:
			max = -1
		case syntax.OpPlus:
			min, max = 1, -1
		case syntax.OpRepeat:
			min, max = re.Min, re.Max
		}
		if max < 0 {
			if maxLen < 0 {
				return nil, false
			}
			max = maxLen + 1 // pieces beyond maxLen would all be empty
		}
		piece, ok := expand(re.Sub[0], maxLen)
		if !ok {
			return nil, false
		}
		var out []string
		cur := []string{""}
		for k := 0; k <= max && len(cur) > 0; k++ {
			if k >= min {
				out = append(out, cur...)
				if len(out) > maxLanguage {
					return nil, false
				}
			}
			if k == max {
				break
			}
			next, ok := product(cur, piece, maxLen)
			if !ok {
				return nil, false
			}
			cur = next
		}
		return dedupeStrings(out), true
	}
	return nil, false
}

func expandConcat(subs []*syntax.Regexp, maxLen int) ([]string, bool) {
	cur := []string{""}
	for _, s := range subs {
		l, ok := expand(s, maxLen)
		if !ok {
			return nil, false
		}
		if cur, ok = product(cur, l, maxLen); !ok {
			return nil, false
		}
	}
	return cur, true
}

// product concatenates every pair, dropping strings longer than maxLen.
func product(a, b []string, maxLen int) ([]string, bool) {
	var out []string
	for _, x := range a {
		for _, y := range b {
			v := x + y
			if maxLen >= 0 && utf8.RuneCountInString(v) > maxLen {
				continue
			}
			if out = append(out, v); len(out) > maxLanguage {
				return nil, false
			}
		}
	}
	return dedupeStrings(out), true
}

func dedupeStrings(l []string) []string {
	seen := make(map[string]bool, len(l))
	out := l[:0]
	for _, v := range l {
		if !seen[v] {
			seen[v] = true
			out = append(out, v)
		}
	}
	return out
}

// literalPrefix is the text every match of an ^-anchored pattern starts
// with ("" when not anchored at the start).
func literalPrefix(pat string) string {
	re, ok := parsePattern(pat)
	if !ok || re.Op != syntax.OpConcat || len(re.Sub) < 2 || re.Sub[0].Op != syntax.OpBeginText {
		return ""
	}
	var b strings.Builder
	for _, s := range re.Sub[1:] {
		if s.Op != syntax.OpLiteral || s.Flags&syntax.FoldCase != 0 {
			break
		}
		b.WriteString(string(s.Rune))
	}
	return b.String()
}

// prefixPattern is the literal L of a target pattern "^L" (possibly
// followed by ".*"-like parts that match anything): a string matches it
// exactly when it starts with L.
func prefixPattern(pat string) (string, bool) {
	re, ok := parsePattern(pat)
	if !ok {
		return "", false
	}
	if re.Op != syntax.OpConcat || len(re.Sub) < 2 || re.Sub[0].Op != syntax.OpBeginText {
		return "", false
	}
	var b strings.Builder
	i := 1
	for ; i < len(re.Sub) && re.Sub[i].Op == syntax.OpLiteral && re.Sub[i].Flags&syntax.FoldCase == 0; i++ {
		b.WriteString(string(re.Sub[i].Rune))
	}
	for _, s := range re.Sub[i:] {
		if !emptyAtStart(s) || hasAssertion(s) {
			return "", false
		}
	}
	return b.String(), b.Len() > 0
}
