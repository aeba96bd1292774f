package cimd

import "fmt"

// Reason is why a metadata document was refused, from a small fixed set:
// a label for logs and metrics; Error's message says the rest.
type Reason string

// The reasons Fetch reports.
const (
	ReasonClientIDURL     Reason = "client_id_url"     // the client_id is not a valid document URL
	ReasonUntrustedDomain Reason = "untrusted_domain"  // not on the trusted-domain list
	ReasonAddress         Reason = "forbidden_address" // resolves to a private, loopback, … address
	ReasonUnreachable     Reason = "unreachable"       // DNS, TCP or TLS failed
	ReasonTimeout         Reason = "timeout"
	ReasonRedirect        Reason = "redirect"
	ReasonStatus          Reason = "status"       // not 200
	ReasonContentType     Reason = "content_type" // not application/json
	ReasonTooLarge        Reason = "too_large"
	ReasonNotJSON         Reason = "not_json"
	ReasonClientID        Reason = "client_id_mismatch" // the document names another client_id
	ReasonInvalid         Reason = "invalid_metadata"   // a member is missing or wrong
	ReasonJWKS            Reason = "jwks_uri"           // the jwks_uri could not be used
	ReasonBusy            Reason = "busy"               // too many fetches in flight
)

// Error is a refused client ID metadata document. Message is safe to show
// to the person at the authorization endpoint and to the client.
type Error struct {
	URL     string
	Reason  Reason
	Message string
}

func (e *Error) Error() string {
	return fmt.Sprintf("client metadata document %s: %s", e.URL, e.Message)
}

func refuse(url string, reason Reason, format string, args ...any) *Error {
	return &Error{URL: url, Reason: reason, Message: fmt.Sprintf(format, args...)}
}
