package verdict

// Issue codes of the compatibility checker (internal/compat).
const (
	CodeTypeMismatch         = "type_mismatch"
	CodeMissingRequired      = "missing_required"
	CodeMayBeMissing         = "may_be_missing"
	CodeMayBeNull            = "may_be_null"
	CodeUndeclaredProperty   = "undeclared_property"
	CodeAdditionalProperty   = "additional_property"
	CodeEnumMismatch         = "enum_mismatch"
	CodeRangeMismatch        = "range_mismatch"
	CodeMultipleOfMismatch   = "multiple_of_mismatch"
	CodeLengthMismatch       = "length_mismatch"
	CodeSizeMismatch         = "size_mismatch"
	CodeUniqueItems          = "unique_items"
	CodeContainsMismatch     = "contains_mismatch"
	CodeDependencyMissing    = "dependency_missing"
	CodeNoBranchMatches      = "no_branch_matches"
	CodeExcludedByNot        = "excluded_by_not"
	CodeTargetAcceptsNothing = "target_accepts_nothing"
	CodePatternMismatch      = "pattern_mismatch"
	CodeFormatMismatch       = "format_mismatch"
	CodeCounterexample       = "counterexample"
	CodeCannotProve          = "cannot_prove"
)

// Issue codes of the composition validator (internal/composition).
const (
	CodeUnknownTool          = "unknown_tool"           // a node's tool, or an edge's node, does not exist
	CodeAmbiguousTool        = "ambiguous_tool"         // a bare tool name that several servers declare
	CodeUnknownSourceField   = "unknown_source_field"   // a source path is not in the output schema
	CodeUnknownTargetField   = "unknown_target_field"   // a target path is not in the input schema
	CodeUntypedSource        = "untyped_source"         // the source tool declares no outputSchema
	CodeUnboundRequiredInput = "unbound_required_input" // a required input no edge feeds
	CodeCycle                = "cycle"                  // the edges loop
	CodeCompositionCycle     = "composition_cycle"      // compositions reference each other in a loop
	CodeUnknownComposition   = "unknown_composition"    // a node references no stored composition
	CodeInvalidComposition   = "invalid_composition"    // a stored composition, or its flattening, is unusable
)

// Issue codes of the token endpoint (internal/oauth).
const (
	CodeToolNotAllowed = "tool_not_allowed"
)

// CompatCodes returns the checker's codes, in docs/issues.md order.
func CompatCodes() []string {
	return []string{
		CodeTypeMismatch, CodeMissingRequired, CodeMayBeMissing, CodeMayBeNull,
		CodeUndeclaredProperty, CodeAdditionalProperty, CodeEnumMismatch,
		CodeRangeMismatch, CodeMultipleOfMismatch, CodeLengthMismatch,
		CodeSizeMismatch, CodeUniqueItems, CodeContainsMismatch,
		CodeDependencyMissing, CodeNoBranchMatches, CodeExcludedByNot,
		CodeTargetAcceptsNothing, CodePatternMismatch, CodeFormatMismatch,
		CodeCounterexample, CodeCannotProve,
	}
}

// CompositionCodes returns the composition validator's codes.
func CompositionCodes() []string {
	return []string{
		CodeUnknownTool, CodeAmbiguousTool, CodeUnknownSourceField,
		CodeUnknownTargetField, CodeUntypedSource, CodeUnboundRequiredInput,
		CodeCycle, CodeCompositionCycle, CodeUnknownComposition,
		CodeInvalidComposition,
	}
}

// TokenCodes returns the token endpoint's codes.
func TokenCodes() []string { return []string{CodeToolNotAllowed} }
