package composition

import (
	"fmt"
	"maps"
	"slices"

	"github.com/typeward/typeward/internal/compat"
	"github.com/typeward/typeward/internal/schemaview"
	"github.com/typeward/typeward/internal/verdict"
)

// fieldProblem is why a mapped field cannot be type-checked: it is not in
// the schema, or the schema reaches it through a shape the path resolver
// does not follow.
type fieldProblem struct {
	code    string
	pointer string
	msg     string
	open    bool // the field is undeclared in an object that does not forbid it: it may be there, with any value
}

// hazard is a way the source value may not be there: a parent that is not
// required, may be null, or may not be an object (or an array); or may be
// there undescribed, in an open union branch that does not declare it.
type hazard struct {
	code    string // may_be_missing, may_be_null or undeclared_property
	pointer string
	reason  string
	// inElement: the hazard lies inside the elements of a projected array,
	// so it leaves a hole in the array rather than making the field absent;
	// that matters even when the target field is optional.
	inElement bool
}

// maxAlternatives bounds how many union branches one source path may be
// split into; nested unions multiply.
const maxAlternatives = 64

// sourceField is what a source path reaches: the subschemas the value
// satisfies, or — past a union — one sourceField per branch that has the
// field, with the array projections wrapped around it.
type sourceField struct {
	leaf        []string      // conjunction at the end of the path; empty: unconstrained
	alts        []sourceField // set when the path crossed a union: the value is one of these
	projections []items       // one per [] that builds an array, outermost first
	// wholeArray: the path ends with a projecting [], so the value is the
	// array itself, every keyword of it included (not just its items).
	wholeArray bool
	arrayPtr   string // the outermost projected array
	missing    *hazard
	null       *hazard
	undeclared *hazard // some union branch is open and does not declare the field
}

// resolveSource follows a source path through the output schema. With each,
// the path's first [] is iterated rather than projected, so whatever makes
// that array absent only means no run, and is forgotten. A union on the way
// is split: each branch is followed on its own.
func resolveSource(v schemaView, p Path, each bool) (sourceField, *fieldProblem) {
	r := sourceResolver{v: v, path: p, budget: maxAlternatives}
	return r.from(0, []string{""}, each, nil)
}

type sourceResolver struct {
	v      schemaView
	path   Path
	budget int // union branches left to follow
}

// from resolves the steps from start on, the value described by cur.
// split holds the unions already divided into branches on the way here.
func (r *sourceResolver) from(start int, cur []string, iterating bool, split map[string]bool) (sourceField, *fieldProblem) {
	v, steps := r.v, r.path.Steps
	var f sourceField
	for i := start; i < len(steps); i++ {
		st := steps[i]
		here := Path{Steps: steps[:i]}.String()
		x := v.expand(cur)
		union := firstUnsplit(x, split)
		types := v.typesOf(cur)
		pointer := first(cur)
		if types&compat.KindNull != 0 {
			f.noteNull(pointer, fmt.Sprintf("%s may be null", here))
		}
		if st.Items {
			it := v.items(x)
			if len(it.ptrs) == 0 && it.tuple == "" && union != "" {
				return r.split(f, i, cur, iterating, split, union)
			}
			if types&^(compat.KindNull|compat.KindArray) != 0 {
				f.noteMissing(pointer, fmt.Sprintf("%s may not be an array", here))
			}
			if it.tuple != "" {
				return f, &fieldProblem{code: verdict.CodeCannotProve, pointer: it.tuple, msg: fmt.Sprintf("%s is a tuple: its elements differ by position, so %s[] has no one schema", here, here)}
			}
			if iterating {
				iterating = false
				f.missing, f.null = nil, nil
			} else {
				if f.arrayPtr == "" {
					f.arrayPtr = pointer
				}
				if it.lost == "" && union != "" {
					it.lost = union // the union's branches are not split: its items are
				}
				f.projections = append(f.projections, it)
				f.wholeArray = i == len(steps)-1
			}
			cur = it.ptrs
			continue
		}
		prop := v.property(x, st.Name)
		field := Path{Steps: steps[:i+1]}.String()
		if !prop.declared && prop.forbidden == "" && union != "" {
			return r.split(f, i, cur, iterating, split, union)
		}
		if types&^(compat.KindNull|compat.KindObject) != 0 {
			f.noteMissing(pointer, fmt.Sprintf("%s may not be an object", here))
		}
		if prop.forbidden != "" {
			return f, &fieldProblem{code: verdict.CodeUnknownSourceField, pointer: prop.forbidden, msg: fmt.Sprintf("output has no field %s: %s forbids it", field, prop.forbidden)}
		}
		if !prop.declared {
			return f, &fieldProblem{code: verdict.CodeUnknownSourceField, pointer: pointer, msg: fmt.Sprintf("output has no field %s", field), open: types&compat.KindObject != 0}
		}
		if !prop.required {
			f.noteMissing(first(prop.ptrs), fmt.Sprintf("%s is not required", field))
		}
		cur = prop.ptrs
	}
	f.leaf = cur
	return f, nil
}

