package clients

import "fmt"

// ErrorCode is the RFC 6749 §5.2 error an authentication failure maps to.
type ErrorCode string

const (
	// InvalidClient answers 401 (with WWW-Authenticate when BasicHeader).
	InvalidClient ErrorCode = "invalid_client"
	// InvalidRequest answers 400: the request itself is malformed.
	InvalidRequest ErrorCode = "invalid_request"
)

// Reason is why authentication failed, from a small fixed set: a label for
// metrics and the audit log. It is more precise than Description, which
// must not tell a caller who has proved nothing whether a client exists.
type Reason string

// The reasons Authenticate reports.
const (
	ReasonNoCredentials     Reason = "no_credentials"
	ReasonMultipleMethods   Reason = "multiple_methods"
	ReasonRepeatedParameter Reason = "repeated_parameter"
	ReasonMalformed         Reason = "malformed_credentials"
	ReasonClientIDMismatch  Reason = "client_id_mismatch"
	ReasonUnknownClient     Reason = "unknown_client"
	ReasonBadSecret         Reason = "bad_secret"
	ReasonMethodMismatch    Reason = "method_mismatch"
	ReasonDisabled          Reason = "client_disabled"
	ReasonBadAssertion      Reason = "bad_assertion"
	ReasonBadSignature      Reason = "bad_signature"
	ReasonAssertionClaims   Reason = "assertion_claims"
	ReasonExpired           Reason = "assertion_expired"
	ReasonNotYetValid       Reason = "assertion_not_yet_valid"
	ReasonLifetime          Reason = "assertion_lifetime"
	ReasonAudience          Reason = "assertion_audience"
	ReasonReplayed          Reason = "assertion_replayed"
)

// AuthError is a failed client authentication. Any other error from
// Authenticate is the server's fault (the store is down): answer 500.
type AuthError struct {
	Code   ErrorCode
	Reason Reason
	// Description is ASCII and safe to send as error_description.
	Description string
	// BasicHeader is set when the request carried an Authorization header:
	// RFC 6749 §5.2 then demands 401 with WWW-Authenticate: Basic.
	BasicHeader bool
	// ClientID is the id the request claimed ("" if none): for the audit
	// log, not proof of anything.
	ClientID string
}

func (e *AuthError) Error() string {
	return fmt.Sprintf("%s (%s): %s", e.Code, e.Reason, e.Description)
}

// genericFailure is the description of every failure before the caller
// has proved possession of a credential, so that unknown client, wrong
// secret and wrong method read the same.
const genericFailure = "client authentication failed"
