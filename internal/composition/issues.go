package composition

import (
	"github.com/typeward/typeward/internal/verdict"
)

func errorIssue(code, msg string) verdict.Issue {
	return verdict.Issue{Severity: verdict.SeverityError, Code: code, Message: msg}
}

func warningIssue(code, msg string) verdict.Issue {
	return verdict.Issue{Severity: verdict.SeverityWarning, Code: code, Message: msg}
}
