package verdict

// Verdict is the checker's truth about one source/target pair. It is not a
// severity: how a verdict weighs in a pipeline is policy (internal/grading).
type Verdict string

const (
	// Compatible: every instance of the source is an instance of the target.
	Compatible Verdict = "compatible"
	// Incompatible: a witness exists, a value the source accepts and the
	// target rejects, and the real validator has confirmed it.
	Incompatible Verdict = "incompatible"
	// Unknown: the rules could not decide, and no witness was found.
	Unknown Verdict = "unknown"
)

// Severity is how an Issue weighs: an ERROR refuses the token, a WARNING is
// reported and does not.
type Severity string

const (
	SeverityError   Severity = "error"
	SeverityWarning Severity = "warning"
)
