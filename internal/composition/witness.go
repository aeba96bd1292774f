package composition

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"slices"

	"github.com/typeward/typeward/internal/compat"
	"github.com/typeward/typeward/internal/schema"
	"github.com/typeward/typeward/internal/verdict"
)

// A path finding (may_be_missing, may_be_null) is proven like any other
// incompatibility: by a whole source output value the real validator
// accepts under the output schema and that leaves the mapping nothing to
// read. The checker finds it, comparing the output schema with the path's
// requirement: a schema that holds exactly when the path can be read.

// pathRequirement is the schema a source output satisfies when the mapping
// can read p: for may_be_missing, every container on the path from step
// from on is an object that has the next property (or an array, for []),
// or null (which may_be_null is about); for may_be_null, none of them is
// null. Containers before from may be anything: whatever makes them absent
// only means no run (the iterated [] of a per-item edge) or an unset
// optional target (outside the projected elements).
func pathRequirement(p Path, code string, from int) any {
	var req any = true // the field's own value is the checker's business
	for i := len(p.Steps) - 1; i >= 0; i-- {
		st := p.Steps[i]
		m := map[string]any{}
		if st.Items {
			m["items"] = req
		} else {
			m["properties"] = map[string]any{st.Name: req}
		}
		if i >= from {
			switch {
			case code == verdict.CodeMayBeNull:
				m["type"] = []any{"object", "array", "string", "number", "boolean"} // not null, in the validator's words
			case st.Items:
				m["type"] = []any{"array", "null"}
			default:
				m["type"] = []any{"object", "null"}
				m["required"] = []any{st.Name}
			}
		}
		req = m
	}
	return req
}

// strictFrom is the first step whose container must be there for the
// mapping to have a value: past the iterated [] of a per-item edge, and,
// when the target field is optional, past the first projected [] (a hole
// in the array is what matters there).
func strictFrom(p Path, each, targetRequired bool) int {
	skip := 0
	if each {
		skip++
	}
	if !targetRequired {
		skip++
	}
	for i, st := range p.Steps {
		if skip == 0 {
			return i
		}
		if st.Items {
			skip--
		}
	}
	if skip == 0 {
		return len(p.Steps)
	}
	return len(p.Steps) + 1 // no such [] : nothing on the path is required
}

// requirement loads a path requirement, shared through the synthesized
// schemas' cache.
func (s *synthesizer) requirement(req any) (*schema.Schema, error) {
	canon, err := schema.Canonical(req)
	if err != nil {
		return nil, err
	}
	key := synthKey{"path-requirement", string(canon)}
	if doc, ok := s.cache.Get(key); ok {
		return doc, nil
	}
	doc, err := schema.FromValue(req)
	if err != nil {
		return nil, err
	}
	s.cache.Put(key, doc)
	return doc, nil
}

// proofKey names a path finding's proof; pathProof is the proof, or
// nothing (no witness) when witness is nil. Shared, never modified.
type (
	proofKey struct {
		digest, path, code string
		from               int
	}
	pathProof struct {
		witness json.RawMessage
		err     *verdict.WitnessError
	}
)

// provePath gives a path finding its witness, checked by the real
// validator against the output schema; without one the finding is Unknown
// (cannot_prove), like any claim no witness confirms.
func (run *validation) provePath(is *verdict.Issue, out *schema.Schema, p Path, from int) {
	key := proofKey{out.Digest, p.String(), is.Code, from}
	proof, seen := run.synth.proofs.Get(key)
	if !seen {
		if req, err := run.synth.requirement(pathRequirement(p, is.Code, from)); err == nil {
			if w, ok := run.pathWitness(out, req, p, is.Code, from); ok {
				proof = pathProof{w.Witness, w.WitnessError}
			}
		}
		run.synth.proofs.Put(key, proof)
	}
	if proof.witness != nil {
		is.Verdict, is.Witness, is.WitnessError = verdict.Incompatible, proof.witness, proof.err
		return
	}
	is.Message = fmt.Sprintf("cannot confirm that %s (%s): no output value the schema accepts was found without it", is.Message, is.Code)
	is.Verdict, is.Code = verdict.Unknown, verdict.CodeCannotProve
}

