package schemaview

import (
	"regexp"
	"regexp/syntax"

	"github.com/typeward/typeward/internal/cache"
)

// regexps is the process's one cache of compiled patterns (pattern,
// patternProperties), unanchored as Go's MatchString is. A pattern is a
// pure function of its text, so every reader shares it. A nil entry (a
// pattern Go's engine refuses) is kept too; callers treat it soundly:
// cannot_prove on a target, a dropped constraint on a source.
//
// It is bounded by size like every cache: a compiled program grows with its
// pattern, so an entry is charged a multiple of the pattern's length.
var regexps = newRegexps()

const regexpCacheBytes = 8 << 20

func newRegexps() *cache.Cache[string, *regexp.Regexp] {
	return cache.New(cache.Config[string, *regexp.Regexp]{MaxBytes: regexpCacheBytes,
		Size: func(pattern string, _ *regexp.Regexp) int64 { return 512 + 64*int64(len(pattern)) }})
}

// Regexp is the compiled pattern, nil when Go's engine refuses it.
func Regexp(pattern string) *regexp.Regexp {
	if re, ok := regexps.Get(pattern); ok {
		return re
	}
	re, _ := regexp.Compile(pattern) // nil on error
	regexps.Put(pattern, re)
	return re
}

// MaxPatternBytes bounds the patterns ParsePattern reads.
const MaxPatternBytes = 4096

// ParsePattern is a pattern's simplified syntax tree in the syntax Go's
// engine (the validator's) compiles; ok is false for a pattern it refuses
// or one longer than MaxPatternBytes. The checker reads lengths and
// languages from it, the witness search walks it into strings.
func ParsePattern(pattern string) (*syntax.Regexp, bool) {
	if len(pattern) > MaxPatternBytes {
		return nil, false
	}
	re, err := syntax.Parse(pattern, syntax.Perl)
	if err != nil {
		return nil, false
	}
	return re.Simplify(), true
}
