// Package compat decides structural subtyping between JSON Schemas: whether
// every instance valid under a source schema is valid under a target schema.
package compat

import "github.com/typeward/typeward/internal/schema"

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

// Checker holds the memo of answered pairs; it is safe for concurrent use.
type Checker struct{}

// NewChecker returns a Checker with an empty memo.
func NewChecker() *Checker { return &Checker{} }

// Check returns every reason an instance of src might not be an instance of
// tgt: nothing when compatibility is proven, ERRORs when it is disproven,
// WARNING cannot_prove when the implemented rules cannot decide.
func (c *Checker) Check(src, tgt Node, opts Options) []Issue {
	panic("compat: not implemented yet")
}
