package witness

import (
	"encoding/json"
	"math/rand/v2"
	"regexp"
	"strings"
	"time"

	"github.com/typeward/typeward/internal/schema"
)

// generator builds candidates from the source document. It keeps, per
// search, the candidate lists of the subschemas it has visited.
type generator struct {
	doc    *schema.Schema
	draft7 bool
	rnd    *rand.Rand
	run    *run
	hints  hints

	steps    int // work done: subschemas expanded, values built, inner validations
	maxSteps int
	lists    map[listKey][]any
	regexps  map[string]*regexp.Regexp // nil: does not compile
}

type listKey struct {
	ptrs  string
	depth int
}

// Generation bounds: nesting of generated values, and how many candidates
// a nested subschema contributes at each depth (the top level streams).
const (
	maxDepth   = 8
	maxRegexps = 64
)

func limitAt(depth int) int {
	switch {
	case depth <= 1:
		return 16
	case depth == 2:
		return 8
	case depth == 3:
		return 4
	}
	return 2
}

func newGenerator(doc *schema.Schema, rnd *rand.Rand, r *run) *generator {
	return &generator{
		doc:      doc,
		draft7:   doc.Dialect == schema.Draft7,
		rnd:      rnd,
		run:      r,
		maxSteps: 64 * r.budget.Candidates,
		lists:    map[listKey][]any{},
		regexps:  map[string]*regexp.Regexp{},
	}
}

// exhausted tells inner generation to stop: out of steps or out of time.
func (g *generator) exhausted() bool {
	if g.steps > g.maxSteps {
		return true
	}
	if g.steps%64 == 0 && time.Now().After(g.run.deadline) {
		g.run.timedOut = true
		return true
	}
	return g.run.timedOut
}

// root streams the candidates of the top-level subschema, a share of the
// budget to each alternative first, then the rest of each.
func (g *generator) root(n node, emit func(any) bool) {
	alts := g.expand(n, 0)
	if len(alts) == 0 {
		return
	}
	share := max(16, g.run.budget.Candidates/len(alts))
	for _, quota := range []int{share, -1} {
		for _, c := range alts {
			left := quota
			stopped := false
			g.candidates(c, 0, func(v any) bool {
				if !emit(v) {
					stopped = true
					return false
				}
				left--
				return left != 0
			})
			if stopped {
				return
			}
		}
		if len(alts) == 1 {
			return // the single alternative streamed in full
		}
	}
}

// values is a bounded list of candidates for a nested subschema, those its
// own validator accepts first. It is computed once per subschema and depth.
func (g *generator) values(c conj, depth int) []any {
	if depth > maxDepth {
		return nil
	}
	key := listKey{ptrsOf(c), depth}
	if l, ok := g.lists[key]; ok {
		return l
	}
	g.lists[key] = nil // a recursive reference met again meanwhile finds nothing
	limit := limitAt(depth)
	var valid, invalid []any
	seen := map[string]bool{}
	examined := 0
	g.candidates(c, depth, func(v any) bool {
		examined++
		g.steps++
		enc, ok := encodeBounded(v)
		if ok && !seen[enc] {
			seen[enc] = true
			if len(c) == 0 || !isRejection(g.doc.ValidateAt(c[0].ptr, v)) {
				valid = append(valid, v)
			} else if len(invalid) < 2 {
				invalid = append(invalid, v)
			}
		}
		return len(valid) < limit && examined < 4*limit && !g.exhausted()
	})
	if len(valid) == 0 {
		valid = invalid // nothing passed alone; the whole instance is judged at the top
	}
	g.lists[key] = valid
	return valid
}

func ptrsOf(c conj) string {
	var b strings.Builder
	for _, n := range c {
		b.WriteString(n.ptr)
		b.WriteByte(0)
	}
	return b.String()
}

// conjValues is values of the alternatives of a conjunction's merged
// subschemas: a property declared by two allOf branches must satisfy both.
func (g *generator) conjValues(c conj, depth int) []any {
	if len(c) == 0 {
		return g.values(c, depth)
	}
	var alts []conj
	for _, n := range c {
		alts = cross(orAnything(alts), g.expand(n, 0))
	}
	if len(alts) == 1 {
		return g.values(alts[0], depth)
	}
	var out []any
	limit := limitAt(depth)
	for _, a := range alts {
		out = append(out, g.values(a, depth)...)
	}
	return out[:min(len(out), 2*limit)]
}

