// Package verdict is the one vocabulary of typeward's answers: the verdict
// of a compatibility check, the severity a pipeline gives it, the Issue
// wire shape and every issue code. It is a leaf: it imports nothing of
// typeward, so the checker, the composition validator, the token endpoint,
// the CLI and the drift report all speak it without depending on each other.
package verdict
