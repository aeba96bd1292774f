package composition

import (
	"encoding/json"
	"fmt"
	"maps"
	"strings"

	"github.com/typeward/typeward/internal/compat"
	"github.com/typeward/typeward/internal/schema"
	"github.com/typeward/typeward/internal/verdict"
)

// samples are the values tried at an undeclared field: one of each JSON
// type, so any typed target refuses one of them.
var samples = []any{nil, true, json.Number("0"), json.Number("0.5"), "", []any{}, map[string]any{}}

// proveUndeclared gives an undeclared_property path finding (an open
// union branch may carry the field, with any value) its witness: a value
// the target field refuses, the field's value in an output the real
// validator accepts under the output schema (an output whose container is
// there, with the field set to it). Without one, or when the path projects
// an array (the mapped value is then no single field's), it is Unknown.
func (run *validation) proveUndeclared(is *verdict.Issue, out *schema.Schema, p Path, each bool, in *schema.Schema, ptrs []string) {
	key := proofKey{out.Digest + " " + in.Digest + " " + strings.Join(ptrs, " "), p.String(), is.Code, 0}
	if each {
		key.from = 1
	}
	proof, seen := run.synth.proofs.Get(key)
	if !seen {
		if w, ok := run.undeclaredWitness(out, p, each, in, ptrs); ok {
			proof = pathProof{w.Witness, w.WitnessError}
		}
		run.synth.proofs.Put(key, proof)
	}
	if proof.witness != nil {
		is.Verdict, is.Witness, is.WitnessError = verdict.Incompatible, proof.witness, proof.err
		return
	}
	is.Message = fmt.Sprintf("cannot confirm that %s (%s): no output the schema accepts was found carrying there a value the target refuses", is.Message, is.Code)
	is.Verdict, is.Code = verdict.Unknown, verdict.CodeCannotProve
}

func (run *validation) undeclaredWitness(out *schema.Schema, p Path, each bool, in *schema.Schema, ptrs []string) (verdict.Issue, bool) {
	projections := 0
	for _, st := range p.Steps {
		if st.Items {
			projections++
		}
	}
	n := len(p.Steps)
	if each {
		projections--
	}
	if n == 0 || p.Steps[n-1].Items || projections > 0 {
		return verdict.Issue{}, false
	}
	parent := Path{Steps: p.Steps[:n-1]}
	base, ok := run.outputWithPath(out, parent)
	if !ok {
		return verdict.Issue{}, false
	}
	name := p.Steps[n-1].Name
	for _, v := range samples {
		cand, ok := replaceAt(base, parent.Steps, func(c any) (any, bool) {
			obj, isObj := c.(map[string]any)
			if !isObj {
				return nil, false
			}
			cp := maps.Clone(obj)
			cp[name] = v
			return cp, true
		})
		if !ok || out.Validate(cand) != nil {
			continue
		}
		lit, err := schema.FromValue(map[string]any{"const": v})
		if err != nil {
			continue
		}
		for _, ptr := range ptrs {
			if w, ok := run.refuted(compat.Node{Schema: lit}, compat.Node{Schema: in, Pointer: ptr}); ok {
				return w, true
			}
		}
	}
	return verdict.Issue{}, false
}
