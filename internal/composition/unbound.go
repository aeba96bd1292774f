package composition

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/typeward/typeward/internal/compat"
	"github.com/typeward/typeward/internal/grading"
	"github.com/typeward/typeward/internal/schema"
	"github.com/typeward/typeward/internal/verdict"
)

// checkUnbound reports the required inputs of node n that no edge feeds
// (a WARNING: the node may be fed by the caller), and those only optional
// edges feed: a proven may_be_missing, graded by policy, once its witness
// is found.
func (run *validation) checkUnbound(n int, fed map[string]bool) {
	tool := run.resolved[n]
	var optionalOnly []string // the fields absent when no optional edge runs
	for name, always := range fed {
		if !always {
			optionalOnly = append(optionalOnly, name)
		}
	}
	slices.Sort(optionalOnly)
	for _, name := range run.Validator.requiredInputs(tool.Input) {
		always, isFed := fed[name]
		if always {
			continue
		}
		if !isFed {
			is := warningIssue(verdict.CodeUnboundRequiredInput, fmt.Sprintf("node %s: %s requires input %s, and no edge feeds it", run.graph.nodes[n].ID, tool.QualifiedName(), name))
			is.TargetTool, is.FieldPath = tool.QualifiedName(), "->"+name
			run.issues = append(run.issues, is)
			continue
		}
		is := verdict.Issue{Code: verdict.CodeMayBeMissing, TargetTool: tool.QualifiedName(), FieldPath: "->" + name,
			Message: fmt.Sprintf("node %s: %s requires input %s, and only optional edges feed it", run.graph.nodes[n].ID, tool.QualifiedName(), name)}
		run.proveUnbound(&is, tool.Input, name, optionalOnly)
		run.graded(is, grading.Place{Optional: true})
	}
}

// proveUnbound gives an input only optional edges feed its witness, like
// any incompatibility: the input the tool receives when those edges do not
// run, an instance of its input schema without the fields they alone feed
// (or, failing that, without name only), which the real validator rejects
// for want of a required property. Without one the finding is Unknown
// (cannot_prove).
func (run *validation) proveUnbound(is *verdict.Issue, in *schema.Schema, name string, optionalOnly []string) {
	key := proofKey{in.Digest, name, "unbound\x00" + strings.Join(optionalOnly, "\x00"), 0}
	proof, seen := run.synth.proofs.Get(key)
	if !seen {
		if w, ok := run.inputWithout(in, name, optionalOnly); ok {
			proof = pathProof{w.Witness, w.WitnessError}
		}
		run.synth.proofs.Put(key, proof)
	}
	if proof.witness != nil {
		is.Verdict, is.Witness, is.WitnessError = verdict.Incompatible, proof.witness, proof.err
		return
	}
	is.Message = fmt.Sprintf("cannot confirm that %s (%s): no input the schema accepts was found that lacks only the fields those edges feed", is.Message, is.Code)
	is.Verdict, is.Code = verdict.Unknown, verdict.CodeCannotProve
}

// inputWithout is the checker's confirmed counterexample to "an input of in
// without the optional fields is accepted", rejected by required.
func (run *validation) inputWithout(in *schema.Schema, name string, optionalOnly []string) (verdict.Issue, bool) {
	none, err := run.synth.requirement(false)
	if err != nil {
		return verdict.Issue{}, false
	}
	inst, ok := run.refuted(compat.Node{Schema: in}, compat.Node{Schema: none})
	if !ok {
		return verdict.Issue{}, false
	}
	v, _ := decodeValue(inst.Witness)
	base, ok := v.(map[string]any)
	if !ok {
		return verdict.Issue{}, false
	}
	for _, drop := range [][]string{optionalOnly, {name}} {
		cand := maps.Clone(base)
		for _, f := range drop {
			delete(cand, f)
		}
		lit, err := schema.FromValue(map[string]any{"const": cand})
		if err != nil {
			continue
		}
		w, ok := run.refuted(compat.Node{Schema: lit}, compat.Node{Schema: in})
		if ok && strings.HasSuffix(w.WitnessError.KeywordLocation, "/required") {
			return w, true
		}
	}
	return verdict.Issue{}, false
}
