package oauth

import (
	"context"
	"net/url"
	"strings"
	"time"

	"github.com/typeward/typeward/internal/approval"
	"github.com/typeward/typeward/internal/clients"
	"github.com/typeward/typeward/internal/grant"
	"github.com/typeward/typeward/internal/token"
	"github.com/typeward/typeward/verify"
)

// The grants typeward issues: client_credentials, and the CIBA grant that
// redeems a person's approval of a backchannel authentication request.
const (
	GrantTypeClientCredentials = clients.GrantClientCredentials
	GrantTypeCIBA              = clients.GrantCIBA
)

// authorized is what a grant authorizes, the one value every grant
// produces and the token is minted from: an audience, scopes, and the
// checked composition with the person's approval behind it, if any. A
// refusing grant returns what it had established with its error, for the
// audit record.
type authorized struct {
	audience string
	scopes   []string
	check    checked // zero for a token of scopes alone
	// pending is the approval request a CIBA redemption is for, and
	// approval the person's decision the token carries.
	pending  *approval.Request
	approval *verify.Approval
	// consent is the person's consent an authorization code or a refresh
	// token redeems, consentID names that code or family in the audit
	// log, and refreshToken is the next refresh token to answer.
	consent      *grant.Consent
	consentID    string
	refreshToken string
	// family is the refresh family a code opens (bindsFamily) or a
	// refresh token belongs to, bound to a DPoP key by bindKey.
	family      *grant.Family
	bindsFamily bool
	// redeem, when set, is the grant's one use of what it authorized (an
	// approval request, a code, a refresh token), made with the minted
	// token's id and expiry: it fails when another request used it first,
	// and the token is then discarded.
	redeem func(ctx context.Context, jti string, expires time.Time) error
}

// A grant decodes its own parameters and authorizes the request of an
// authenticated client.
type grantFunc func(s *Service, ctx context.Context, client *clients.Client, form url.Values) (authorized, error)

// grants are the grant types the token endpoint answers.
var grants = map[string]grantFunc{
	GrantTypeClientCredentials:     (*Service).clientCredentials,
	GrantTypeCIBA:                  (*Service).ciba,
	clients.GrantAuthorizationCode: (*Service).authorizationCode,
	clients.GrantRefreshToken:      (*Service).refresh,
}

// grantOf is the grant a request's grant_type names, if the client is
// registered for it.
func grantOf(client *clients.Client, form url.Values) (grantFunc, error) {
	name, err := single(form, "grant_type")
	if err != nil {
		return nil, err
	}
	if name == "" {
		return nil, badRequest(CodeInvalidRequest, "grant_type is required")
	}
	g, ok := grants[name]
	if !ok {
		return nil, badRequest(CodeUnsupportedGrantType, "only "+strings.Join(clients.GrantTypes(), ", ")+" are supported")
	}
	if !client.AllowsGrant(name) {
		return nil, badRequest(CodeUnauthorizedClient, "this client is not registered for the "+name+" grant")
	}
	return g, nil
}

// tokenGrant is what the token says of an authorized request.
func (a *authorized) tokenGrant(clientID string) token.Grant {
	g := token.Grant{ClientID: clientID, Audience: a.audience, Scopes: a.scopes}
	if a.consent != nil {
		g.Subject = a.consent.Subject // the person the host acts for
	}
	if v := a.check.v; v != nil {
		detail := v.detail
		detail.Approval = a.approval
		g.Tools, g.Details = v.tools, []verify.AuthorizationDetail{detail}
	}
	return g
}

// compositionRequest is what a client asks for at the token and the
// backchannel endpoints.
type compositionRequest struct {
	resource string
	scopes   []string
	// details is the authorization_details parameter, parsed only when
	// its validation is not cached.
	details string
}

// clientCredentials authorizes the client's own request: the composition
// it names, validated, unless its approval policy sends it to a person;
// or, without one, scopes alone.
func (s *Service) clientCredentials(ctx context.Context, client *clients.Client, form url.Values) (authorized, error) {
	req, err := decodeCompositionRequest(form, "token")
	if err != nil {
		return authorized{}, err
	}
	if err := checkScopes(client, req.scopes); err != nil {
		return authorized{}, err
	}
	if req.details == "" {
		return s.scopesOnly(client, req)
	}
	c, err := s.checkComposition(ctx, client, req.resource, req.details)
	a := authorized{audience: c.audience, scopes: req.scopes, check: c}
	if err != nil {
		return a, err
	}
	if approval.Needed(client.Approval, c.v.effects) {
		return a, approvalRequired(s.Issuer, client, c.v)
	}
	return a, nil
}

// scopesOnly authorizes a request without authorization_details: only
// explicit scopes the client is allowed, never an empty token.
func (s *Service) scopesOnly(client *clients.Client, req compositionRequest) (authorized, error) {
	if len(req.scopes) == 0 {
		return authorized{}, badRequest(CodeInvalidRequest, "authorization_details with one mcp_composition is required (or a scope this client is allowed)")
	}
	audience := s.Issuer
	if req.resource != "" {
		var err error
		if audience, err = s.audience(client, req.resource); err != nil {
			return authorized{}, err
		}
	}
	return authorized{audience: audience, scopes: req.scopes}, nil
}

// decodeCompositionRequest reads resource, scope and
// authorization_details; per names what a resource is one of.
func decodeCompositionRequest(form url.Values, per string) (compositionRequest, error) {
	var req compositionRequest
	var err error
	if req.resource, err = resourceParam(form, per); err != nil {
		return req, err
	}
	scope, err := single(form, "scope")
	if err != nil {
		return req, err
	}
	req.scopes = strings.Fields(scope)
	req.details, err = single(form, "authorization_details")
	return req, err
}

// checkScopes refuses tool scopes and scopes the client is not allowed
// (clients.AllowsScope, narrowings among them).
func checkScopes(client *clients.Client, scopes []string) error {
	for _, sc := range scopes {
		if strings.HasPrefix(sc, verify.ToolScopePrefix) {
			// Tool scopes exist only as the result of a validation.
			return badRequest(CodeInvalidScope, "tool scopes come from authorization_details, not from scope: "+truncate(sc, 128))
		}
		if !client.AllowsScope(sc) {
			return badRequest(CodeInvalidScope, "scope not allowed for this client: "+truncate(sc, 128))
		}
	}
	return nil
}

// resourceParam reads the RFC 8707 resource: at most one, an absolute URI
// without a fragment; per names what it is one of ("token", "request").
func resourceParam(form url.Values, per string) (string, error) {
	if len(form["resource"]) > 1 {
		return "", badRequest(CodeInvalidTarget, "one resource per "+per)
	}
	r := form.Get("resource")
	if r != "" {
		if u, err := url.Parse(r); err != nil || !u.IsAbs() || u.Fragment != "" {
			return "", badRequest(CodeInvalidTarget, "resource must be an absolute URI without a fragment")
		}
	}
	return r, nil
}
