package compat

import (
	"github.com/typeward/typeward/internal/schema"
	"github.com/typeward/typeward/internal/verdict"
	"github.com/typeward/typeward/internal/witness"
)

// Node is a subschema inside a loaded document: the document and the JSON
// pointer of the subschema ("" for the root). Pointers in Issues are
// absolute within the document.
type Node struct {
	Schema  *schema.Schema
	Pointer string
}

// Options shape one check's messages; they never change its verdict.
type Options struct {
	// SourceLabel and TargetLabel name the two sides in messages, e.g. "rows"
	// and "data" give "rows[] is object but data[] expects string".
	SourceLabel, TargetLabel string
}

// Result is the checker's answer for one pair: the verdict and the Issues
// behind it, each with its own verdict (Incompatible ones with a confirmed
// witness). Issues carry no severity: that is policy (internal/grading).
type Result struct {
	Verdict verdict.Verdict
	Issues  []verdict.Issue
}

// stepBudget bounds the comparisons one Check may make, so that an
// adversarial pair of schemas costs bounded time; beyond it the answer is
// cannot_prove.
const stepBudget = 10_000

// Checker holds the memo of answered pairs; it is safe for concurrent use.
type Checker struct {
	memo   *memo
	search searchFunc
}

// NewChecker returns a Checker with an empty memo and the default witness
// search.
func NewChecker() *Checker {
	return &Checker{memo: newMemo(memoBytes),
		search: newSearch(witness.NewSearcher(witness.Budget{Time: searchTime}, searchMemoBytes))}
}

// Check tells whether every instance of src is an instance of tgt:
// Compatible (no issue) when the rules prove it; Incompatible when a
// witness, a value the real validator accepts under src and rejects under
// tgt, is confirmed; Unknown otherwise, naming what could not be decided.
func (c *Checker) Check(src, tgt Node, opts Options) Result {
	if src.Schema == nil || tgt.Schema == nil {
		return Result{Verdict: verdict.Unknown, Issues: []verdict.Issue{{Code: verdict.CodeCannotProve, SourcePointer: src.Pointer, TargetPointer: tgt.Pointer,
			Message: "cannot prove compatibility: a schema is missing", Verdict: verdict.Unknown}}}
	}
	key := memoKey{src.Schema.Digest, src.Pointer, tgt.Schema.Digest, tgt.Pointer}
	e, ok := c.memo.get(key)
	if !ok {
		v, fs := c.confirm(src, tgt, c.compute(src, tgt))
		e = c.memo.put(key, v, fs, opts)
	}
	return Result{Verdict: e.verdict, Issues: e.issues(opts)}
}

func (c *Checker) compute(src, tgt Node) []finding {
	sv, sok := src.Schema.At(src.Pointer)
	tv, tok := tgt.Schema.At(tgt.Pointer)
	if !sok || !tok {
		return []finding{{claim: verdict.Unknown, code: verdict.CodeCannotProve, srcPtr: src.Pointer, tgtPtr: tgt.Pointer,
			msg: "cannot prove " + srcMark + " fits " + tgtMark + ": a pointer does not resolve in its schema"}}
	}
	if !isSchema(sv) || !isSchema(tv) {
		return []finding{{claim: verdict.Unknown, code: verdict.CodeCannotProve, srcPtr: src.Pointer, tgtPtr: tgt.Pointer,
			msg: "cannot prove " + srcMark + " fits " + tgtMark + ": a pointer does not point at a schema"}}
	}
	r := &run{
		checker:    c,
		src:        src.Schema,
		tgt:        tgt.Schema,
		srcD7:      src.Schema.Dialect == schema.Draft7,
		tgtD7:      tgt.Schema.Dialect == schema.Draft7,
		budget:     stepBudget,
		inProgress: map[string]int{},
	}
	r.srcRoot = newNode(sv, src.Pointer)
	fs := r.sub(viewOf(r.srcRoot), newNode(tv, tgt.Pointer), path{})
	if r.exhausted {
		// Steps skipped after the budget ran out answered "fine"; the
		// finding keeps the overall answer from ever being "compatible".
		fs = append(fs, finding{claim: verdict.Unknown, code: verdict.CodeCannotProve, srcPtr: src.Pointer, tgtPtr: tgt.Pointer,
			msg: "cannot prove " + srcMark + " fits " + tgtMark + ": the schemas need more than the step budget"})
	}
	return fs
}

// isSchema: a JSON Schema is an object or a boolean.
func isSchema(v any) bool {
	switch v.(type) {
	case map[string]any, bool:
		return true
	}
	return false
}
