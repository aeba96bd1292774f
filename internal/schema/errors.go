package schema

import (
	"errors"
	"fmt"
)

// Bounds on what a schema may cost us. A schema arrives from a tool author we
// do not control, so every dimension that drives work is capped.
const (
	MaxDocumentBytes = 1 << 20 // 1 MiB
	MaxDepth         = 64      // nesting of JSON objects and arrays
	MaxSubschemas    = 10_000  // JSON objects in the document, an upper bound on subschemas
	MaxExponent      = 400     // decimal exponent (and digits) of a number literal
)

// Sentinels, tested with errors.Is; *Error carries the detail.
var (
	ErrTooLarge      = errors.New("schema exceeds the size bound")
	ErrTooDeep       = errors.New("schema exceeds the nesting depth bound")
	ErrTooManyNodes  = errors.New("schema exceeds the subschema count bound")
	ErrRemoteRef     = errors.New("schema references a non-local $ref")
	ErrDialect       = errors.New("schema declares an unsupported dialect")
	ErrSyntax        = errors.New("schema is not valid JSON")
	ErrInvalid       = errors.New("schema does not compile")
	ErrRefUnresolved = errors.New("schema $ref does not resolve")
	ErrNumberRange   = errors.New("schema number is out of range")
)

// Error is a schema problem with the place it was found.
type Error struct {
	Kind    error  // one of the sentinels above
	Pointer string // JSON pointer into the schema, "" for the root
	Detail  string
}

func (e *Error) Error() string {
	at := ""
	if e.Pointer != "" {
		at = " at " + e.Pointer
	}
	if e.Detail == "" {
		return e.Kind.Error() + at
	}
	return fmt.Sprintf("%s%s: %s", e.Kind, at, e.Detail)
}

func (e *Error) Unwrap() error { return e.Kind }
