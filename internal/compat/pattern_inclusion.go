package compat

import (
	"regexp/syntax"
	"slices"
	"strconv"
	"strings"
	"unicode"
)

// Inclusion of one pattern's strings in another's, decided on Go's compiled
// programs (the validator's engine): a subset construction over both
// automata at once, the alphabet cut into the ranges no instruction tells
// apart. Only patterns whose assertions are a leading ^ and a trailing $
// are read; anything else (inner anchors, \b, case folding) is no answer.

// maxInclusionStates bounds the pairs of state sets explored, and
// maxInclusionWork the instructions stepped over in all (a hostile pattern
// costs bounded time; beyond, no answer).
const (
	maxInclusionStates = 2000
	maxInclusionWork   = 1 << 18
)

// searchProgram compiles pat as the validator uses it, a search anywhere in
// the string, into a program that must match the whole string.
func searchProgram(pat string) (*syntax.Prog, bool) {
	re, ok := parsePattern(pat)
	if !ok {
		return nil, false
	}
	subs := []*syntax.Regexp{re}
	if re.Op == syntax.OpConcat {
		subs = slices.Clone(re.Sub)
	}
	anyStar := &syntax.Regexp{Op: syntax.OpStar, Sub: []*syntax.Regexp{{Op: syntax.OpAnyChar}}}
	if len(subs) > 0 && subs[0].Op == syntax.OpBeginText {
		subs = subs[1:]
	} else {
		subs = append([]*syntax.Regexp{anyStar}, subs...)
	}
	if len(subs) > 0 && subs[len(subs)-1].Op == syntax.OpEndText {
		subs = subs[:len(subs)-1]
	} else {
		subs = append(subs, anyStar)
	}
	for _, s := range subs {
		if s != anyStar && (hasAssertion(s) || folds(s)) {
			return nil, false
		}
	}
	prog, err := syntax.Compile((&syntax.Regexp{Op: syntax.OpConcat, Sub: subs}).Simplify())
	if err != nil {
		return nil, false
	}
	return prog, true
}

func folds(re *syntax.Regexp) bool {
	if re.Flags&syntax.FoldCase != 0 && (re.Op == syntax.OpLiteral || re.Op == syntax.OpCharClass) {
		return true
	}
	return slices.ContainsFunc(re.Sub, folds)
}

// patternIncluded: every string src matches, tgt matches too (decided is
// false when it could not tell). When not, witness is a string src matches
// and tgt does not.
func patternIncluded(src, tgt string) (included bool, witness string, decided bool) {
	return patternIncludedWithin(src, tgt, 0, -1)
}

// maxTrackedLength bounds the maxLength the search follows; a larger one is
// ignored (the source is then taken wider, which is sound).
const maxTrackedLength = 64

// patternIncludedWithin is patternIncluded for the strings of src whose
// length is at least minLen and, when maxLen ≥ 0, at most maxLen.
func patternIncludedWithin(src, tgt string, minLen, maxLen int) (included bool, witness string, decided bool) {
	if maxLen > maxTrackedLength {
		maxLen = -1
	}
	if minLen > maxTrackedLength {
		minLen = maxTrackedLength
	}
	depthCap := minLen // lengths beyond it are alike
	if maxLen >= 0 {
		depthCap = maxLen
	}
	sp, ok1 := searchProgram(src)
	tp, ok2 := searchProgram(tgt)
	if !ok1 || !ok2 {
		return false, "", false
	}
	reps, ok := alphabet(sp, tp)
	if !ok {
		return false, "", false
	}
	type pair struct{ s, t []uint32 }
	type item struct {
		p      pair
		parent int
		r      rune
		depth  int
	}
	start := pair{epsClosure(sp, []uint32{uint32(sp.Start)}), epsClosure(tp, []uint32{uint32(tp.Start)})}
	queue := []item{{p: start, parent: -1}}
	seen := map[string]bool{pairKey(start.s, start.t) + "0": true}
	work := 0
	for i := 0; i < len(queue); i++ {
		cur := queue[i]
		if work += len(reps) * (len(cur.p.s) + len(cur.p.t) + 1); work > maxInclusionWork {
			return false, "", false
		}
		if cur.depth >= minLen && accepts(sp, cur.p.s) && !accepts(tp, cur.p.t) {
			var b []rune
			for j := i; queue[j].parent >= 0; j = queue[j].parent {
				b = append(b, queue[j].r)
			}
			slices.Reverse(b)
			return false, string(b), true
		}
		if maxLen >= 0 && cur.depth >= maxLen {
			continue
		}
		d := min(cur.depth+1, depthCap)
		for _, c := range reps {
			ns := advance(sp, cur.p.s, c)
			if len(ns) == 0 {
				continue
			}
			nt := advance(tp, cur.p.t, c)
			k := pairKey(ns, nt) + strconv.Itoa(d)
			if seen[k] {
				continue
			}
			if len(seen) >= maxInclusionStates {
				return false, "", false
			}
			seen[k] = true
			queue = append(queue, item{p: pair{ns, nt}, parent: i, r: c, depth: d})
		}
	}
	return true, "", true
}

