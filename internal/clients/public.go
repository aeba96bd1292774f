package clients

import (
	"context"
	"net/url"
)

// AuthenticatePublic is Authenticate, except that a request carrying no
// credential at all but the client_id of a public client (None)
// authenticates as that client (OAuth 2.1 §2.4, RFC 7009 §2.1). Only the
// authorization code and refresh grants, which a PKCE verifier or a
// refresh token stands behind, and revocation call it; a confidential
// client still has to prove itself here.
func (a *Authenticator) AuthenticatePublic(ctx context.Context, form url.Values, authorization string) (*Client, error) {
	if authorization != "" || form.Has(ParamClientSecret) || form.Has(ParamClientAssertion) || form.Has(ParamClientAssertionType) {
		return a.Authenticate(ctx, form, authorization)
	}
	id := first(form[ParamClientID])
	fail := func(code ErrorCode, reason Reason, desc string) error {
		return &AuthError{Code: code, Reason: reason, Description: desc, ClientID: id}
	}
	if len(form[ParamClientID]) > 1 {
		return nil, fail(InvalidRequest, ReasonRepeatedParameter, "parameter "+ParamClientID+" is repeated")
	}
	c, err := a.lookup(ctx, id)
	switch {
	case err != nil:
		return nil, err
	case id == "":
		return nil, fail(InvalidClient, ReasonNoCredentials, "client authentication required")
	case c == nil:
		return nil, fail(InvalidClient, ReasonUnknownClient, genericFailure)
	case c.TokenEndpointAuthMethod != None:
		// A confidential client's id alone proves nothing.
		return nil, fail(InvalidClient, ReasonNoCredentials, "client authentication required")
	case c.Disabled:
		return nil, fail(InvalidClient, ReasonDisabled, "client is disabled")
	}
	return c, nil
}
