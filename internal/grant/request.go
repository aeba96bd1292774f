package grant

import (
	"errors"

	"github.com/typeward/typeward/internal/grading"
	"github.com/typeward/typeward/internal/verdict"
)

// Request is an authorization request as the authorization server
// checked it, before the person decides: what the consent page shows.
// Its Consent has no Subject yet.
type Request struct {
	Consent
	ClientName string
	// ClientRedirects are all the client's registered redirect URIs (the
	// page warns when every one is loopback); RedirectURI is where this
	// request's answer goes.
	ClientRedirects []string
	RedirectURI     string
	// Refresh: the code, once redeemed, starts a refresh family.
	Refresh bool
	// Validation is the client's validation mode, which the drawing
	// grades the composition under.
	Validation grading.Mode
	// Refusal, when set, is why the composition cannot be approved.
	Refusal *Refusal
	// NeedsApprover: the client's approval policy needs a person with the
	// approver role for this composition.
	NeedsApprover bool
}

// Refusal is a composition that does not validate, with its issues.
type Refusal struct {
	Description string
	Issues      []verdict.Issue
}

// RequestError is a refused authorization request. Redirect is the
// answer to send the person's browser to (the error, state and iss on
// the client's redirect URI); "" when the client or the redirect URI is
// not valid, so the error is shown on a page and sent nowhere.
type RequestError struct {
	Code, Description string
	Redirect          string
	// Cause is the server's failure behind a server_error or
	// temporarily_unavailable answer: logged, never sent.
	Cause error
}

func (e *RequestError) Error() string { return e.Code + ": " + e.Description }

func (e *RequestError) Unwrap() error { return e.Cause }

// The refusals of a person's Approve: the page says them, nothing is
// sent to the client.
var (
	// ErrConsentStale: the composition the person saw is not the one the
	// registry gives now.
	ErrConsentStale = errors.New("the composition changed since it was shown; review it again")
	// ErrNeedsApprover: the client's approval policy needs an approver.
	ErrNeedsApprover = errors.New("this client's approval policy needs a person with the approver role for this composition")
	// ErrNotConsentable: the composition does not validate.
	ErrNotConsentable = errors.New("this composition does not validate and cannot be approved")
)
