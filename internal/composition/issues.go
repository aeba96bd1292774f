package composition

import (
	"github.com/typeward/typeward/internal/compat"
)

// Issue codes of the composition validator; the type checker's codes are
// in package compat.
const (
	CodeUnknownTool          = "unknown_tool"           // a node's tool, or an edge's node, does not exist
	CodeAmbiguousTool        = "ambiguous_tool"         // a bare tool name that several servers declare
	CodeUnknownComposition   = "unknown_composition"    // a node references no stored composition
	CodeInvalidComposition   = "invalid_composition"    // a stored composition, or its flattening, is unusable
	CodeCompositionCycle     = "composition_cycle"      // compositions reference each other in a loop
	CodeCycle                = "cycle"                  // the edges loop
	CodeUnknownSourceField   = "unknown_source_field"   // a source path is not in the output schema
	CodeUnknownTargetField   = "unknown_target_field"   // a target path is not in the input schema
	CodeUnboundRequiredInput = "unbound_required_input" // a required input no edge feeds
	CodeUntypedSource        = "untyped_source"         // the source tool declares no outputSchema
)

func errorIssue(code, msg string) compat.Issue {
	return compat.Issue{Severity: compat.SeverityError, Code: code, Message: msg}
}

func warningIssue(code, msg string) compat.Issue {
	return compat.Issue{Severity: compat.SeverityWarning, Code: code, Message: msg}
}
