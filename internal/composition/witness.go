package composition

import (
	"fmt"

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

// provePath gives a path finding its witness, checked by the real
// validator against the output schema; without one the finding is Unknown
// (cannot_prove), like any claim no witness confirms.
func (run *validation) provePath(is *verdict.Issue, out *schema.Schema, p Path, from int) {
	doc, err := run.synth.requirement(pathRequirement(p, is.Code, from))
	if err == nil {
		r := run.checker.Check(compat.Node{Schema: out}, compat.Node{Schema: doc}, compat.Options{})
		for _, w := range r.Issues {
			if w.Verdict == verdict.Incompatible && w.WitnessError != nil {
				is.Verdict, is.Witness, is.WitnessError = verdict.Incompatible, w.Witness, w.WitnessError
				return
			}
		}
	}
	is.Message = fmt.Sprintf("cannot confirm that %s (%s): no output value the schema accepts was found without it", is.Message, is.Code)
	is.Verdict, is.Code = verdict.Unknown, verdict.CodeCannotProve
}