// pathWitness finds the proof of a path finding: first the checker's own
// (its candidates, grafted into an instance of the output, or its search);
// where that falls short (a candidate stands alone, without the siblings
// its container requires, and the instance lacks the container), an
// output in which the path has a value, changed at the path.
func (run *validation) pathWitness(out, req *schema.Schema, p Path, code string, from int) (verdict.Issue, bool) {
	if w, ok := run.refuted(compat.Node{Schema: out}, compat.Node{Schema: req}); ok {
		return w, true
	}
	base, ok := run.outputWithPath(out, p)
	if !ok {
		return verdict.Issue{}, false
	}
	for _, cand := range mutations(base, p, code, from) {
		if out.Validate(cand) != nil {
			continue
		}
		lit, err := schema.FromValue(map[string]any{"const": cand})
		if err != nil {
			continue
		}
		if w, ok := run.refuted(compat.Node{Schema: lit}, compat.Node{Schema: req}); ok {
			return w, true
		}
	}
	return verdict.Issue{}, false
}

// refuted is the checker's confirmed counterexample to src ⊆ tgt.
func (run *validation) refuted(src, tgt compat.Node) (verdict.Issue, bool) {
	for _, w := range run.checker.Check(src, tgt, compat.Options{}).Issues {
		if w.Verdict == verdict.Incompatible && w.WitnessError != nil {
			return w, true
		}
	}
	return verdict.Issue{}, false
}

// outputWithPath is an output value in which the path has a value (the
// checker's witness against "the path has none": false at its end), so
// each container on the path is there, arrays with an element.
func (run *validation) outputWithPath(out *schema.Schema, p Path) (any, bool) {
	var req any = false
	for i := len(p.Steps) - 1; i >= 0; i-- {
		if st := p.Steps[i]; st.Items {
			req = map[string]any{"items": req}
		} else {
			req = map[string]any{"properties": map[string]any{st.Name: req}}
		}
	}
	doc, err := run.synth.requirement(req)
	if err != nil {
		return nil, false
	}
	w, ok := run.refuted(compat.Node{Schema: out}, compat.Node{Schema: doc})
	if !ok {
		return nil, false
	}
	return decodeValue(w.Witness)
}

// decodeValue reads a witness back as a value, numbers exact.
func decodeValue(b json.RawMessage) (any, bool) {
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	var v any
	if d.Decode(&v) != nil {
		return nil, false
	}
	return v, true
}

// mutations are the values that leave the mapping nothing to read, made
// from base at each container the finding may concern: null there
// (may_be_null), or the next property deleted, or no object at all
// (may_be_missing).
func mutations(base any, p Path, code string, from int) []any {
	var out []any
	for i := max(from, 0); i < len(p.Steps); i++ {
		at := p.Steps[:i]
		if code == verdict.CodeMayBeNull {
			if v, ok := replaceAt(base, at, func(any) (any, bool) { return nil, true }); ok {
				out = append(out, v)
			}
			continue
		}
		if st := p.Steps[i]; !st.Items {
			if v, ok := replaceAt(base, at, func(c any) (any, bool) {
				obj, isObj := c.(map[string]any)
				if !isObj {
					return nil, false
				}
				cp := maps.Clone(obj)
				delete(cp, st.Name)
				return cp, true
			}); ok {
				out = append(out, v)
			}
		}
		if v, ok := replaceAt(base, at, func(any) (any, bool) { return "", true }); ok {
			out = append(out, v)
		}
	}
	return out
}

// replaceAt copies v with f applied to the value at steps (through the
// first element of each array that has one there); ok is false when v has
// no value there.
func replaceAt(v any, steps []Step, f func(any) (any, bool)) (any, bool) {
	if len(steps) == 0 {
		return f(v)
	}
	st := steps[0]
	if st.Items {
		arr, ok := v.([]any)
		if !ok {
			return nil, false
		}
		for i, e := range arr {
			if ne, ok := replaceAt(e, steps[1:], f); ok {
				cp := slices.Clone(arr)
				cp[i] = ne
				return cp, true
			}
		}
		return nil, false
	}
	obj, ok := v.(map[string]any)
	if !ok {
		return nil, false
	}
	c, has := obj[st.Name]
	if !has {
		return nil, false
	}
	nc, ok := replaceAt(c, steps[1:], f)
	if !ok {
		return nil, false
	}
	cp := maps.Clone(obj)
	cp[st.Name] = nc
	return cp, true
}