// split follows step i into every non-null branch of a union. Branches
// without the field make it may-be-missing, and an open one (which may still
// carry it, with any value) undeclared; when none has it, it is unknown.
func (r *sourceResolver) split(f sourceField, i int, cur []string, iterating bool, split map[string]bool, union string) (sourceField, *fieldProblem) {
	here := Path{Steps: r.path.Steps[:i]}.String()
	field := Path{Steps: r.path.Steps[:i+1]}.String()
	inner := make(map[string]bool, len(split)+1)
	for u := range split {
		inner[u] = true
	}
	inner[union] = true
	if iterating {
		// The iterated [] lies past the union: nothing before it matters.
		f.missing, f.null = nil, nil
	}
	lacking, open := 0, ""
	for _, branch := range r.v.nonNullBranches(union) {
		if r.budget--; r.budget < 0 {
			return f, &fieldProblem{code: verdict.CodeCannotProve, pointer: union, msg: fmt.Sprintf("%s crosses more than %d union branches", field, maxAlternatives)}
		}
		alt, prob := r.from(i, append(slices.Clip(cur), branch), iterating, inner)
		if prob != nil && prob.code == verdict.CodeUnknownSourceField {
			lacking++
			if prob.open && open == "" {
				open = branch
			}
			continue
		}
		if prob != nil {
			return f, prob
		}
		for _, h := range []*hazard{alt.missing, alt.null, alt.undeclared} {
			if h != nil {
				f.note(&hazard{h.code, h.pointer, h.reason, h.inElement || len(f.projections) > 0})
			}
		}
		f.alts = append(f.alts, alt)
	}
	if len(f.alts) == 0 {
		return f, &fieldProblem{code: verdict.CodeUnknownSourceField, pointer: union, msg: fmt.Sprintf("output has no field %s: no shape of %s has it", field, here), open: open != ""}
	}
	if open != "" {
		// An open shape may carry the field undeclared, with any value:
		// producers rarely do, so this warns rather than refuses.
		f.note(&hazard{verdict.CodeUndeclaredProperty, open, fmt.Sprintf("a shape of %s does not declare %s but allows it", here, field), len(f.projections) > 0})
	}
	if lacking > 0 {
		f.noteMissing(union, fmt.Sprintf("only some shapes of %s have %s", here, field))
	}
	return f, nil
}

func firstUnsplit(x expansion, split map[string]bool) string {
	for _, u := range x.unions {
		if !split[u] {
			return u
		}
	}
	return ""
}

func (f *sourceField) noteMissing(pointer, reason string) {
	f.note(&hazard{verdict.CodeMayBeMissing, pointer, reason, len(f.projections) > 0})
}

func (f *sourceField) noteNull(pointer, reason string) {
	f.note(&hazard{verdict.CodeMayBeNull, pointer, reason, len(f.projections) > 0})
}

// note keeps the first hazard of each kind, except that one inside the
// projected elements replaces one outside: it is the one an optional
// target field still cares about.
func (f *sourceField) note(h *hazard) {
	slot := &f.missing
	switch h.code {
	case verdict.CodeMayBeNull:
		slot = &f.null
	case verdict.CodeUndeclaredProperty:
		slot = &f.undeclared
	}
	if *slot == nil || (h.inElement && !(*slot).inElement) {
		*slot = h
	}
}

// targetField is the input field a target path writes.
type targetField struct {
	ptrs     []string // every subschema the written value must satisfy
	required bool     // required in its parent object
}

