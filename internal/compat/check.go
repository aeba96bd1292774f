package compat

import (
	"github.com/typeward/typeward/internal/schema"
	"github.com/typeward/typeward/internal/verdict"
)

// Node is a subschema inside a loaded document: the document and the JSON
// pointer of the subschema ("" for the root). Pointers in Issues are
// absolute within the document.
type Node struct {
	Schema  *schema.Schema
	Pointer string
}

// Options shape one check.
type Options struct {
	// SourceLabel and TargetLabel name the two sides in messages, e.g. "rows"
	// and "data" give "rows[] is object but data[] expects string".
	SourceLabel, TargetLabel string
	// Conditional is set when the source may legitimately not produce the
	// value (optional edge): null or absent values become WARNINGs
	// (may_be_null / may_be_missing) instead of ERRORs.
	Conditional bool
}

// stepBudget bounds the comparisons one Check may make, so that an
// adversarial pair of schemas costs bounded time; beyond it the answer is
// cannot_prove.
const stepBudget = 10_000

// Checker holds the memo of answered pairs; it is safe for concurrent use.
type Checker struct {
	memo    *memo
	regexps *regexpCache
}

// NewChecker returns a Checker with an empty memo.
func NewChecker() *Checker {
	return &Checker{memo: &memo{entries: map[memoKey]*memoEntry{}}, regexps: &regexpCache{}}
}

// Check returns every reason an instance of src might not be an instance of
// tgt: nothing when compatibility is proven, ERRORs when it is disproven,
// WARNING cannot_prove when the implemented rules cannot decide.
func (c *Checker) Check(src, tgt Node, opts Options) []verdict.Issue {
	if src.Schema == nil || tgt.Schema == nil {
		return []verdict.Issue{{Severity: verdict.SeverityWarning, Code: verdict.CodeCannotProve, SourcePointer: src.Pointer, TargetPointer: tgt.Pointer,
			Message: "cannot prove compatibility: a schema is missing"}}
	}
	key := memoKey{src.Schema.Digest, src.Pointer, tgt.Schema.Digest, tgt.Pointer, opts.Conditional}
	e, ok := c.memo.get(key)
	if !ok {
		e = c.memo.put(key, c.compute(src, tgt, opts.Conditional))
	}
	return e.issues(opts)
}

func (c *Checker) compute(src, tgt Node, conditional bool) []finding {
	sv, sok := src.Schema.At(src.Pointer)
	tv, tok := tgt.Schema.At(tgt.Pointer)
	if !sok || !tok {
		return []finding{{sev: verdict.SeverityWarning, code: verdict.CodeCannotProve, srcPtr: src.Pointer, tgtPtr: tgt.Pointer,
			msg: "cannot prove " + srcMark + " fits " + tgtMark + ": a pointer does not resolve in its schema"}}
	}
	if !isSchema(sv) || !isSchema(tv) {
		return []finding{{sev: verdict.SeverityWarning, code: verdict.CodeCannotProve, srcPtr: src.Pointer, tgtPtr: tgt.Pointer,
			msg: "cannot prove " + srcMark + " fits " + tgtMark + ": a pointer does not point at a schema"}}
	}
	r := &run{
		checker:     c,
		src:         src.Schema,
		tgt:         tgt.Schema,
		srcD7:       src.Schema.Dialect == schema.Draft7,
		tgtD7:       tgt.Schema.Dialect == schema.Draft7,
		conditional: conditional,
		budget:      stepBudget,
		inProgress:  map[string]int{},
	}
	fs := r.sub(viewOf(newNode(sv, src.Pointer)), newNode(tv, tgt.Pointer), path{})
	if r.exhausted {
		// Steps skipped after the budget ran out answered "fine"; the
		// warning keeps the overall answer from ever being "compatible".
		fs = append(fs, finding{sev: verdict.SeverityWarning, code: verdict.CodeCannotProve, srcPtr: src.Pointer, tgtPtr: tgt.Pointer,
			msg: "cannot prove " + srcMark + " fits " + tgtMark + ": the schemas need more than the step budget"})
	}
	return dedupe(fs)
}

// isSchema: a JSON Schema is an object or a boolean.
func isSchema(v any) bool {
	switch v.(type) {
	case map[string]any, bool:
		return true
	}
	return false
}
