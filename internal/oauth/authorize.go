package oauth

import (
	"context"
	"encoding/json"
	"errors"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/typeward/typeward/internal/approval"
	"github.com/typeward/typeward/internal/cimd"
	"github.com/typeward/typeward/internal/clients"
	"github.com/typeward/typeward/internal/grant"
	"github.com/typeward/typeward/internal/verdict"
	"github.com/typeward/typeward/verify"
)

// PathAuthorize is the authorization endpoint (OAuth 2.1 §4.1).
const PathAuthorize = "/oauth2/authorize"

// The scopes of the authorization endpoint besides a client's own.
const (
	ScopeOfflineAccess     = clients.ScopeOfflineAccess
	ScopeCompositionPrefix = clients.ScopeCompositionPrefix
)

// CodeLifetime is how long an authorization code may be redeemed.
const CodeLifetime = 60 * time.Second

// The error codes of an authorization response (RFC 6749 §4.1.2.1)
// besides those the token endpoint shares.
const (
	CodeUnsupportedResponseType = "unsupported_response_type"
)

// maxChallengeBytes bounds a code_challenge and a code_verifier (RFC
// 7636 §4.1: 43 to 128 characters).
const maxChallengeBytes = 128

// Authorization is a valid authorization request, ready for a person's
// consent: what the page shows and what the code will be for.
type Authorization struct {
	Client *clients.Client
	State  string
	// Audience is the resource the token will be for.
	Audience string
	// Scopes are the plain scopes asked (offline_access among them).
	Scopes []string
	// Details is the composition's authorization_details ("" when no
	// tool is asked for: a token that names none).
	Details string
	// Digest, Tools and Warnings are the validated composition's; Effects
	// what its tools may do.
	Digest   string
	Tools    []string
	Warnings []verdict.Issue
	Effects  []approval.Effect
	// Refusal, when set, is why the composition may not be consented to:
	// the page says so, with its issues.
	Refusal *Error
	// NeedsApprover: the client's approval policy sends this composition
	// to a person with the approver role.
	NeedsApprover bool
	// Refresh: redeeming the code starts a refresh family.
	Refresh bool

	redirectURI string // where the answer goes
	requested   string // the redirect_uri parameter ("" when omitted)
	challenge   string
	issuer      string
}

// Request is a as the consent page shows it.
func (a *Authorization) Request() *grant.Request {
	r := &grant.Request{Consent: grant.Consent{ClientID: a.Client.ID, Audience: a.Audience, Scopes: a.Scopes,
		Details: a.Details, Digest: a.Digest, Tools: a.Tools}, ClientName: a.Client.Name, ClientRedirects: a.Client.RedirectURIs,
		RedirectURI: a.redirectURI, Refresh: a.Refresh, Validation: a.Client.Validation.OrLenient(), NeedsApprover: a.NeedsApprover}
	if a.Refusal != nil {
		r.Refusal = &grant.Refusal{Description: a.Refusal.Description, Issues: a.Refusal.Issues}
	}
	return r
}

// The consent page's three calls (console.Authorizer), each on the
// request's query, checked in full every time.

// AuthorizationRequest checks q for the page: a *grant.RequestError is
// the client's fault, any other error the server's.
func (s *Service) AuthorizationRequest(ctx context.Context, q url.Values) (*grant.Request, error) {
	a, err := s.Authorize(ctx, q)
	if err != nil {
		return nil, err
	}
	return a.Request(), nil
}

// Approve is a person's Approve of q (see Consent): the redirect that
// carries the code.
func (s *Service) Approve(ctx context.Context, q url.Values, subject string, approver bool, shown string) (string, error) {
	a, err := s.Authorize(ctx, q)
	if err != nil {
		return "", err
	}
	return s.Consent(ctx, a, subject, approver, shown)
}

// Deny is a person's Deny of q: the redirect that says so.
func (s *Service) Deny(ctx context.Context, q url.Values) (string, error) {
	a, err := s.Authorize(ctx, q)
	if err != nil {
		return "", err
	}
	return a.Denied(), nil
}

