package verify

import "errors"

// ErrInvalidToken is wrapped by every error Verify returns, together with
// one of the more specific errors below.
var ErrInvalidToken = errors.New("invalid token")

// Why a token is invalid.
var (
	ErrMalformed    = errors.New("malformed token")
	ErrAlgorithm    = errors.New("signing algorithm not allowed")
	ErrType         = errors.New("not an access token: typ must be at+jwt")
	ErrCritical     = errors.New("unsupported critical header (crit)")
	ErrUnknownKey   = errors.New("unknown signing key")
	ErrSignature    = errors.New("signature does not verify")
	ErrExpired      = errors.New("token expired")
	ErrNotYetValid  = errors.New("token not valid yet")
	ErrIssuer       = errors.New("wrong issuer")
	ErrAudience     = errors.New("wrong audience")
	ErrMissingClaim = errors.New("required claim missing")
)