// resolveTarget follows a target path through the input schema. Every
// constraint on the field matters here, so shapes the resolver does not
// follow are reported rather than skipped.
func resolveTarget(v schemaView, p Path) (targetField, *fieldProblem) {
	var f targetField
	cur := []string{""}
	for i, st := range p.Steps {
		x := v.expand(cur)
		here := Path{Steps: p.Steps[:i]}.String()
		if prob := v.unfollowedConstraint(x, here); prob != nil {
			return f, prob
		}
		prop := v.property(x, st.Name)
		field := Path{Steps: p.Steps[:i+1]}.String()
		if prop.forbidden != "" {
			return f, &fieldProblem{code: verdict.CodeUnknownTargetField, pointer: prop.forbidden, msg: fmt.Sprintf("input has no field %s: %s forbids it", field, prop.forbidden)}
		}
		if prop.unsure != "" {
			return f, &fieldProblem{code: verdict.CodeCannotProve, pointer: prop.unsure, msg: fmt.Sprintf("input %s uses unevaluatedProperties beside subschemas the path resolver does not follow", here)}
		}
		if !prop.declared {
			return f, &fieldProblem{code: verdict.CodeUnknownTargetField, pointer: first(cur), msg: fmt.Sprintf("input has no field %s", field)}
		}
		f.required = prop.required
		cur = prop.ptrs
	}
	f.ptrs = cur
	return f, nil
}

// unfollowedConstraint finds a keyword that may constrain a property
// without the resolver seeing it: a union whose branches may constrain
// fields, not, if/then/else, dependentSchemas (or draft-07's dependencies),
// a $dynamicRef that is not static.
func (v schemaView) unfollowedConstraint(x expansion, here string) *fieldProblem {
	for _, u := range x.unions {
		branches, _ := v.at(u).([]any)
		for i := range branches {
			if v.mayConstrainFields(v.expand([]string{fmt.Sprintf("%s/%d", u, i)})) {
				return &fieldProblem{code: verdict.CodeCannotProve, pointer: u, msg: fmt.Sprintf("input %s is a union whose branches constrain its fields differently", here)}
			}
		}
	}
	for _, atom := range x.atoms {
		if kw := v.unfollowedKeyword(atom); kw != "" {
			return &fieldProblem{code: verdict.CodeCannotProve, pointer: atom + "/" + kw, msg: fmt.Sprintf("input %s uses %s, which the path resolver does not follow", here, kw)}
		}
	}
	return nil
}

// mayConstrainFields tells whether a union branch may say anything about
// the object's fields: directly, through a keyword the resolver does not
// follow, or through a union of its own.
func (v schemaView) mayConstrainFields(x expansion) bool {
	if len(x.unions) > 0 {
		return true
	}
	for _, atom := range x.atoms {
		obj := v.object(atom)
		for _, kw := range []string{"properties", "patternProperties", "additionalProperties", "unevaluatedProperties"} {
			if _, ok := obj[kw]; ok {
				return true
			}
		}
		if v.unfollowedKeyword(atom) != "" {
			return true
		}
	}
	return false
}

// unfollowedKeyword names the first keyword of the object at atom that may
// constrain a property in a way the path resolver does not follow, or "":
// a dynamic reference counts only where its target depends on the path
// that reached it (expand follows the static ones).
func (v schemaView) unfollowedKeyword(atom string) string {
	obj := v.object(atom)
	for _, kw := range []string{"not", "if", "dependentSchemas", "dependencies"} {
		if _, ok := obj[kw]; ok && (kw != "dependencies" || hasDependentSchema(obj[kw])) {
			return kw
		}
	}
	if scoped := v.sv.InPlace(v.sub(atom), schemaview.FollowDynamicRef).Scoped; len(scoped) > 0 {
		return scoped[0]
	}
	return ""
}

// hasDependentSchema tells whether draft-07 dependencies holds a schema (a
// constraint on the other fields) rather than only lists of names.
func hasDependentSchema(deps any) bool {
	m, _ := deps.(map[string]any)
	for _, d := range m {
		if _, isList := d.([]any); !isList {
			return true
		}
	}
	return false
}

// requiredInputs is the sorted list of top-level properties an input
// schema requires (dependentRequired's closure included).
func requiredInputs(v schemaView) []string {
	var subs []schemaview.Sub
	for _, atom := range v.expand([]string{""}).atoms {
		subs = append(subs, v.sub(atom))
	}
	return slices.Sorted(maps.Keys(v.sv.Guaranteed(subs)))
}

func first(ptrs []string) string {
	if len(ptrs) == 0 {
		return ""
	}
	return ptrs[0]
}
