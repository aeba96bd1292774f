// Package grading is the one place where a verdict becomes a severity. The
// checker (internal/compat) states truth only: each issue is Incompatible,
// with a witness, or Unknown. How much that weighs in a pipeline depends on
// the edge (an optional edge may legitimately not deliver a value) and on
// the client's validation mode, lenient (the default) or strict.
package grading

import (
	"fmt"

	"github.com/typeward/typeward/internal/verdict"
)

// Mode is a client's validation mode.
type Mode string

const (
	// Lenient refuses proven incompatibilities except those a pipeline
	// commonly tolerates: a value the source may omit (may_be_missing), a
	// property an open source object does not declare
	// (undeclared_property), and null on an optional edge (may_be_null).
	// Those, and every Unknown, are WARNINGs.
	Lenient Mode = "lenient"
	// Strict refuses every proven incompatibility; Unknown stays a WARNING.
	Strict Mode = "strict"
)

// Modes lists the modes, the default first.
var Modes = []Mode{Lenient, Strict}

// Valid reports whether m is one of Modes.
func (m Mode) Valid() bool { return m == Lenient || m == Strict }

// OrLenient is m, or Lenient when m is unset: what stores keep.
func (m Mode) OrLenient() Mode {
	if m == "" {
		return Lenient
	}
	return m
}

// ParseMode reads a mode; "" is the default, lenient.
func ParseMode(s string) (Mode, error) {
	switch Mode(s) {
	case "", Lenient:
		return Lenient, nil
	case Strict:
		return Strict, nil
	}
	return "", fmt.Errorf("validation %q is not one of lenient, strict", s)
}

// Place says where an issue stands in the pipeline.
type Place struct {
	// Optional: the edge is optional, its source may not run.
	Optional bool
}

// Severity is the weight of an issue of the given code and verdict. An
// issue without a verdict is a structural finding (a cycle, an unknown
// tool, a bad path), never a compatibility claim: the composition
// validator gives every such claim, path findings included, a verdict and
// a witness (TestStrictRefusalsCarryWitnesses), so it is judged by its code
// alone.
func Severity(m Mode, code string, v verdict.Verdict, at Place) verdict.Severity {
	if v == verdict.Unknown || code == verdict.CodeCannotProve {
		return verdict.SeverityWarning
	}
	if m == Strict {
		return verdict.SeverityError
	}
	switch code {
	case verdict.CodeMayBeMissing, verdict.CodeUndeclaredProperty:
		return verdict.SeverityWarning
	case verdict.CodeMayBeNull:
		if at.Optional {
			return verdict.SeverityWarning
		}
	}
	return verdict.SeverityError
}

// Refuses reports whether issues refuse a token: whether any is an ERROR.
// It is the one reading of a list of issues as a yes or no.
func Refuses(issues []verdict.Issue) bool {
	for _, is := range issues {
		if is.Severity == verdict.SeverityError {
			return true
		}
	}
	return false
}

// Grade sets the severity of every issue of a compatibility check made at
// one place.
func Grade(m Mode, issues []verdict.Issue, at Place) {
	for i := range issues {
		issues[i].Severity = Severity(m, issues[i].Code, issues[i].Verdict, at)
	}
}
