package witness

import (
	"strings"
	"unicode/utf8"
)

// maxStringRunes caps a generated string; a longer minLength is out of reach
// (and out of a readable 403).
const maxStringRunes = 128

// strings emits strings matching the source's patterns (generated from the
// parsed regexp), its formats' canonical examples, strings at its length
// bounds, the target's lengths seen from the source, and a few samples.
func (g *generator) strings(v *view, _ int, emit func(any) bool) bool {
	seen := map[string]bool{}
	out := func(s string) bool {
		n := utf8.RuneCountInString(s)
		if n < v.minLen || (v.maxLen >= 0 && n > v.maxLen) || n > maxStringRunes || seen[s] {
			return true
		}
		seen[s] = true
		g.steps++
		return emit(s)
	}
	// Stretched to the length bounds when a generated string falls short
	// or runs over.
	fit := func(s string) bool {
		if !out(s) {
			return false
		}
		n := utf8.RuneCountInString(s)
		if n < v.minLen && v.minLen <= maxStringRunes {
			pad := strings.Repeat(lastRune(s, "a"), v.minLen-n)
			if !out(s+pad) || !out(pad+s) {
				return false
			}
		}
		if v.maxLen >= 0 && n > v.maxLen {
			if !out(string([]rune(s)[:v.maxLen])) {
				return false
			}
		}
		return true
	}
	for _, p := range v.patterns {
		for _, s := range g.patternStrings(p) {
			if !fit(s) {
				return false
			}
		}
	}
	for _, f := range v.formats {
		for _, s := range formatExamples[f] {
			if !fit(s) {
				return false
			}
		}
	}
	lengths := []int{v.minLen, v.minLen + 1}
	if v.maxLen >= 0 {
		lengths = append(lengths, v.maxLen, v.maxLen-1)
	}
	lengths = append(lengths, g.hints.lengths...)
	for _, n := range lengths {
		for _, d := range []int{0, 1, -1} {
			if k := n + d; k >= 0 && k <= maxStringRunes {
				if !out(strings.Repeat("a", k)) {
					return false
				}
			}
		}
	}
	for _, s := range g.hints.strings {
		if !fit(s) {
			return false
		}
	}
	for _, s := range stringSamples {
		if !fit(s) {
			return false
		}
	}
	return true
}

func lastRune(s, otherwise string) string {
	if s == "" {
		return otherwise
	}
	r, _ := utf8.DecodeLastRuneInString(s)
	return string(r)
}

// stringSamples: the empty string, letters, digits, space, non-ASCII (one
// code point that is several bytes, one outside the BMP), punctuation, and
// strings that look like other kinds.
var stringSamples = []string{
	"", "a", "A", "0", " ", "é", "😀", "a b", "-", "_", "abcdefghij", "true", "null", "1.5", "a\nb",
}

// formatExamples are canonical instances of each format the validator knows
// (draft-07 asserts formats; 2020-12 may), with a second spelling where the
// format has one.
var formatExamples = map[string][]string{
	"date-time":             {"2024-01-01T00:00:00Z", "2024-01-01T12:30:45.5+02:00"},
	"date":                  {"2024-01-01", "2024-12-31"},
	"time":                  {"00:00:00Z", "12:30:45.5+02:00"},
	"duration":              {"P1D", "PT1H30M"},
	"email":                 {"a@example.com", "first.last@sub.example.org"},
	"idn-email":             {"a@example.com", "é@example.com"},
	"hostname":              {"example.com", "a"},
	"idn-hostname":          {"example.com", "bücher.example"},
	"ipv4":                  {"192.0.2.1", "0.0.0.0"},
	"ipv6":                  {"2001:db8::1", "::1"},
	"uri":                   {"https://example.com/", "urn:isbn:0451450523"},
	"uri-reference":         {"https://example.com/", "a/b", ""},
	"iri":                   {"https://example.com/", "https://bücher.example/"},
	"iri-reference":         {"https://example.com/", "a/b"},
	"uri-template":          {"https://example.com/{id}", "a"},
	"uuid":                  {"123e4567-e89b-12d3-a456-426614174000", "00000000-0000-0000-0000-000000000000"},
	"json-pointer":          {"", "/a", "/a~1b/0"},
	"relative-json-pointer": {"0", "1/a", "0#"},
	"regex":                 {"a", "^[a-z]+$"},
	"period":                {"2024-01-01T00:00:00Z/P1D"},
	"semver":                {"1.0.0", "1.2.3-rc.1+build.5"},
}
