package oauth

import (
	"fmt"
	"net/url"
	"sort"
	"unicode/utf8"

	"github.com/typeward/typeward/internal/clients"
)

// Bounds on the form parameters of the token, backchannel, introspection
// and revocation endpoints. RFC 6749 names no limit; these are generous for every real
// value and are checked before any parameter is used, logged or audited
// (docs/security.md lists them).
var paramBounds = map[string]int{
	"grant_type":                     64,
	clients.ParamClientID:            clients.MaxClientIDLen,
	clients.ParamClientSecret:        512,
	clients.ParamClientAssertionType: 128,
	clients.ParamClientAssertion:     8 << 10,
	"scope":                          4 << 10,
	"resource":                       2 << 10,
	"authorization_details":          MaxAuthorizationDetailsBytes,
	"token":                          MaxTokenBytes,
	"token_type_hint":                64,
	// Every redirect URI a client may register must fit: at 1 KiB, one of
	// 1025 to 2048 bytes registered but could never be used.
	"redirect_uri": clients.MaxRedirectURILen,
}

// MaxTokenBytes bounds a token presented for introspection, revocation or
// to the admin API: typeward's tokens are far shorter.
const MaxTokenBytes = 16 << 10

// Unknown parameters are ignored (RFC 6749 §3.2), within these bounds.
const (
	maxFormParams     = 32
	maxOtherParamSize = 1 << 10
)

// auditedValueBytes is how much of an oversized value the audit log keeps.
const auditedValueBytes = 64

// checkForm refuses a form holding a parameter over its bound, naming the
// parameter and the bound, before anything reads the form.
func checkForm(form url.Values) error {
	if len(form) > maxFormParams {
		return badRequest(CodeInvalidRequest, fmt.Sprintf("the form has %d parameters, at most %d", len(form), maxFormParams))
	}
	names := make([]string, 0, len(form))
	for name := range form {
		names = append(names, name)
	}
	sort.Strings(names) // the same parameter is named first every time
	for _, name := range names {
		limit, known := paramBounds[name]
		if !known || limit == 0 {
			limit = maxOtherParamSize
		}
		if len(name) > maxOtherParamSize {
			return badRequest(CodeInvalidRequest, fmt.Sprintf("a parameter name is %d bytes, at most %d", len(name), maxOtherParamSize))
		}
		for _, v := range form[name] {
			if len(v) > limit {
				code := CodeInvalidRequest
				if name == "authorization_details" {
					code = CodeInvalidAuthorizationDetails
				}
				label := name
				if !known {
					label = "parameter " + truncate(name, 64)
				}
				return badRequest(code, fmt.Sprintf("%s is %d bytes, at most %d", label, len(v), limit))
			}
		}
	}
	return nil
}

// Clip is s cut to at most n bytes on a rune boundary and marked as cut
// with its real length, so that an audit record or a log line never
// carries a large value and never passes a cut one off as whole.
func Clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return fmt.Sprintf("%s...[truncated, %d bytes]", s[:cut], len(s))
}

// ReasonOversizedParameter is the audit reason of a request refused by
// checkForm.
const ReasonOversizedParameter = "oversized_parameter"

// claimedClientID is the client a request names, for the audit record of a
// request refused before authentication.
func claimedClientID(form url.Values, authorization string) string {
	if id := form.Get(clients.ParamClientID); id != "" {
		return id
	}
	id, _, _ := clients.ParseBasic(authorization)
	return id
}
