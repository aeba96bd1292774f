package compat

import (
	"encoding/json"
	"maps"
	"math/big"
	"slices"
	"strconv"
	"strings"

	"github.com/typeward/typeward/internal/schemaview"
	"github.com/typeward/typeward/internal/verdict"
)

// object checks the target's object keywords.
func (r *run) object(s view, t node, p path) []finding {
	var out []finding
	out = append(out, r.required(s, t, p)...)
	out = append(out, r.properties(s, t, p)...)
	out = append(out, r.additional(s, t, p)...)
	out = append(out, r.patternProperties(s, t, p)...)
	out = append(out, r.propertyNames(s, t, p)...)
	out = append(out, r.propertyCounts(s, t, p)...)
	out = append(out, r.dependencies(s, t, p)...)
	return out
}

// required: a property the target requires must be required by the source.
// Declared but optional is a WARNING (the value is usually there, but
// nothing promises it); not declared at all is an ERROR.
func (r *run) required(s view, t node, p path) []finding {
	req := r.srcRequired(s)
	var out []finding
	seen := map[string]bool{}
	for _, name := range stringList(t.m["required"]) {
		if seen[name] || req[name] {
			continue
		}
		seen[name] = true
		pv, declared := r.srcProp(s, name)
		switch {
		case declared && r.possible(pv):
			out = append(out, r.report(verdict.CodeMayBeMissing, pv.at, t.ptr+"/required", p.prop(name),
				"%s is optional but %s is required", srcMark, tgtMark))
		default:
			out = append(out, r.report(verdict.CodeMissingRequired, r.srcPtr(s), t.ptr+"/required", p,
				"%s does not provide %q, which %s requires", srcMark, name, tgtMark))
		}
	}
	return out
}

// properties compares each property the target describes with what the
// source says about the same name.
func (r *run) properties(s view, t node, p path) []finding {
	props, _ := t.m["properties"].(map[string]any)
	required := stringList(t.m["required"])
	srcReq := r.srcRequired(s)
	var out []finding
	for _, name := range slices.Sorted(maps.Keys(props)) {
		tp, ok := t.child("properties", name)
		if !ok {
			continue
		}
		pv, declared := r.srcProp(s, name)
		if declared {
			out = append(out, r.descend(pv, tp, p.prop(name))...)
			continue
		}
		if (slices.Contains(required, name) && !srcReq[name]) || !r.possible(pv) {
			continue // reported as missing_required, or the source cannot have it
		}
		out = append(out, r.undeclared(pv, tp, p, "property "+quote(name))...)
	}
	return out
}

// undeclared compares what an open source object says about names it never
// declares (nothing, usually) with a target constraint. A source that is
// silent about a name could in principle carry anything there; producers
// rarely emit undeclared fields, so this is a WARNING rather than a refusal,
// but never a silent pass.
func (r *run) undeclared(v view, t node, p path, what string) []finding {
	fs := r.descend(v, t, p)
	silent := true
	for _, n := range v.conj {
		if b, isBool := n.v.(bool); !isBool || !b {
			silent = false
		}
	}
	if len(fs) == 0 || !silent {
		return fs
	}
	return []finding{r.report(verdict.CodeUndeclaredProperty, v.at, t.ptr, p,
		"%s does not declare %s, which %s constrains", srcMark, what, tgtMark)}
}