func orAnything(a []conj) []conj {
	if a == nil {
		return []conj{{}}
	}
	return a
}

// candidates streams the candidates of one conjunction; emit returns false
// to stop. It returns false when stopped.
func (g *generator) candidates(c conj, depth int, emit func(any) bool) bool {
	if g.exhausted() {
		return false
	}
	v := g.view(c)
	if v.kinds == 0 {
		return true
	}
	if v.hasConst {
		return emit(v.consts[0])
	}
	if len(v.enums) > 0 {
		return g.enumValues(v.enums[0], emit)
	}
	// The kinds the subschema describes with keywords first, then the rest.
	type family struct {
		k    kinds
		kw   bool
		emit func(*view, int, func(any) bool) bool
	}
	families := []family{
		{kObject, v.objectKeywords, g.objects},
		{kArray, v.arrayKeywords, g.arrays},
		{kString, len(v.patterns) > 0 || len(v.formats) > 0 || v.minLen > 0 || v.maxLen >= 0, g.strings},
		{kInt | kFrac, v.numberKeywords, g.numbers},
	}
	for _, f := range families {
		if v.kinds&f.k != 0 && f.kw && !f.emit(v, depth, emit) {
			return false
		}
	}
	// Kinds without keywords: the type-wide samples first, they are the
	// likeliest to break a target; then what the generators add.
	if !g.samples(v, emit) {
		return false
	}
	for _, f := range families {
		if v.kinds&f.k != 0 && !f.kw && !f.emit(v, depth, emit) {
			return false
		}
	}
	return true
}

// enumValues emits an enum's values, a spread of them when it is large.
func (g *generator) enumValues(list []any, emit func(any) bool) bool {
	const most = 32
	if len(list) <= most {
		for _, e := range list {
			if !emit(e) {
				return false
			}
		}
		return true
	}
	for i := range most {
		if !emit(list[i*(len(list)-1)/(most-1)]) {
			return false
		}
	}
	return true
}

// samples are the type-wide values of every kind the subschema allows.
func (g *generator) samples(v *view, emit func(any) bool) bool {
	for _, s := range sampleValues {
		if v.kinds&kindOfValue(s) != 0 && !emit(s) {
			return false
		}
	}
	return true
}

var sampleValues = []any{
	nil, true, false, json.Number("0"), json.Number("-1"), json.Number("1"), json.Number("1.5"),
	"", "a", []any{}, map[string]any{},
}

func kindOfValue(v any) kinds {
	switch v := v.(type) {
	case nil:
		return kNull
	case bool:
		return kBool
	case json.Number:
		if r, ok := ratOf(v); ok && r.IsInt() {
			return kInt
		}
		return kFrac
	case string:
		return kString
	case []any:
		return kArray
	case map[string]any:
		return kObject
	}
	return 0
}

// regexp compiles a pattern once per search, as the validator does (Go's
// regexp); a pattern that does not compile matches nothing here.
func (g *generator) regexp(p string) *regexp.Regexp {
	if re, ok := g.regexps[p]; ok {
		return re
	}
	if len(g.regexps) >= maxRegexps || len(p) > 1024 {
		return nil
	}
	re, err := regexp.Compile(p)
	if err != nil {
		re = nil
	}
	g.regexps[p] = re
	return re
}

// encodeBounded is the canonical encoding of a value, refused beyond
// MaxValueBytes.
func encodeBounded(v any) (string, bool) {
	if !sizeAtMost(v, MaxValueBytes) {
		return "", false
	}
	b, err := schema.Canonical(v)
	if err != nil || len(b) > MaxValueBytes {
		return "", false
	}
	return string(b), true
}

// sizeAtMost bounds a value's encoded size cheaply, stopping early.
func sizeAtMost(v any, limit int) bool {
	left := limit
	var walk func(any, int) bool
	walk = func(v any, depth int) bool {
		if depth > 2*maxDepth {
			return false
		}
		switch v := v.(type) {
		case string:
			left -= len(v) + 2
		case json.Number:
			left -= len(v)
		case []any:
			left -= 2 + len(v)
			for _, e := range v {
				if left < 0 || !walk(e, depth+1) {
					return false
				}
			}
		case map[string]any:
			left -= 2 + len(v)
			for k, e := range v {
				left -= len(k) + 3
				if left < 0 || !walk(e, depth+1) {
					return false
				}
			}
		default:
			left -= 5
		}
		return left >= 0
	}
	return walk(v, 0)
}
