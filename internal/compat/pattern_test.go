package compat

import (
	"regexp"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestPatternFacts(t *testing.T) {
	for _, tc := range []struct {
		pat       string
		lo, hi    int
		every     bool
		lang      []string // nil: not finite (within maxLen 3)
		prefix    string   // of a "^L…" target pattern
		srcPrefix string
	}{
		{pat: "^[a-z]+$", lo: 1, hi: infinite, lang: nil},
		{pat: "^[0-9]{3}$", lo: 3, hi: 3},
		{pat: "^[ab]$", lo: 1, hi: 1, lang: []string{"a", "b"}},
		{pat: "^a+$", lo: 1, hi: infinite, lang: []string{"a", "aa", "aaa"}},
		{pat: "^(x|yz)?$", lo: 0, hi: 2, lang: []string{"", "x", "yz"}},
		{pat: "abc", lo: 3, hi: infinite},
		{pat: "^abc", lo: 3, hi: infinite, prefix: "abc", srcPrefix: "abc"},
		{pat: "^ab.*", lo: 2, hi: infinite, prefix: "ab", srcPrefix: "ab"},
		{pat: "^ab$", lo: 2, hi: 2, lang: []string{"ab"}, srcPrefix: "ab"},
		{pat: "a|^", lo: 0, hi: infinite, every: true},
		{pat: ".*", lo: 0, hi: infinite, every: true},
		{pat: "^a*", lo: 0, hi: infinite, every: true},
		{pat: "$", lo: 0, hi: infinite},
		{pat: "(?i)^ab$", lo: 2, hi: 2},
		{pat: "\\bx", lo: 1, hi: infinite},
	} {
		lo, hi, _ := patternLengths(tc.pat)
		if lo != tc.lo || hi != tc.hi {
			t.Errorf("%q: lengths %d..%d, want %d..%d", tc.pat, lo, hi, tc.lo, tc.hi)
		}
		if got := matchesEveryString(tc.pat); got != tc.every {
			t.Errorf("%q: matches every string %v", tc.pat, got)
		}
		lang, ok := patternLanguage(tc.pat, 3)
		if ok != (tc.lang != nil) || !slices.Equal(lang, tc.lang) {
			t.Errorf("%q: language %q %v, want %q", tc.pat, lang, ok, tc.lang)
		}
		if p, _ := prefixPattern(tc.pat); p != tc.prefix {
			t.Errorf("%q: prefix pattern %q, want %q", tc.pat, p, tc.prefix)
		}
		if p := literalPrefix(tc.pat); p != tc.srcPrefix {
			t.Errorf("%q: literal prefix %q, want %q", tc.pat, p, tc.srcPrefix)
		}
	}
}

// FuzzPatternFacts: whatever the pattern, the facts the rules read from it
// hold of every string the validator's engine matches with it.
func FuzzPatternFacts(f *testing.F) {
	for _, seed := range [][2]string{{"^[a-z]+$", "abc"}, {"a|^", "zz"}, {"^(x|yz)?$", "yz"}, {"^ab.*", "abq"}, {"(?i)^ab$", "AB"}, {"^a{2,3}b?$", "aab"}, {"x*\\by", "x y"}} {
		f.Add(seed[0], seed[1])
	}
	f.Fuzz(func(t *testing.T, pat, s string) {
		re, err := regexp.Compile(pat)
		if err != nil || !utf8.ValidString(s) {
			return
		}
		if matchesEveryString(pat) && !re.MatchString(s) {
			t.Fatalf("%q said to match every string, not %q", pat, s)
		}
		if p, ok := prefixPattern(pat); ok && strings.HasPrefix(s, p) && !re.MatchString(s) {
			t.Fatalf("%q said to match every string starting with %q, not %q", pat, p, s)
		}
		if !re.MatchString(s) {
			return
		}
		n := utf8.RuneCountInString(s)
		if lo, hi, ok := patternLengths(pat); !ok || n < lo || (hi != infinite && n > hi) {
			t.Fatalf("%q matches %q (%d characters) outside %d..%d (ok %v)", pat, s, n, lo, hi, ok)
		}
		if lang, ok := patternLanguage(pat, n); ok && !slices.Contains(lang, s) {
			t.Fatalf("%q matches %q, missing from its language %q", pat, s, lang)
		}
		if p := literalPrefix(pat); len(s) < len(p) || s[:len(p)] != p {
			t.Fatalf("%q matches %q, which does not start with %q", pat, s, p)
		}
		if p, ok := prefixPattern(pat); ok && (len(s) < len(p) || s[:len(p)] != p) {
			t.Fatalf("%q matches %q, which does not start with %q", pat, s, p)
		}
	})
}

func TestPatternRules(t *testing.T) {
	runRuleCases(t, []ruleCase{
		{name: "one or more letters is non-empty", src: `{"type":"string","pattern":"^[a-z]+$"}`, tgt: `{"type":"string","minLength":1}`},
		{name: "an unanchored literal needs its length", src: `{"type":"string","pattern":"abc"}`, tgt: `{"type":"string","minLength":3}`},
		{name: "an unanchored pattern bounds no maximum", src: `{"type":"string","pattern":"^abc"}`, tgt: `{"type":"string","maxLength":3}`,
			want: []string{"incompatible length_mismatch  /maxLength: source may be longer than 3 characters, the maxLength of target [witness \"abcdefghij\" rejected at /maxLength]"}},
		{name: "anchored at both ends bounds the maximum", src: `{"type":"string","pattern":"^[0-9]{3}$"}`, tgt: `{"type":"string","maxLength":3}`},
		{name: "a longer literal prefix", src: `{"type":"string","pattern":"^abc"}`, tgt: `{"type":"string","pattern":"^a"}`},
		{name: "a shorter literal prefix", src: `{"type":"string","pattern":"^a"}`, tgt: `{"type":"string","pattern":"^abc"}`,
			want: []string{`incompatible pattern_mismatch /pattern /pattern: source may be a string that does not match the pattern "^abc" of target [witness "a" rejected at /pattern]`}},
		{name: "an empty alternative", src: `{"type":"string"}`, tgt: `{"type":"string","pattern":"a|^"}`},
		{name: "a finite language into an enum", src: `{"type":"string","pattern":"^[ab]$"}`, tgt: `{"enum":["a","b"]}`},
		{name: "a finite language breaks an enum", src: `{"type":"string","pattern":"^[abc]$"}`, tgt: `{"enum":["a","b"]}`,
			want: []string{`incompatible enum_mismatch /type /enum: source may be "c", which target does not accept [witness "c" rejected at /enum]`}},
		{name: "a language finite by maxLength", src: `{"type":"string","pattern":"^a+$","maxLength":2}`, tgt: `{"enum":["a","aa"]}`},
		{name: "a finite language into another pattern", src: `{"type":"string","pattern":"^(ab|cb)$"}`, tgt: `{"pattern":"b$"}`},
		{name: "case folding is not expanded", src: `{"type":"string","pattern":"(?i)^a$"}`, tgt: `{"enum":["a"]}`,
			want: []string{`incompatible enum_mismatch  /enum: source is any string but target must be one of "a" [witness "A" rejected at /enum]`}},
	})
}

func TestPatternIncluded(t *testing.T) {
	for _, tc := range []struct {
		src, tgt string
		included bool
		decided  bool
	}{
		{"^a+$", "^a*$", true, true},
		{"^a*$", "^a+$", false, true},
		{"^[a-c]+$", "^[a-z]+$", true, true},
		{"^[0-9]{3}$", "^[0-9]+$", true, true},
		{"^abc", "^ab", true, true},
		{"abc", "b", true, true},
		{"b", "abc", false, true},
		{"^(ab)*$", "^(ab|cd)*$", true, true},
		{"^x.y$", "^x[^\\n]y$", true, true},
		{"^x(?s:.)y$", "^x[^\\n]y$", false, true},
		{"(?i)^a$", "^a$", false, false},
		{"^a\\b", "^a", false, false},
	} {
		in, w, decided := patternIncluded(tc.src, tc.tgt)
		if in != tc.included || decided != tc.decided {
			t.Errorf("%q in %q: included %v decided %v, want %v %v", tc.src, tc.tgt, in, decided, tc.included, tc.decided)
		}
		if decided && !in && (!regexp.MustCompile(tc.src).MatchString(w) || regexp.MustCompile(tc.tgt).MatchString(w)) {
			t.Errorf("%q in %q: witness %q does not tell them apart", tc.src, tc.tgt, w)
		}
	}
}

// FuzzPatternIncluded: an inclusion the automata claim holds of every
// string the engine matches within the lengths given, and a witness (of such
// a length) tells the patterns apart.
func FuzzPatternIncluded(f *testing.F) {
	for _, seed := range [][3]string{{"^a+$", "^a*$", "aa"}, {"abc", "b", "xabcx"}, {"^[0-9]{3}$", "^[0-9]+$", "123"}, {"^(ab)*$", "^(ab|cd)*$", "abab"}, {"x.y", "x[^\\n]y", "x\ny"}, {"^a*$", "^a+$", "a"}} {
		f.Add(seed[0], seed[1], seed[2], uint8(1), uint8(0))
	}
	f.Fuzz(func(t *testing.T, src, tgt, s string, lo, hi uint8) {
		sr, err1 := regexp.Compile(src)
		tr, err2 := regexp.Compile(tgt)
		if err1 != nil || err2 != nil || !utf8.ValidString(s) {
			return
		}
		minLen, maxLen := int(lo%8), int(hi%10)-1
		within := func(v string) bool {
			n := utf8.RuneCountInString(v)
			return n >= minLen && (maxLen < 0 || n <= maxLen)
		}
		in, w, decided := patternIncludedWithin(src, tgt, minLen, maxLen)
		if !decided {
			return
		}
		if in && within(s) && sr.MatchString(s) && !tr.MatchString(s) {
			t.Fatalf("%q said to be inside %q within %d..%d, but %q matches only the first", src, tgt, minLen, maxLen, s)
		}
		if !in && (!within(w) || !sr.MatchString(w) || tr.MatchString(w)) {
			t.Fatalf("%q not inside %q within %d..%d, but the witness %q does not tell them apart", src, tgt, minLen, maxLen, w)
		}
	})
}

func TestPatternWithinLengths(t *testing.T) {
	runRuleCases(t, []ruleCase{
		{name: "minLength makes a star a plus", src: `{"type":"string","pattern":"^a*$","minLength":1}`, tgt: `{"type":"string","pattern":"^a+$"}`},
		{name: "maxLength bounds a repetition", src: `{"type":"string","pattern":"^(ab)*$","maxLength":4}`, tgt: `{"type":"string","pattern":"^(ab){0,2}$"}`},
		{name: "a longer string escapes", src: `{"type":"string","pattern":"^(ab)*$","maxLength":6}`, tgt: `{"type":"string","pattern":"^(ab){0,2}$"}`,
			want: []string{`incompatible pattern_mismatch /pattern /pattern: source may be a string that does not match the pattern "^(ab){0,2}$" of target [witness "ababab" rejected at /pattern]`}},
	})
}
