package witness

import (
	"regexp/syntax"
	"slices"
	"strings"
	"unicode"

	"github.com/typeward/typeward/internal/schemaview"
)

// Bounds on pattern generation: a hostile pattern is large or repeats
// without end; generation walks at most maxPatternNodes of the parsed
// expression per string and stops at maxStringRunes.
const (
	maxPatternNodes   = 2048
	patternRandomized = 6
)

// patternStrings generates strings matching a pattern (Go syntax, as the
// validator compiles it): a shortest match, a longer one, one choosing
// other alternatives and other characters, and a few random walks. The
// validator filters them; a string the walk gets wrong (a word boundary, a
// lookaround-free approximation) is simply rejected.
func (g *generator) patternStrings(p string) []string {
	re, ok := schemaview.ParsePattern(p)
	if !ok {
		return nil
	}
	var out []string
	add := func(s string, ok bool) {
		if ok && !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	for _, mode := range []walkMode{{}, {longer: true}, {alt: 1, other: true}, {alt: 2, longer: true, other: true}} {
		w := &patternWalk{mode: mode}
		add(w.string(re))
	}
	for range patternRandomized {
		w := &patternWalk{mode: walkMode{random: true}, rnd: g.rnd.IntN}
		add(w.string(re))
	}
	g.steps += len(out)
	return out
}

// simplestMatch is the shortest string the walk produces for a pattern.
func simplestMatch(p string) (string, bool) {
	re, ok := schemaview.ParsePattern(p)
	if !ok {
		return "", false
	}
	w := &patternWalk{}
	return w.string(re)
}

type walkMode struct {
	longer bool // repeat once more than the minimum
	alt    int  // which alternative of each alternation (modulo)
	other  bool // the last character of each class instead of the first
	random bool
}

type patternWalk struct {
	mode  walkMode
	rnd   func(int) int
	nodes int
	b     strings.Builder
	runes int
}

// string walks the expression; false when it cannot match or ran over.
func (w *patternWalk) string(re *syntax.Regexp) (string, bool) {
	if !w.walk(re) {
		return "", false
	}
	return w.b.String(), true
}

func (w *patternWalk) put(r rune) bool {
	if w.runes >= maxStringRunes {
		return false
	}
	w.b.WriteRune(r)
	w.runes++
	return true
}

func (w *patternWalk) pick(n int) int {
	if w.mode.random {
		return w.rnd(n)
	}
	return w.mode.alt % n
}

func (w *patternWalk) walk(re *syntax.Regexp) bool {
	w.nodes++
	if w.nodes > maxPatternNodes {
		return false
	}
	switch re.Op {
	case syntax.OpNoMatch:
		return false
	case syntax.OpEmptyMatch, syntax.OpBeginLine, syntax.OpEndLine, syntax.OpBeginText,
		syntax.OpEndText, syntax.OpWordBoundary, syntax.OpNoWordBoundary:
		return true
	case syntax.OpLiteral:
		for _, r := range re.Rune {
			if re.Flags&syntax.FoldCase != 0 && w.mode.other {
				r = unicode.SimpleFold(r)
			}
			if !w.put(r) {
				return false
			}
		}
		return true
	case syntax.OpCharClass:
		r, ok := w.classRune(re.Rune)
		return ok && w.put(r)
	case syntax.OpAnyCharNotNL, syntax.OpAnyChar:
		if w.mode.other {
			return w.put('Z')
		}
		return w.put('a')
	case syntax.OpCapture:
		return w.walk(re.Sub[0])
	case syntax.OpConcat:
		for _, s := range re.Sub {
			if !w.walk(s) {
				return false
			}
		}
		return true
	case syntax.OpAlternate:
		return w.walk(re.Sub[w.pick(len(re.Sub))])
	case syntax.OpStar, syntax.OpQuest, syntax.OpPlus, syntax.OpRepeat:
		lo, hi := repeatRange(re)
		n := lo
		switch {
		case w.mode.random:
			n = lo + w.rnd(min(hi-lo, 3)+1)
		case w.mode.longer && n < hi:
			n++
		}
		for range n {
			if !w.walk(re.Sub[0]) {
				return false
			}
		}
		return true
	}
	return false
}

// repeatRange is a repetition's bounds, an unbounded maximum read as the
// minimum plus a few.
func repeatRange(re *syntax.Regexp) (int, int) {
	switch re.Op {
	case syntax.OpStar:
		return 0, 4
	case syntax.OpQuest:
		return 0, 1
	case syntax.OpPlus:
		return 1, 5
	}
	lo, hi := re.Min, re.Max
	if hi < 0 {
		hi = lo + 4
	}
	return lo, hi
}

// classRune chooses a character of a class (pairs of inclusive ranges):
// a readable one when the class has any, else its first.
func (w *patternWalk) classRune(ranges []rune) (rune, bool) {
	if len(ranges) < 2 {
		return 0, false
	}
	in := func(r rune) bool {
		for i := 0; i+1 < len(ranges); i += 2 {
			if ranges[i] <= r && r <= ranges[i+1] {
				return true
			}
		}
		return false
	}
	prefs := []rune("aA0b_-. zZ9")
	if w.mode.other {
		prefs = []rune("zZ9yB-_.a ")
	}
	if w.mode.random {
		i := w.rnd(len(ranges) / 2)
		lo, hi := ranges[2*i], ranges[2*i+1]
		if lo < ' ' && hi >= ' ' {
			lo = ' '
		}
		span := int(min(hi-lo, 1<<16))
		return lo + rune(w.rnd(span+1)), true
	}
	for _, r := range prefs {
		if in(r) {
			return r, true
		}
	}
	for i := 0; i+1 < len(ranges); i += 2 {
		if ranges[i+1] >= '!' {
			return max(ranges[i], '!'), true
		}
	}
	return ranges[0], true
}