// additional handles additionalProperties, and unevaluatedProperties where
// it means the same (no in-place applicator beside it).
func (r *run) additional(s view, t node, p path) []finding {
	a, ok := t.child("additionalProperties")
	evaluators := []node{t}
	if !ok {
		u, hasU := t.child("unevaluatedProperties")
		if !hasU || r.tgtD7 {
			return nil
		}
		var all, exact bool
		evaluators, all, exact = r.tgtPropertyEvaluators(t)
		if all {
			return nil // a subschema evaluates every property: unevaluatedProperties meets none
		}
		if !exact {
			return r.cannotProve(r.srcPtr(s), u.ptr, p, "unevaluatedProperties", "it depends on what the target's conditional subschemas evaluate")
		}
		a = u
	}
	if b, isBool := a.v.(bool); isBool && b {
		return nil
	}
	closed := a.m == nil // additionalProperties: false
	keyword := a.ptr[len(t.ptr)+1:]
	var out []finding
	for _, name := range r.srcNames(s) {
		covered, known := r.coveredByTarget(evaluators, name)
		if covered {
			continue
		}
		pv, _ := r.srcProp(s, name)
		if !r.possible(pv) {
			continue
		}
		if !known {
			out = append(out, r.cannotProve(pv.at, a.ptr, p.prop(name), "patternProperties", "a target pattern cannot be evaluated")...)
			continue
		}
		if closed {
			out = append(out, r.report(verdict.CodeAdditionalProperty, pv.at, a.ptr, p,
				"%s may have %q, which %s does not allow (%s: false)", srcMark, name, tgtMark, keyword))
			continue
		}
		out = append(out, r.descend(pv, a, p.prop(name))...)
	}
	for _, sp := range r.srcPatterns(s) {
		if slices.ContainsFunc(evaluators, func(e node) bool { _, same := e.child("patternProperties", sp.pattern); return same }) {
			continue
		}
		if fs := r.descend(viewOf(sp.n), a, p); len(fs) > 0 {
			out = append(out, r.cannotProve(sp.n.ptr, a.ptr, p, keyword,
				"names matching the source pattern "+quote(sp.pattern)+" may not be covered by the target")...)
		}
	}
	ev, possible := r.srcExtra(s)
	if !possible || r.extraNamesCovered(s, evaluators) {
		return out
	}
	if closed {
		return append(out, r.report(verdict.CodeAdditionalProperty, r.srcPtr(s), a.ptr, p,
			"%s may have properties that %s does not allow (%s: false)", srcMark, tgtMark, keyword))
	}
	return append(out, r.undeclared(ev, a, p.prop("*"), "its other properties")...)
}

// patternProperties: every source property whose name matches a target
// pattern must fit that pattern's schema.
func (r *run) patternProperties(s view, t node, p path) []finding {
	pats, _ := t.m["patternProperties"].(map[string]any)
	var out []finding
	for _, pat := range slices.Sorted(maps.Keys(pats)) {
		tq, ok := t.child("patternProperties", pat)
		if !ok {
			continue
		}
		re := schemaview.Regexp(pat)
		if re == nil {
			out = append(out, r.cannotProve(r.srcPtr(s), tq.ptr, p, "patternProperties", "the pattern cannot be evaluated")...)
			continue
		}
		for _, name := range r.srcNames(s) {
			if re.MatchString(name) {
				pv, _ := r.srcProp(s, name)
				out = append(out, r.descend(pv, tq, p.prop(name))...)
			}
		}
		for _, sp := range r.srcPatterns(s) {
			fs := r.descend(viewOf(sp.n), tq, p.prop(sp.pattern))
			if sp.pattern == pat || len(fs) == 0 {
				out = append(out, fs...)
				continue
			}
			out = append(out, r.cannotProve(sp.n.ptr, tq.ptr, p, "patternProperties",
				"the source pattern "+quote(sp.pattern)+" may overlap the target pattern "+quote(pat))...)
		}
		// A source pattern equal to pat governs every undeclared name pat
		// matches (checked above): additionalProperties never reaches them.
		// Nor names of a finite pattern the source declares, all of them.
		covered := slices.ContainsFunc(r.srcPatterns(s), func(sp srcPattern) bool { return sp.pattern == pat })
		if lang, finite := patternLanguage(pat, -1); finite && !covered {
			declared := r.srcNames(s)
			covered = !slices.ContainsFunc(lang, func(name string) bool { return !slices.Contains(declared, name) })
		}
		if ev, possible := r.srcExtra(s); possible && !covered && !r.noUndeclaredNames(s) {
			out = append(out, with(r.undeclared(ev, tq, p, "the names matching "+quote(pat)), r.undeclaredCandidates(s, pat)...)...)
		}
	}
	return out
}

