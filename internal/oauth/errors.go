// Package oauth is typeward's authorization server logic as plain domain
// functions: the client-credentials token endpoint for compositions (RFC
// 6749, RFC 8707, RFC 9396), introspection (RFC 7662), revocation (RFC 7009)
// and server metadata (RFC 8414). It never imports net/http: the HTTP layer
// decodes requests into these calls and maps Error to a status in one place.
package oauth

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/typeward/typeward/internal/outage"
	"github.com/typeward/typeward/internal/verdict"
)

// The error codes typeward answers: RFC 6749 §5.2, RFC 8707 and RFC 9396.
const (
	CodeInvalidRequest              = "invalid_request"
	CodeInvalidClient               = "invalid_client"
	CodeUnsupportedGrantType        = "unsupported_grant_type"
	CodeUnauthorizedClient          = "unauthorized_client"
	CodeInvalidScope                = "invalid_scope"
	CodeInvalidTarget               = "invalid_target"
	CodeInvalidAuthorizationDetails = "invalid_authorization_details"
	CodeServerError                 = "server_error"
	// CodeInvalidDPoPProof is RFC 9449 §5's: a DPoP proof refused, or
	// missing for a client whose tokens must be DPoP-bound.
	CodeInvalidDPoPProof = "invalid_dpop_proof"
	// CodeUseDPoPNonce is RFC 9449 §8's: the proof lacks the nonce the
	// server requires, or carries one it no longer accepts; the answer's
	// DPoP-Nonce header has one to use.
	CodeUseDPoPNonce = "use_dpop_nonce"
	// CodeTemporarilyUnavailable answers an outage of a dependency (the
	// database down or stalled): RFC 6749 §4.1.2.1's code, with 503.
	CodeTemporarilyUnavailable = "temporarily_unavailable"
	// CodeClientGone is the audit reason of a request whose client hung up
	// before it was answered.
	CodeClientGone = "client_gone"
	// CodeRateLimited is not an RFC 6749 code; RFC 6585's 429 carries it.
	CodeRateLimited = "rate_limited"
)

// Kind says how an Error is answered; the HTTP layer maps each to a status.
type Kind int

const (
	KindBadRequest   Kind = iota // 400: malformed or not allowed input
	KindUnauthorized             // 401: client authentication failed
	KindForbidden                // 403: a well-formed composition is refused
	KindRateLimited              // 429
	KindServer                   // 500: nothing about it is echoed
	KindUnavailable              // 503 with Retry-After: a dependency is down; retry
	KindCanceled                 // the client hung up: nobody reads the answer
)

// Error is an OAuth error answer. Description is ASCII, as RFC 6749 §5.2
// requires of error_description.
type Error struct {
	Kind        Kind
	Code        string
	Description string
	// Issues is the full issue list of a refused composition (KindForbidden).
	Issues []verdict.Issue
	// BasicChallenge asks for WWW-Authenticate: Basic (the client used the
	// Authorization header and failed).
	BasicChallenge bool
	// RetryAfter is the wait before the next attempt (KindRateLimited).
	RetryAfter time.Duration
	// DPoPNonce, when set, is the DPoP-Nonce header of the answer (RFC
	// 9449 §8).
	DPoPNonce string
	// cause is logged, never shown (KindServer).
	cause error
}

func (e *Error) Error() string {
	if e.cause != nil {
		return e.Code + ": " + e.Description + ": " + e.cause.Error()
	}
	return e.Code + ": " + e.Description
}

func (e *Error) Unwrap() error { return e.cause }

func badRequest(code, description string) *Error {
	return &Error{Kind: KindBadRequest, Code: code, Description: ASCII(description)}
}

// serverError is a failure that is not the client's: an outage of a
// dependency (503, retry), the client's own hang-up, or a bug (500).
// registryChangedError answers a token withheld because the registry
// changed after its validation (registry.ErrChanged): retry shortly.
func registryChangedError(cause error) *Error {
	return &Error{Kind: KindUnavailable, Code: CodeTemporarilyUnavailable,
		Description: "the tool registry changed while the composition was validated; retry",
		RetryAfter:  outage.RetryAfter * time.Second, cause: cause}
}

func serverError(cause error) *Error {
	switch {
	case errors.Is(cause, context.Canceled):
		return &Error{Kind: KindCanceled, Code: CodeClientGone, Description: "the client closed the request", cause: cause}
	case outage.Is(cause):
		return &Error{Kind: KindUnavailable, Code: CodeTemporarilyUnavailable,
			Description: "the service is temporarily unavailable; retry later",
			RetryAfter:  outage.RetryAfter * time.Second, cause: cause}
	}
	return &Error{Kind: KindServer, Code: CodeServerError, Description: "internal error", cause: cause}
}

// AsError returns err as an *Error; anything else becomes a server error
// whose cause is kept for the log.
func AsError(err error) *Error {
	var oe *Error
	if errors.As(err, &oe) {
		return oe
	}
	return serverError(err)
}

// ASCII makes s a legal error_description: RFC 6749 allows %x20-21,
// %x23-5B and %x5D-7E only, so a double quote becomes a single one, a
// backslash a slash, and every other character outside the set '?'.
func ASCII(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	for _, r := range s {
		switch {
		case r == '"':
			b.WriteByte('\'')
		case r == '\\':
			b.WriteByte('/')
		case r >= 0x20 && r <= 0x7e:
			b.WriteRune(r)
		default:
			b.WriteByte('?')
		}
	}
	return b.String()
}
