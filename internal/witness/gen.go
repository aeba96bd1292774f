package witness

import (
	"encoding/json"
	"math/rand/v2"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/typeward/typeward/internal/schema"
	"github.com/typeward/typeward/internal/schemaview"
)

// generator builds candidates from the source document. It keeps, per
// search, the candidate lists of the subschemas it has visited.
type generator struct {
	doc    *schema.Schema
	sv     schemaview.View
	draft7 bool
	rnd    *rand.Rand
	run    *run
	hints  hints

	steps    int // work done: subschemas expanded, values built, inner validations
	maxSteps int
	lists    map[listKey]*list
	views    map[string]*view
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
		sv:       schemaview.Of(doc),
		draft7:   doc.Dialect == schema.Draft7,
		rnd:      rnd,
		run:      r,
		maxSteps: 64 * r.budget.Candidates,
		lists:    map[listKey]*list{},
		views:    map[string]*view{},
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

func ptrsOf(c conj) string {
	var b strings.Builder
	for _, n := range c {
		b.WriteString(n.ptr)
		b.WriteByte(0)
	}
	return b.String()
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

// regexp is a pattern compiled as the validator does (Go's regexp), from
// the process's one cache (schemaview.Regexp); a search asks for at most
// maxRegexps patterns. A pattern that does not compile matches nothing here.
func (g *generator) regexp(p string) *regexp.Regexp {
	if re, ok := g.regexps[p]; ok {
		return re
	}
	if len(g.regexps) >= maxRegexps || len(p) > 1024 {
		return nil
	}
	re := schemaview.Regexp(p)
	g.regexps[p] = re
	return re
}

// encodeBounded is a key for a value, one per JSON value (object keys
// sorted, numbers by their literal), refused when the value's encoding
// would exceed MaxValueBytes. It is cheaper than canonical JSON and serves
// only to tell candidates apart.
func encodeBounded(v any) (string, bool) {
	if !sizeAtMost(v, MaxValueBytes) {
		return "", false
	}
	b, ok := appendKey(make([]byte, 0, 64), v)
	if !ok {
		return "", false
	}
	return string(b), true
}

func appendKey(b []byte, v any) ([]byte, bool) {
	switch v := v.(type) {
	case nil:
		return append(b, 'n'), true
	case bool:
		if v {
			return append(b, 't'), true
		}
		return append(b, 'f'), true
	case json.Number:
		b = append(b, 'd')
		b = strconv.AppendInt(b, int64(len(v)), 10)
		return append(append(b, ':'), v...), true
	case float64:
		return strconv.AppendFloat(append(b, 'g'), v, 'g', -1, 64), true
	case string:
		b = append(b, 's')
		b = strconv.AppendInt(b, int64(len(v)), 10)
		return append(append(b, ':'), v...), true
	case []any:
		b = append(b, '[')
		for _, e := range v {
			var ok bool
			if b, ok = appendKey(b, e); !ok {
				return nil, false
			}
		}
		return append(b, ']'), true
	case map[string]any:
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		b = append(b, '{')
		for _, k := range keys {
			b = strconv.AppendInt(b, int64(len(k)), 10)
			b = append(append(b, ':'), k...)
			var ok bool
			if b, ok = appendKey(b, v[k]); !ok {
				return nil, false
			}
		}
		return append(b, '}'), true
	}
	return nil, false
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