// propertyNames: proven by the source's own propertyNames fitting, or by a
// closed source whose every name the validator accepts.
func (r *run) propertyNames(s view, t node, p path) []finding {
	tn, ok := t.child("propertyNames")
	if !ok {
		return nil
	}
	var own []node
	for _, n := range s.conj {
		if c, ok := n.child("propertyNames"); ok {
			own = append(own, c)
		}
	}
	if len(own) > 0 {
		v := viewOf(own...)
		v.types = KindString
		if fs := r.descend(v, tn, p); len(fs) == 0 {
			return nil
		}
	}
	if _, open := r.srcExtra(s); open || !r.patternsFitNames(r.srcPatterns(s), tn) {
		if len(own) > 0 {
			return r.cannotProve(own[0].ptr, tn.ptr, p, "propertyNames", "the source's property names may not fit")
		}
		return []finding{r.report(verdict.CodeUndeclaredProperty, r.srcPtr(s), tn.ptr, p,
			"%s may have property names that %s rejects (propertyNames)", srcMark, tgtMark)}
	}
	var out []finding
	for _, name := range r.srcNames(s) {
		pv, _ := r.srcProp(s, name)
		if !r.possible(pv) {
			continue
		}
		r.budget--
		ok, decided := validates(r.tgt, tn.ptr, name)
		if !decided {
			out = append(out, r.cannotProve(pv.at, tn.ptr, p, "propertyNames", "the validator cannot decide "+quote(name))...)
			continue
		}
		if !ok {
			out = append(out, r.report(verdict.CodeAdditionalProperty, pv.at, tn.ptr, p,
				"%s may have %q, a name %s rejects (propertyNames)", srcMark, name, tgtMark))
		}
	}
	return out
}

// propertyCounts compares minProperties/maxProperties with what the source
// guarantees.
func (r *run) propertyCounts(s view, t node, p path) []finding {
	var out []finding
	lo, hi, loPtr, hiPtr := r.srcPropertyCounts(s)
	if tmin, ok := intOf(t.m["minProperties"]); ok && lo.Cmp(tmin) < 0 {
		out = append(out, r.report(verdict.CodeSizeMismatch, loPtr, t.ptr+"/minProperties", p,
			"%s may have fewer than %s properties, the minProperties of %s", srcMark, tmin, tgtMark))
	}
	if tmax, ok := intOf(t.m["maxProperties"]); ok && (hi == nil || hi.Cmp(tmax) > 0) {
		out = append(out, with([]finding{r.report(verdict.CodeSizeMismatch, orPtr(hiPtr, r.srcPtr(s)), t.ptr+"/maxProperties", p,
			"%s may have more than %s properties, the maxProperties of %s", srcMark, tmax, tgtMark)}, r.biggerObject(s, tmax)...)...)
	}
	return out
}

// biggerObject is a candidate with more than n properties: the source's
// declared names, then names its patterns match, then others, each with a
// value the source states for it (null when it states none).
func (r *run) biggerObject(s view, n *big.Int) []any {
	if !n.IsInt64() || n.Int64() >= 32 {
		return nil
	}
	want := int(n.Int64()) + 1
	obj := map[string]any{}
	first := func(v view) any {
		if vals, ok := r.directValues(v); ok && len(vals) > 0 {
			return vals[0]
		}
		return nil
	}
	for _, name := range r.srcNames(s) {
		if len(obj) < want {
			pv, _ := r.srcProp(s, name)
			obj[name] = first(pv)
		}
	}
	for _, sp := range r.srcPatterns(s) {
		l, ok := prefixPattern(sp.pattern)
		if !ok {
			continue
		}
		for i := 0; len(obj) < want && i < want; i++ {
			name := l + strings.Repeat("z", i)
			if _, taken := obj[name]; !taken {
				obj[name] = first(viewOf(sp.n))
			}
		}
	}
	for i := 0; len(obj) < want; i++ {
		if name := "x" + strconv.Itoa(i); obj[name] == nil {
			obj[name] = nil
		}
	}
	return []any{obj}
}

