package compat

import (
	"fmt"
	"strings"

	"github.com/typeward/typeward/internal/verdict"
)

// Placeholders for the two sides' names inside a stored message. Results are
// memoized without labels, so the labels are substituted on the way out.
const (
	srcMark = "\x00S"
	tgtMark = "\x00T"
)

// finding is a rule's conclusion before confirmation and labelling: its
// message names the sides with srcMark/tgtMark, and the paths below the
// labels are kept apart. A rule states truth only: claim is Incompatible
// when it believes a counterexample exists, Unknown when it cannot decide.
// Severity is not the checker's business (internal/grading).
type finding struct {
	claim          verdict.Verdict
	code           string
	srcPtr, tgtPtr string
	srcPath        string // e.g. "[].address.city", appended to the source label
	tgtPath        string
	steps          []step // where below the check's root the finding stands
	msg            string
	// witness holds the rule's cheap candidate counterexamples, at the
	// finding's place (steps below the check's root), nil when it has none.
	// Check lifts them to the root and keeps the claim only if the real
	// validator confirms one.
	witness []candidate
	// proof is the confirmed witness (set by Check, never by a rule).
	proof *proof
}

// candidate wraps a JSON value so that null is a candidate, distinct from
// "no candidate".
type candidate struct{ value any }

// proof is a witness the validator confirmed: its JSON encoding (bounded by
// maxWitnessBytes) and the target's complaint.
type proof struct {
	json []byte
	err  verdict.WitnessError
}

// with attaches candidate witnesses (values the rule believes the source
// accepts and the target rejects at the finding's place), tried in order,
// to every claim of fs.
func with(fs []finding, values ...any) []finding {
	for i := range fs {
		if fs[i].claim == verdict.Incompatible {
			for _, v := range values {
				fs[i].witness = append(fs[i].witness, candidate{v})
			}
		}
	}
	return fs
}

// step is one structural move below the check's root: into a property,
// into any item, or into the item at index.
type step struct {
	kind  stepKind
	prop  string
	index int
}

type stepKind uint8

const (
	stepProp stepKind = iota
	stepItems
	stepIndex
)

// path is where the comparison currently stands below each side's label.
type path struct {
	s, t  string
	steps []step
}

func (p path) then(st step) []step { return append(p.steps[:len(p.steps):len(p.steps)], st) }

func (p path) prop(name string) path {
	return path{p.s + "." + name, p.t + "." + name, p.then(step{kind: stepProp, prop: name})}
}
func (p path) item() path { return path{p.s + "[]", p.t + "[]", p.then(step{kind: stepItems})} }
func (p path) index(i int) path {
	ix := fmt.Sprintf("[%d]", i)
	return path{p.s + ix, p.t + ix, p.then(step{kind: stepIndex, index: i})}
}

// report is a finding at p. Every code but cannot_prove claims an
// incompatibility, which Check will try to confirm.
func (r *run) report(code, sp, tp string, p path, format string, args ...any) finding {
	claim := verdict.Incompatible
	if code == verdict.CodeCannotProve {
		claim = verdict.Unknown
	}
	return finding{claim: claim, code: code, srcPtr: sp, tgtPtr: tp, srcPath: p.s, tgtPath: p.t, steps: p.steps, msg: fmt.Sprintf(format, args...)}
}

func (r *run) errorf(code, sp, tp string, p path, format string, args ...any) []finding {
	return []finding{r.report(code, sp, tp, p, format, args...)}
}

// cannotProve names the keyword the rules could not decide.
func (r *run) cannotProve(sp, tp string, p path, keyword, why string) []finding {
	return []finding{r.report(verdict.CodeCannotProve, sp, tp, p,
		"cannot prove %s fits %s: %s (%s)", srcMark, tgtMark, why, keyword)}
}

// render turns stored findings into Issues for one pair of labels. The
// severity is left empty: policy sets it.
func render(fs []finding, opts Options) []verdict.Issue {
	if len(fs) == 0 {
		return nil
	}
	sl, tl := opts.SourceLabel, opts.TargetLabel
	if sl == "" {
		sl = "source"
	}
	if tl == "" {
		tl = "target"
	}
	out := make([]verdict.Issue, len(fs))
	for i, f := range fs {
		msg := strings.ReplaceAll(f.msg, srcMark, sl+f.srcPath)
		msg = strings.ReplaceAll(msg, tgtMark, tl+f.tgtPath)
		is := verdict.Issue{Code: f.code, SourcePointer: f.srcPtr, TargetPointer: f.tgtPtr, Message: msg, Verdict: f.claim}
		if f.proof != nil {
			we := f.proof.err
			is.Witness, is.WitnessError = f.proof.json, &we
		}
		out[i] = is
	}
	return out
}

// dedupe keeps one finding per (claim, code, pointers, message): source
// branches often fail alike, and a recursive schema repeats the same fault
// at every level. A confirmed copy wins, then one with a candidate, then the
// shallowest path, in first-seen (deterministic) order.
func dedupe(fs []finding) []finding {
	if len(fs) < 2 {
		return fs
	}
	type site struct {
		claim          verdict.Verdict
		code           string
		srcPtr, tgtPtr string
		msg            string
	}
	rank := func(f finding) int {
		switch {
		case f.proof != nil:
			return 2
		case f.witness != nil:
			return 1
		}
		return 0
	}
	at := make(map[site]int, len(fs))
	out := fs[:0:0]
	for _, f := range fs {
		k := site{f.claim, f.code, f.srcPtr, f.tgtPtr, f.msg}
		i, seen := at[k]
		if !seen {
			at[k] = len(out)
			out = append(out, f)
			continue
		}
		if rf, ro := rank(f), rank(out[i]); rf > ro || (rf == ro && len(f.srcPath) < len(out[i].srcPath)) {
			out[i] = f
		}
	}
	return out
}
