package registry

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"

	"github.com/typeward/typeward/internal/compat"
	"github.com/typeward/typeward/internal/grading"
	"github.com/typeward/typeward/internal/schema"
	"github.com/typeward/typeward/internal/verdict"
)

// Drift finding codes, besides the declaration problem codes.
const (
	CodeAdded              = "added"
	CodeRemoved            = "removed"
	CodeTitleChanged       = "title_changed"
	CodeDescriptionChanged = "description_changed"
	CodeAnnotationsChanged = "annotations_changed"
	CodeSchemaChanged      = "schema_changed"
	CodeOrderChanged       = "order_changed"
)

// Verdict is what the compat checker proved about a schema change.
type Verdict string

const (
	// VerdictCompatible: every old input is still accepted (input), or
	// every new output is an old output (output).
	VerdictCompatible Verdict = "compatible"
	// VerdictBreaking: the checker found a counterexample.
	VerdictBreaking Verdict = "breaking"
	// VerdictUnproven: the checker could neither prove nor disprove it.
	VerdictUnproven Verdict = "unproven"
)

// Finding is one difference between an approved tools/list and a current
// one, or one declaration problem of the current list.
type Finding struct {
	Tool   string        `json:"tool,omitempty"` // "" for order_changed
	Code   string        `json:"code"`
	Detail string        `json:"detail"`
	Schema *SchemaChange `json:"schema,omitempty"` // schema_changed only
}

func (f Finding) String() string {
	tool := strconv.Quote(f.Tool) // a listed name may hold spaces, or be empty
	switch {
	case f.Code == CodeOrderChanged:
		tool = "tools/list"
	case ValidToolName(f.Tool):
		tool = f.Tool
	}
	return fmt.Sprintf("%s %s: %s", tool, f.Code, f.Detail)
}

// SchemaChange is one changed schema of a tool and its compat verdict.
type SchemaChange struct {
	Side      string          `json:"side"` // "input" or "output"
	OldDigest string          `json:"old_digest,omitempty"`
	NewDigest string          `json:"new_digest,omitempty"`
	Verdict   Verdict         `json:"verdict"`
	Issues    []verdict.Issue `json:"issues,omitempty"`
}

// Drift compares a server's current tools/list with its approved one. It
// reports every declaration problem of the current list, every added,
// removed or changed tool, and whether the tools both lists share come in
// another order. Schemas compare by canonical digest, so reordered keys and
// whitespace are not drift. Findings follow the current list, then removed
// tools in approved order, then order_changed.
func Drift(approved, current []Tool) []Finding {
	d := drifter{checker: compat.NewChecker()}
	old := map[string]Tool{}
	var oldOrder []string
	for _, t := range approved {
		if _, dup := old[t.Name]; !dup {
			old[t.Name] = t
			oldOrder = append(oldOrder, t.Name)
		}
	}
	seen := map[string]bool{}
	var newOrder []string
	for _, t := range current {
		inputBroken := false
		for _, p := range CheckDeclaration(t) {
			d.add(Finding{Tool: t.Name, Code: p.Code, Detail: problemDetail(p)})
			inputBroken = inputBroken || isInputProblem(p.Code)
		}
		if seen[t.Name] {
			d.add(Finding{Tool: t.Name, Code: CodeDuplicateName, Detail: "listed more than once; MCP tool names are unique per server"})
			continue
		}
		seen[t.Name] = true
		prev, ok := old[t.Name]
		if !ok {
			d.add(Finding{Tool: t.Name, Code: CodeAdded, Detail: "not in the approved snapshot"})
			continue
		}
		newOrder = append(newOrder, t.Name)
		d.compare(prev, t, inputBroken)
	}
	var common []string
	for _, name := range oldOrder {
		if !seen[name] {
			d.add(Finding{Tool: name, Code: CodeRemoved, Detail: "approved, no longer listed"})
			continue
		}
		common = append(common, name)
	}
	if f, moved := orderFinding(common, newOrder); moved {
		d.add(f)
	}
	return d.findings
}

type drifter struct {
	checker  *compat.Checker
	findings []Finding
}

func (d *drifter) add(f Finding) { d.findings = append(d.findings, f) }

// compare reports what changed in one tool. An input schema with a
// declaration problem was reported as such; it is not also a schema change.
func (d *drifter) compare(prev, cur Tool, inputBroken bool) {
	if prev.Title != cur.Title {
		d.add(Finding{Tool: cur.Name, Code: CodeTitleChanged, Detail: textChange(prev.Title, cur.Title)})
	}
	if prev.Description != cur.Description {
		d.add(Finding{Tool: cur.Name, Code: CodeDescriptionChanged, Detail: textChange(prev.Description, cur.Description)})
	}
	if !sameJSON(prev.Annotations, cur.Annotations) {
		d.add(Finding{Tool: cur.Name, Code: CodeAnnotationsChanged, Detail: fmt.Sprintf("%s -> %s", compactJSON(prev.Annotations), compactJSON(cur.Annotations))})
	}
	if !inputBroken {
		if f, ok := d.schemaChange(cur.Name, "input", prev.InputSchema, cur.InputSchema); ok {
			d.add(f)
		}
	}
	if f, ok := d.schemaChange(cur.Name, "output", prev.OutputSchema, cur.OutputSchema); ok {
		d.add(f)
	}
}