// srcPropertyCounts bounds the source's number of properties: at least its
// required names and own minProperties; at most its maxProperties and, for
// a closed source, the names it can have at all (hi nil: unbounded).
func (r *run) srcPropertyCounts(s view) (lo, hi *big.Int, loPtr, hiPtr string) {
	lo, loPtr = intKeyword(s, "minProperties", true)
	if n := big.NewInt(int64(len(r.srcRequired(s)))); lo == nil || n.Cmp(lo) > 0 {
		lo, loPtr = n, r.srcKeywordPtr(s, "required")
	}
	hi, hiPtr = intKeyword(s, "maxProperties", false)
	for _, n := range s.conj {
		if pn, ok := n.child("propertyNames"); ok {
			if names, finite := nameSet(pn); finite && len(names) == 0 {
				hi, hiPtr = new(big.Int), pn.ptr // no name is allowed
			}
		}
	}
	if _, open := r.srcExtra(s); !open && len(r.srcPatterns(s)) == 0 {
		count := 0
		for _, name := range r.srcNames(s) {
			if pv, _ := r.srcProp(s, name); r.possible(pv) {
				count++
			}
		}
		if n := big.NewInt(int64(count)); hi == nil || n.Cmp(hi) < 0 {
			hi, hiPtr = n, r.srcKeywordPtr(s, "additionalProperties")
		}
	}
	return lo, hi, loPtr, hiPtr
}

// dependencies covers dependentRequired, dependentSchemas and draft-07's
// dependencies (which the validator honours in every dialect; the other
// two exist only in 2020-12).
func (r *run) dependencies(s view, t node, p path) []finding {
	var out []finding
	kws := []string{"dependentRequired", "dependentSchemas", "dependencies"}
	if r.tgtD7 {
		kws = kws[2:]
	}
	for _, kw := range kws {
		deps, _ := t.m[kw].(map[string]any)
		for _, key := range slices.Sorted(maps.Keys(deps)) {
			if pv, _ := r.srcProp(s, key); !r.possible(pv) {
				continue // the source never has the trigger
			}
			if names, isList := deps[key].([]any); isList {
				out = append(out, r.dependentRequired(s, t, p, kw, key, names)...)
				continue
			}
			d, ok := t.child(kw, key)
			if !ok {
				continue
			}
			// Only objects that have the trigger must fit: the source
			// narrowed to them (its own dependentSchemas then apply).
			with := s
			with.types &= KindObject
			with.req = append(slices.Clip(s.req), key)
			out = append(out, r.sub(with, d, p)...)
		}
	}
	return out
}

func (r *run) dependentRequired(s view, t node, p path, kw, key string, names []any) []finding {
	trig := s
	trig.req = append(slices.Clip(s.req), key)
	trig, _ = r.normalize(trig) // the trigger's own dependentSchemas apply
	have := r.srcRequired(trig)
	var out []finding
	for _, name := range stringList(names) {
		if !have[name] {
			// The candidate has the trigger and what the source then
			// requires, not the name.
			c := map[string]any{key: nil}
			for n := range have {
				c[n] = nil
			}
			delete(c, name)
			out = append(out, with([]finding{r.report(verdict.CodeDependencyMissing, r.srcPtr(s), t.ptr+"/"+kw, p,
				"%s may have %q without %q, which %s requires together (%s)", srcMark, key, name, tgtMark, kw)}, c)...)
		}
	}
	return out
}

func stringList(v any) []string {
	arr, _ := v.([]any)
	out := make([]string, 0, len(arr))
	for _, e := range arr {
		if s, ok := e.(string); ok {
			out = append(out, s)
		}
	}
	return out
}