// Authorize checks an authorization request (the query of GET
// /oauth2/authorize): the client and its redirect URI first, then the
// rest, then the composition, which is validated as at the token
// endpoint. A *grant.RequestError is the client's fault; any other
// error is the server's.
func (s *Service) Authorize(ctx context.Context, q url.Values) (*Authorization, error) {
	page := func(code, desc string) error {
		return &grant.RequestError{Code: code, Description: ASCII(desc)}
	}
	if len(q[clients.ParamClientID]) > 1 || len(q["redirect_uri"]) > 1 {
		return nil, page(CodeInvalidRequest, "client_id and redirect_uri may not be repeated")
	}
	id, requested := q.Get(clients.ParamClientID), q.Get("redirect_uri")
	if id == "" {
		return nil, page(CodeInvalidRequest, "client_id is required")
	}
	if len(id) > clients.MaxClientIDLen || len(requested) > 2<<10 {
		return nil, page(CodeInvalidRequest, "client_id or redirect_uri is too long")
	}
	client, err := s.Clients.Get(ctx, id)
	var refused *cimd.Error
	switch {
	case errors.As(err, &refused):
		// A metadata document typeward will not use: say why, to the person.
		return nil, page(CodeInvalidClient, truncate(refused.Error(), 400))
	case errors.Is(err, clients.ErrNotFound):
		return nil, page(CodeInvalidClient, "unknown client_id "+truncate(id, 128))
	case err != nil:
		return nil, serverError(err)
	case client.Disabled:
		return nil, page(CodeInvalidClient, "this client is disabled")
	case len(client.RedirectURIs) == 0:
		return nil, page(CodeUnauthorizedClient, "this client has no redirect URIs: it is not registered for the authorization code grant")
	}
	redirect := requested
	switch {
	case requested == "" && len(client.RedirectURIs) == 1:
		redirect = client.RedirectURIs[0]
	case requested == "":
		return nil, page(CodeInvalidRequest, "redirect_uri is required: this client has several")
	case !clients.MatchRedirectURI(client.RedirectURIs, requested):
		return nil, page(CodeInvalidRequest, "redirect_uri is not one of this client's registered redirect URIs")
	}

	// From here on an error goes back to the client.
	state := ""
	if vs := q["state"]; len(vs) == 1 && len(vs[0]) <= maxOtherParamSize {
		state = vs[0] // never an oversized one: that is the error
	}
	back := func(e *Error) error { return refusal(redirect, state, s.Issuer, e) }
	// Each request may validate a composition for anyone who knows a
	// client id: the requests of one client are limited, in a bucket of
	// their own (a flood of them never spends the client's tokens).
	if err := s.allowCall("authorization", client); err != nil {
		return nil, back(AsError(err))
	}
	if err := checkForm(q); err != nil {
		return nil, back(AsError(err))
	}
	for name, vs := range q {
		if len(vs) > 1 {
			return nil, back(badRequest(CodeInvalidRequest, "parameter "+truncate(name, 64)+" is repeated"))
		}
	}
	switch rt := q.Get("response_type"); rt {
	case "code":
	case "":
		return nil, back(badRequest(CodeInvalidRequest, "response_type is required"))
	default:
		return nil, back(badRequest(CodeUnsupportedResponseType, "only response_type=code is supported"))
	}
	if !client.AllowsGrant(clients.GrantAuthorizationCode) {
		return nil, back(badRequest(CodeUnauthorizedClient, "this client is not registered for the authorization_code grant"))
	}
	challenge := q.Get("code_challenge")
	switch method := q.Get("code_challenge_method"); {
	case challenge == "":
		return nil, back(badRequest(CodeInvalidRequest, "code_challenge is required (PKCE, S256)"))
	case method != "S256":
		return nil, back(badRequest(CodeInvalidRequest, "code_challenge_method must be S256"))
	case !validChallenge(challenge):
		return nil, back(badRequest(CodeInvalidRequest, "code_challenge must be the base64url SHA-256 of the verifier (43 characters)"))
	}
	a := &Authorization{Client: client, State: state, redirectURI: redirect, requested: requested, challenge: challenge, issuer: s.Issuer}
	if err := s.authorizeScope(ctx, a, q); err != nil {
		return nil, back(AsError(err))
	}
	return a, nil
}

