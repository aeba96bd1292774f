package oauth

import (
	"context"
	"errors"
	"net/url"

	"github.com/typeward/typeward/internal/clients"
)

// authentication is the authentication step's answer: the client, or,
// when it failed, the id the request claimed and why it failed (the audit
// record's client and reason).
type authentication struct {
	client           *clients.Client
	clientID, reason string
}

// authenticate maps the Authenticator's verdict to an OAuth error, after
// refusing outright an address whose failures are spent; a failure is
// counted against the address and the client id it claimed.
func (s *Service) authenticate(ctx context.Context, form url.Values, authorization string) (authentication, error) {
	g := form.Get("grant_type")
	// A PKCE verifier or a refresh token stands behind these grants: a
	// public client names itself by its id alone.
	return s.authenticateAs(ctx, form, authorization, g == clients.GrantAuthorizationCode || g == clients.GrantRefreshToken)
}

// authenticateAs is authenticate, accepting a public client when public.
func (s *Service) authenticateAs(ctx context.Context, form url.Values, authorization string, public bool) (authentication, error) {
	if err := s.addressBlocked(ctx); err != nil {
		return authentication{clientID: claimedClientID(form, authorization), reason: ReasonTooManyFailures}, err
	}
	authenticate := s.Authenticator.Authenticate
	if public {
		authenticate = s.Authenticator.AuthenticatePublic
	}
	client, err := authenticate(ctx, form, authorization)
	var ae *clients.AuthError
	switch {
	case errors.As(err, &ae):
		failed := authentication{clientID: ae.ClientID, reason: string(ae.Reason)}
		if err := s.countFailure(ctx, ae.ClientID); err != nil {
			return failed, err
		}
		if ae.Code == clients.InvalidRequest {
			return failed, badRequest(CodeInvalidRequest, ae.Description)
		}
		return failed, &Error{Kind: KindUnauthorized, Code: CodeInvalidClient,
			Description: ASCII(ae.Description), BasicChallenge: ae.BasicHeader}
	case err != nil:
		return authentication{clientID: claimedClientID(form, authorization)}, serverError(err)
	}
	return authentication{client: client, clientID: client.ID}, nil
}

// admitted runs the first steps of every audited endpoint (token,
// backchannel): the form's bounds, checked before anything reads the
// form, then the client's authentication.
func (s *Service) admitted(ctx context.Context, form url.Values, authorization string) (in issuance, client *clients.Client, err error) {
	in = issuance{at: s.now(), clientID: claimedClientID(form, authorization)}
	if err := checkForm(form); err != nil {
		in.reason = ReasonOversizedParameter
		return in, nil, err
	}
	a, err := s.authenticate(ctx, form, authorization)
	in.clientID, in.reason = a.clientID, a.reason
	return in, a.client, err
}