// schemaChange compares one side of a tool.
func (d *drifter) schemaChange(tool, side string, oldRaw, newRaw json.RawMessage) (Finding, bool) {
	oldAbsent, newAbsent := absent(oldRaw), absent(newRaw)
	if oldAbsent && newAbsent {
		return Finding{}, false
	}
	change := &SchemaChange{Side: side, OldDigest: jsonDigest(oldRaw), NewDigest: jsonDigest(newRaw)}
	if change.OldDigest == change.NewDigest {
		return Finding{}, false
	}
	f := Finding{Tool: tool, Code: CodeSchemaChanged, Schema: change}
	switch {
	case oldAbsent && side == "input": // an approved list with a problem
		change.Verdict = VerdictUnproven
		f.Detail = "input schema added: the approved snapshot had none"
		return f, true
	case oldAbsent:
		change.Verdict = VerdictCompatible
		f.Detail = "output schema added: output was untyped, any typed output is compatible"
		return f, true
	case newAbsent: // only an output: a missing input was reported as a problem
		change.Verdict = VerdictBreaking
		f.Detail = "output schema removed: consumers of its fields now get untyped output"
		return f, true
	}
	oldS, oldErr := schema.Parse(oldRaw)
	newS, newErr := schema.Parse(newRaw)
	if oldErr != nil || newErr != nil {
		change.Verdict = VerdictUnproven
		f.Detail = fmt.Sprintf("%s schema changed; not compared: %v", side, firstErr(oldErr, newErr))
		return f, true
	}
	// The two questions: every old input must still be accepted; every new
	// output must still be an old output.
	var proven, broken string
	var res compat.Result
	if side == "input" {
		res = d.checker.Check(compat.Node{Schema: oldS}, compat.Node{Schema: newS}, compat.Options{SourceLabel: "old input", TargetLabel: "new input"})
		proven, broken = "the new input accepts every old input", "the new input rejects some old inputs"
	} else {
		res = d.checker.Check(compat.Node{Schema: newS}, compat.Node{Schema: oldS}, compat.Options{SourceLabel: "new output", TargetLabel: "old output"})
		proven, broken = "every new output is an old output", "some new outputs are not old outputs"
	}
	// The pure verdict: any proven incompatibility breaks someone, so the
	// issues are graded strict.
	change.Issues = res.Issues
	grading.Grade(grading.Strict, change.Issues, grading.Place{})
	change.Verdict = driftVerdicts[res.Verdict]
	switch change.Verdict {
	case VerdictCompatible:
		f.Detail = fmt.Sprintf("%s schema changed, compatible: %s", side, proven)
	case VerdictBreaking:
		f.Detail = fmt.Sprintf("%s schema changed, breaking: %s (%s)", side, broken, proof(change.Issues))
	default:
		f.Detail = fmt.Sprintf("%s schema changed, unproven: cannot prove that %s", side, proven)
	}
	return f, true
}

func isInputProblem(code string) bool {
	switch code {
	case CodeMissingInputSchema, CodeNullInputSchema, CodeNonObjectInputSchema, CodeInvalidInputSchema:
		return true
	}
	return false
}

// driftVerdicts names the checker's verdicts in a drift report.
var driftVerdicts = map[verdict.Verdict]Verdict{
	verdict.Compatible:   VerdictCompatible,
	verdict.Incompatible: VerdictBreaking,
	verdict.Unknown:      VerdictUnproven,
}

// proof is the first incompatibility's message and witness.
func proof(issues []verdict.Issue) string {
	for _, is := range issues {
		if is.Verdict == verdict.Incompatible {
			return is.Message + "; e.g. " + verdict.Clip(is.Witness, 200)
		}
	}
	return ""
}

func firstErr(errs ...error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// orderFinding compares the order of the tools both lists share.
func orderFinding(approved, current []string) (Finding, bool) {
	if slices.Equal(approved, current) {
		return Finding{}, false
	}
	moved, first := 0, -1
	for i := range approved {
		if approved[i] != current[i] {
			moved++
			if first < 0 {
				first = i
			}
		}
	}
	return Finding{Code: CodeOrderChanged, Detail: fmt.Sprintf(
		"%d of %d shared tools at another position; first at position %d: approved %s, now %s",
		moved, len(approved), first+1, approved[first], current[first])}, true
}

func problemDetail(p Problem) string {
	if p.Pointer == "" {
		return p.Message
	}
	return p.Message + " (at " + p.Pointer + ")"
}

// textChange shows where two texts part, enough for a reviewer to see a
// rewritten description without printing both in full.
func textChange(old, cur string) string {
	const context = 40
	a, b := []rune(old), []rune(cur)
	i := 0
	for i < len(a) && i < len(b) && a[i] == b[i] {
		i++
	}
	start := max(0, i-context/2)
	clip := func(r []rune) string {
		end := min(len(r), i+context)
		s := string(r[start:end])
		if start > 0 {
			s = "…" + s
		}
		if end < len(r) {
			s += "…"
		}
		return s
	}
	return fmt.Sprintf("%d -> %d characters, from character %d: %q -> %q", len(a), len(b), i+1, clip(a), clip(b))
}