// validChallenge accepts an S256 challenge: 43 base64url characters.
func validChallenge(c string) bool {
	if len(c) != 43 {
		return false
	}
	for _, r := range c {
		if !(r >= 'A' && r <= 'Z' || r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-' || r == '_') {
			return false
		}
	}
	return true
}

// authorizeScope reads what the host asks for (authorization_details, or
// scopes naming a stored composition or tools, or nothing: the client's
// registered scope, if any), the resource,
// and validates the composition as the token endpoint would. A
// composition that does not validate is kept as the Refusal: the page
// says why and offers no consent.
func (s *Service) authorizeScope(ctx context.Context, a *Authorization, q url.Values) error {
	resource, err := resourceParam(q, "request")
	if err != nil {
		return err
	}
	details, scope := q.Get("authorization_details"), q.Get("scope")
	if details == "" && scope == "" {
		// Nothing asked: what the client registered (RFC 7591 scope), else
		// a token naming no tool.
		scope = strings.Join(a.Client.Scope, " ")
	}
	var compositions, toolNames []string
	for _, sc := range strings.Fields(scope) {
		switch {
		case sc == ScopeOfflineAccess:
			a.Refresh = true
			a.Scopes = appendUnique(a.Scopes, sc)
		case strings.HasPrefix(sc, ScopeCompositionPrefix):
			if name := strings.TrimPrefix(sc, ScopeCompositionPrefix); name != "" && !slices.Contains(compositions, name) {
				compositions = append(compositions, name)
			}
		case strings.HasPrefix(sc, verify.ToolScopePrefix):
			if name := strings.TrimPrefix(sc, verify.ToolScopePrefix); name != "" && !slices.Contains(toolNames, name) {
				toolNames = append(toolNames, name)
			}
		case a.Client.AllowsScope(sc):
			a.Scopes = appendUnique(a.Scopes, sc)
		default:
			return badRequest(CodeInvalidScope, "scope not allowed for this client: "+truncate(sc, 128))
		}
	}
	if slices.Contains(a.Client.GrantTypes, clients.GrantRefreshToken) {
		a.Refresh = true
	}
	byScope := len(compositions)+len(toolNames) > 0
	switch {
	case details != "" && byScope:
		return badRequest(CodeInvalidRequest, "ask for a composition either by authorization_details or by mcp:composition and mcp:tool scopes, not both")
	case len(compositions) == 1 && len(toolNames) == 0:
		// The stored composition itself: the digest a client-credentials
		// request for it gets.
		details = compositionIDDetails(compositions[0])
	case byScope:
		// What a host asks for from a router's scopes_supported: every
		// stored composition and tool named, side by side.
		details = scopeDetails(compositions, toolNames)
	}
	a.Details = details
	if a.Audience, err = s.audience(a.Client, resource); err != nil || details == "" {
		return err // with no details, a token naming no tool: the audience alone is checked
	}
	c, err := s.checkComposition(ctx, a.Client, a.Audience, details)
	if err != nil {
		e := AsError(err)
		if e.Kind == KindBadRequest && byScope && e.Code == CodeInvalidAuthorizationDetails {
			return badRequest(CodeInvalidScope, "the scope's composition: "+e.Description)
		}
		if e.Kind != KindForbidden {
			return err
		}
		a.Refusal = e
		return nil
	}
	a.Audience, a.Digest, a.Tools, a.Warnings, a.Effects = c.audience, c.v.result.Digest, c.v.tools, c.issues, c.v.effects
	a.NeedsApprover = approval.Needed(a.Client.Approval, c.v.effects)
	return nil
}

func appendUnique(list []string, s string) []string {
	if slices.Contains(list, s) {
		return list
	}
	return append(list, s)
}

// compositionIDDetails is the authorization_details of a stored
// composition's name.
func compositionIDDetails(name string) string {
	b, _ := json.Marshal([]map[string]string{{"type": verify.DetailType, "composition_id": name}})
	return string(b)
}