// alphabet lists one rune of each range of runes every instruction of both
// programs treats alike.
func alphabet(progs ...*syntax.Prog) ([]rune, bool) {
	cuts := map[rune]bool{0: true, '\n': true, '\n' + 1: true}
	for _, p := range progs {
		for _, in := range p.Inst {
			switch in.Op {
			case syntax.InstRune, syntax.InstRune1:
				if syntax.Flags(in.Arg)&syntax.FoldCase != 0 {
					return nil, false
				}
				rs := in.Rune
				if in.Op == syntax.InstRune1 || len(rs) == 1 {
					rs = []rune{rs[0], rs[0]}
				}
				for i := 0; i+1 < len(rs); i += 2 {
					cuts[rs[i]] = true
					if rs[i+1] < unicode.MaxRune {
						cuts[rs[i+1]+1] = true
					}
				}
			case syntax.InstEmptyWidth:
				return nil, false
			}
		}
	}
	var reps []rune
	for c := range cuts {
		reps = append(reps, c)
	}
	slices.Sort(reps)
	return reps, true
}

// epsClosure adds the states reachable without reading a rune.
func epsClosure(p *syntax.Prog, pcs []uint32) []uint32 {
	seen := map[uint32]bool{}
	var out []uint32
	stack := slices.Clone(pcs)
	for len(stack) > 0 {
		pc := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if seen[pc] {
			continue
		}
		seen[pc] = true
		in := p.Inst[pc]
		switch in.Op {
		case syntax.InstAlt, syntax.InstAltMatch:
			stack = append(stack, in.Out, in.Arg)
		case syntax.InstCapture, syntax.InstNop:
			stack = append(stack, in.Out)
		default:
			out = append(out, pc)
		}
	}
	slices.Sort(out)
	return out
}

func advance(p *syntax.Prog, pcs []uint32, c rune) []uint32 {
	var next []uint32
	for _, pc := range pcs {
		in := p.Inst[pc]
		switch in.Op {
		case syntax.InstRune, syntax.InstRune1, syntax.InstRuneAny, syntax.InstRuneAnyNotNL:
			if in.MatchRune(c) {
				next = append(next, in.Out)
			}
		}
	}
	return epsClosure(p, next)
}

func accepts(p *syntax.Prog, pcs []uint32) bool {
	return slices.ContainsFunc(pcs, func(pc uint32) bool { return p.Inst[pc].Op == syntax.InstMatch })
}

func pairKey(a, b []uint32) string {
	var sb strings.Builder
	for _, pc := range a {
		sb.WriteString(strconv.FormatUint(uint64(pc), 36))
		sb.WriteByte(',')
	}
	sb.WriteByte('|')
	for _, pc := range b {
		sb.WriteString(strconv.FormatUint(uint64(pc), 36))
		sb.WriteByte(',')
	}
	return sb.String()
}
