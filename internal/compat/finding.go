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

// finding is a verdict.Issue before labelling: its message names the sides with
// srcMark/tgtMark, and the paths below the labels are kept apart.
type finding struct {
	sev            verdict.Severity
	code           string
	srcPtr, tgtPtr string
	srcPath        string // e.g. "[].address.city", appended to the source label
	tgtPath        string
	msg            string
}

// path is where the comparison currently stands below each side's label.
type path struct{ s, t string }

func (p path) prop(name string) path { return path{p.s + "." + name, p.t + "." + name} }
func (p path) item() path            { return path{p.s + "[]", p.t + "[]"} }
func (p path) index(i int) path {
	ix := fmt.Sprintf("[%d]", i)
	return path{p.s + ix, p.t + ix}
}

func (r *run) report(sev verdict.Severity, code, sp, tp string, p path, format string, args ...any) finding {
	return finding{sev: sev, code: code, srcPtr: sp, tgtPtr: tp, srcPath: p.s, tgtPath: p.t, msg: fmt.Sprintf(format, args...)}
}

func (r *run) errorf(code, sp, tp string, p path, format string, args ...any) []finding {
	return []finding{r.report(verdict.SeverityError, code, sp, tp, p, format, args...)}
}

// cannotProve names the keyword the rules could not decide.
func (r *run) cannotProve(sp, tp string, p path, keyword, why string) []finding {
	return []finding{r.report(verdict.SeverityWarning, verdict.CodeCannotProve, sp, tp, p,
		"cannot prove %s fits %s: %s (%s)", srcMark, tgtMark, why, keyword)}
}

// render turns stored findings into Issues for one pair of labels.
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
		out[i] = verdict.Issue{Severity: f.sev, Code: f.code, SourcePointer: f.srcPtr, TargetPointer: f.tgtPtr, Message: msg}
	}
	return out
}

// dedupe keeps one finding per (severity, code, pointers, message): source branches
// often fail alike, and a recursive schema repeats the same fault at every
// level. The shallowest path is kept, in first-seen (deterministic) order.
func dedupe(fs []finding) []finding {
	if len(fs) < 2 {
		return fs
	}
	type site struct {
		sev            verdict.Severity
		code           string
		srcPtr, tgtPtr string
		msg            string
	}
	at := make(map[site]int, len(fs))
	out := fs[:0:0]
	for _, f := range fs {
		k := site{f.sev, f.code, f.srcPtr, f.tgtPtr, f.msg}
		i, seen := at[k]
		if !seen {
			at[k] = len(out)
			out = append(out, f)
			continue
		}
		if len(f.srcPath) < len(out[i].srcPath) {
			out[i] = f
		}
	}
	return out
}