// scopeDetails is the authorization_details of stored compositions and
// tools without edges between them, each a node named as the scope names
// it (a composition's own nodes are flattened under its name).
func scopeDetails(compositions, tools []string) string {
	type node struct {
		ID          string `json:"id"`
		Tool        string `json:"tool,omitempty"`
		Composition string `json:"composition,omitempty"`
	}
	var nodes []node
	for _, c := range compositions {
		nodes = append(nodes, node{ID: c, Composition: c})
	}
	for _, t := range tools {
		nodes = append(nodes, node{ID: t, Tool: t})
	}
	b, _ := json.Marshal([]map[string]any{{"type": verify.DetailType, "composition": map[string]any{"nodes": nodes, "edges": []any{}}}})
	return string(b)
}

// Consent is a person's Approve of a, checked again just now (Authorize
// ran on the same request): shown is the digest the page showed,
// approver whether the person has the approver role. It stores a code
// bound to the client, redirect URI, challenge, audience and composition
// and returns the redirect that carries it.
func (s *Service) Consent(ctx context.Context, a *Authorization, subject string, approver bool, shown string) (string, error) {
	switch {
	case a.Refusal != nil:
		return "", grant.ErrNotConsentable
	case a.Digest != shown:
		return "", grant.ErrConsentStale
	case a.NeedsApprover && !approver:
		return "", grant.ErrNeedsApprover
	}
	if s.Grants.Store == nil {
		return "", serverError(errors.New("no grant store"))
	}
	code, hash := grant.NewSecret()
	now := s.now()
	c := &grant.Code{Hash: hash, Consent: grant.Consent{ClientID: a.Client.ID, Subject: subject, Audience: a.Audience,
		Scopes: a.Scopes, Details: a.Details, Digest: a.Digest, Tools: a.Tools, ConsentedAt: now},
		RedirectURI: a.requested, Challenge: a.challenge, Refresh: a.Refresh, CreatedAt: now, ExpiresAt: now.Add(CodeLifetime)}
	if err := s.Grants.Store.CreateCode(ctx, c); err != nil {
		return "", refusal(a.redirectURI, a.State, a.issuer, serverError(err))
	}
	return a.answer(url.Values{"code": {code}}), nil
}

// refusal is the answer to a request whose client and redirect URI were
// checked: the redirect with the error (RFC 6749 §4.1.2.1), the server's
// own failures too, as server_error or temporarily_unavailable, their
// cause kept to be logged. Only a request the browser gave up on is not
// answered.
func refusal(redirect, state, issuer string, e *Error) error {
	if e.Kind == KindCanceled {
		return e
	}
	code := e.Code
	if e.Kind == KindRateLimited {
		code = CodeTemporarilyUnavailable // RFC 6749 §4.1.2.1's word for it
	}
	p := url.Values{"error": {code}, "error_description": {e.Description}}
	re := &grant.RequestError{Code: code, Description: e.Description, Redirect: authorizationResponse(redirect, state, issuer, p)}
	if e.Kind == KindServer || e.Kind == KindUnavailable {
		re.Cause = e
	}
	return re
}

// Denied is the redirect of a person's Deny.
func (a *Authorization) Denied() string {
	return a.answer(url.Values{"error": {CodeAccessDenied}, "error_description": {"the person denied the request"}})
}

// answer is the redirect URI with the response's parameters, state and
// iss (RFC 9207) added to its query, the registered query kept as it is.
func (a *Authorization) answer(params url.Values) string {
	return authorizationResponse(a.redirectURI, a.State, a.issuer, params)
}

func authorizationResponse(redirect, state, issuer string, params url.Values) string {
	if state != "" {
		params.Set("state", state)
	}
	params.Set("iss", issuer)
	sep := "?"
	if strings.Contains(redirect, "?") {
		sep = "&"
		if strings.HasSuffix(redirect, "?") || strings.HasSuffix(redirect, "&") {
			sep = ""
		}
	}
	return redirect + sep + params.Encode()
}