// undeclaredCandidates are objects holding one name pat matches that the
// source does not declare, with values of each kind: the validator keeps
// one the source accepts and the target's schema for pat refuses.
func (r *run) undeclaredCandidates(s view, pat string) []any {
	re := schemaview.Regexp(pat)
	var names []string
	if l, ok := prefixPattern(pat); ok {
		names = append(names, l, l+"z")
	}
	if lang, ok := patternLanguage(pat, 8); ok {
		names = append(names, lang...)
	}
	declared := r.srcNames(s)
	for _, name := range names {
		if re == nil || !re.MatchString(name) || slices.Contains(declared, name) {
			continue
		}
		var out []any
		for _, v := range []any{nil, true, json.Number("0"), json.Number("0.5"), "", []any{}, map[string]any{}} {
			out = append(out, map[string]any{name: v})
		}
		return out
	}
	return nil
}

// extraNamesCovered: the source's propertyNames allow finitely many names,
// and each is declared by the source (checked on its own) or evaluated by
// the target, so no undeclared name reaches the target's additional schema.
func (r *run) extraNamesCovered(s view, evaluators []node) bool {
	if r.noUndeclaredNames(s) {
		return true
	}
	for _, n := range s.conj {
		pn, ok := n.child("propertyNames")
		if !ok {
			continue
		}
		names, finite := nameSet(pn)
		if !finite {
			continue
		}
		declared := r.srcNames(s)
		for _, name := range names {
			if covered, known := r.coveredByTarget(evaluators, name); !slices.Contains(declared, name) && (!covered || !known) {
				return false
			}
		}
		return true
	}
	return false
}

// nameSet is a superset of the names a propertyNames schema allows, when
// it is finite: const, enum, an anchored pattern of finite language, false.
func nameSet(pn node) ([]string, bool) {
	if pn.m == nil {
		b, _ := pn.v.(bool)
		return nil, !b
	}
	if c, ok := pn.m["const"]; ok {
		if cs, isStr := c.(string); isStr {
			return []string{cs}, true
		}
		return nil, true // names are strings: no name is allowed
	}
	if e, ok := pn.m["enum"].([]any); ok {
		var out []string
		for _, v := range e {
			if str, isStr := v.(string); isStr {
				out = append(out, str)
			}
		}
		return out, true // names are strings: other members allow none
	}
	if pat, ok := pn.m["pattern"].(string); ok {
		return patternLanguage(pat, -1)
	}
	return nil, false
}

// noUndeclaredNames: the source object never has a name outside its
// properties and patterns: a pattern of its matches every name, or its
// declared required names already reach maxProperties.
func (r *run) noUndeclaredNames(s view) bool {
	if slices.ContainsFunc(r.srcPatterns(s), func(sp srcPattern) bool { return matchesEveryString(sp.pattern) }) {
		return true
	}
	hi, _ := intKeyword(s, "maxProperties", false)
	if hi == nil {
		return false
	}
	declared := r.srcNames(s)
	req := r.srcRequired(s)
	for name := range req {
		if !slices.Contains(declared, name) {
			return false
		}
	}
	return big.NewInt(int64(len(req))).Cmp(hi) >= 0
}

// patternsFitNames: every name matching one of the source's patterns fits
// a target propertyNames that is a pattern alone (automaton inclusion).
func (r *run) patternsFitNames(pats []srcPattern, tn node) bool {
	if len(pats) == 0 {
		return true
	}
	want, ok := tn.m["pattern"].(string)
	if !ok || !r.onlyKeywordsIn(tn, map[string]bool{"pattern": true}, r.tgtD7) {
		return false
	}
	if ty, typed := tn.m["type"]; typed && ty != "string" {
		return false
	}
	for _, sp := range pats {
		r.budget -= maxInclusionStates / 100
		if in, _, decided := patternIncluded(sp.pattern, want); !in || !decided {
			return false
		}
	}
	return true
}
