package compat

// Severity of an Issue. There are exactly two: an ERROR refuses the token,
// a WARNING is reported and does not.
type Severity string

const (
	SeverityError   Severity = "error"
	SeverityWarning Severity = "warning"
)

// Issue codes shared by the checker and the composition validator.
const (
	CodeTypeMismatch    = "type_mismatch"
	CodeMissingRequired = "missing_required"
	CodeMayBeMissing    = "may_be_missing"
	CodeMayBeNull       = "may_be_null"
	CodeCannotProve     = "cannot_prove"
	// Further codes (enum_mismatch, range_mismatch, …) are declared next to
	// the rule that emits them.
)

// Issue is one finding, in the wire shape of DESIGN.md. The composition
// validator fills the tool, edge and field-path members; the checker fills
// severity, code, message and the JSON pointers.
type Issue struct {
	Severity      Severity `json:"severity"`
	Code          string   `json:"code"`
	SourceTool    string   `json:"source_tool,omitempty"`
	TargetTool    string   `json:"target_tool,omitempty"`
	Edge          string   `json:"edge,omitempty"`
	FieldPath     string   `json:"field_path,omitempty"`
	SourcePointer string   `json:"source_pointer,omitempty"`
	TargetPointer string   `json:"target_pointer,omitempty"`
	Message       string   `json:"message"`
}
