package oauth

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/typeward/typeward/internal/audit"
	"github.com/typeward/typeward/internal/clients"
	"github.com/typeward/typeward/internal/compat"
	"github.com/typeward/typeward/internal/composition"
	"github.com/typeward/typeward/internal/registry"
	"github.com/typeward/typeward/internal/token"
	"github.com/typeward/typeward/verify"
)

// GrantTypeClientCredentials is the one grant typeward issues.
const GrantTypeClientCredentials = "client_credentials"

// TokenResponse is the RFC 6749 §5.1 success answer.
type TokenResponse struct {
	AccessToken          string                       `json:"access_token"`
	TokenType            string                       `json:"token_type"`
	ExpiresIn            int64                        `json:"expires_in"`
	Scope                string                       `json:"scope"`
	AuthorizationDetails []verify.AuthorizationDetail `json:"authorization_details,omitempty"`
	Warnings             []compat.Issue               `json:"warnings,omitempty"`
}

// tokenRequest is the decoded form, before any decision.
type tokenRequest struct {
	resource    string
	scopes      []string
	composition *CompositionRequest
}

// Token runs the token endpoint for a request's form and Authorization
// header: authenticate, rate-limit, decode, check the audience and the
// scopes, validate the composition, mint. Every decision is audited and
// counted, failed authentications included.
func (s *Service) Token(ctx context.Context, form url.Values, authorization string) (*TokenResponse, error) {
	rec := &audit.Issuance{Time: s.now()}
	resp, err := s.issue(ctx, form, authorization, rec)
	s.decided(ctx, rec, err)
	return resp, err
}

func (s *Service) issue(ctx context.Context, form url.Values, authorization string, rec *audit.Issuance) (*TokenResponse, error) {
	client, err := s.authenticate(ctx, form, authorization, rec)
	if err != nil {
		return nil, err
	}
	rec.ClientID = client.ID
	if s.Limiter != nil {
		if ok, wait := s.Limiter.Allow(client.ID); !ok {
			return nil, &Error{Kind: KindRateLimited, Code: CodeRateLimited,
				Description: "too many token requests; retry later", RetryAfter: wait}
		}
	}
	return s.token(ctx, client, form, rec)
}

// authenticate maps the Authenticator's verdict to an OAuth error; rec,
// when given, learns the claimed client and the precise reason.
func (s *Service) authenticate(ctx context.Context, form url.Values, authorization string, rec *audit.Issuance) (*clients.Client, error) {
	client, err := s.Authenticator.Authenticate(ctx, form, authorization)
	var ae *clients.AuthError
	switch {
	case errors.As(err, &ae):
		if rec != nil {
			rec.ClientID, rec.Reason = ae.ClientID, string(ae.Reason)
		}
		if ae.Code == clients.InvalidRequest {
			return nil, badRequest(CodeInvalidRequest, ae.Description)
		}
		return nil, &Error{Kind: KindUnauthorized, Code: CodeInvalidClient,
			Description: ASCII(ae.Description), BasicChallenge: ae.BasicHeader}
	case err != nil:
		return nil, serverError(err)
	}
	return client, nil
}

func (s *Service) token(ctx context.Context, client *clients.Client, form url.Values, rec *audit.Issuance) (*TokenResponse, error) {
	req, err := decodeTokenRequest(form)
	if err != nil {
		return nil, err
	}
	for _, sc := range req.scopes {
		if strings.HasPrefix(sc, verify.ToolScopePrefix) {
			// Tool scopes exist only as the result of a validation.
			return nil, badRequest(CodeInvalidScope, "tool scopes come from authorization_details, not from scope: "+truncate(sc, 128))
		}
		if !client.AllowsScope(sc) {
			return nil, badRequest(CodeInvalidScope, "scope not allowed for this client: "+truncate(sc, 128))
		}
	}

	if req.composition == nil {
		return s.scopeToken(ctx, client, req, rec)
	}
	audience, err := s.audience(client, req.resource)
	if err != nil {
		return nil, err
	}
	doc := req.composition.Inline
	if req.composition.ID != "" {
		stored, err := s.Compositions.Composition(ctx, req.composition.ID)
		if errors.Is(err, registry.ErrNotFound) {
			return nil, badRequest(CodeInvalidAuthorizationDetails, "no stored composition named "+truncate(req.composition.ID, 128))
		} else if err != nil {
			return nil, serverError(err)
		}
		doc = stored.Definition
	}
	v, err := s.validate(ctx, doc)
	if err != nil {
		return nil, err
	}
	rec.CompositionDigest = v.Digest
	for _, t := range v.Tools {
		rec.Tools = append(rec.Tools, t.Name)
	}
	issues := append(slices.Clone(v.Issues), s.allowListIssues(client, v.Tools)...)
	for _, is := range issues {
		rec.IssueCodes = append(rec.IssueCodes, is.Code)
	}
	if hasError(issues) {
		return nil, &Error{Kind: KindForbidden, Code: CodeInvalidAuthorizationDetails,
			Description: refusalDescription(issues), Issues: issues}
	}

	rec.Audience = audience
	grant := token.Grant{ClientID: client.ID, Audience: audience, Scopes: req.scopes,
		Details: []verify.AuthorizationDetail{enrich(v)}}
	for _, t := range v.Tools {
		if !slices.Contains(grant.Tools, t.Name) {
			grant.Tools = append(grant.Tools, t.Name)
		}
	}
	resp, err := s.mint(ctx, grant, rec)
	if err != nil {
		return nil, err
	}
	resp.AuthorizationDetails = grant.Details
	resp.Warnings = issues
	return resp, nil
}

// scopeToken answers a request without authorization_details: only
// explicit scopes the client is allowed, never an empty token.
func (s *Service) scopeToken(ctx context.Context, client *clients.Client, req tokenRequest, d *audit.Issuance) (*TokenResponse, error) {
	if len(req.scopes) == 0 {
		return nil, badRequest(CodeInvalidRequest, "authorization_details with one mcp_composition is required (or a scope this client is allowed)")
	}
	audience := s.Issuer
	if req.resource != "" {
		var err error
		if audience, err = s.audience(client, req.resource); err != nil {
			return nil, err
		}
	}
	d.Audience = audience
	return s.mint(ctx, token.Grant{ClientID: client.ID, Audience: audience, Scopes: req.scopes}, d)
}

// audience checks the resource against the client's allowed audiences. A
// client with exactly one allowed audience may omit resource.
func (s *Service) audience(client *clients.Client, resource string) (string, error) {
	if resource == "" {
		if len(client.AllowedAudiences) == 1 {
			return client.AllowedAudiences[0], nil
		}
		return "", badRequest(CodeInvalidTarget, "resource is required: this client has several allowed audiences")
	}
	if !client.AllowsAudience(resource) {
		return "", badRequest(CodeInvalidTarget, "resource is not an allowed audience of this client: "+truncate(resource, 128))
	}
	return resource, nil
}

func (s *Service) validate(ctx context.Context, doc json.RawMessage) (*composition.Result, error) {
	res, gen := s.validations.get(doc)
	if res == nil {
		started := time.Now()
		c, err := composition.Parse(doc)
		if err != nil {
			return nil, badRequest(CodeInvalidAuthorizationDetails, truncate(err.Error(), 512))
		}
		if res, err = s.Validator.Validate(ctx, c); err != nil {
			return nil, serverError(err)
		}
		if s.Metrics != nil {
			s.Metrics.ValidationDuration.Observe(time.Since(started).Seconds())
			s.Metrics.CompositionEdges.Observe(float64(len(c.Edges)))
		}
		if cacheable(c) {
			s.validations.put(doc, res, gen)
		}
	}
	if s.Metrics != nil {
		for _, is := range res.Issues {
			s.Metrics.ValidationIssues.WithLabelValues(string(is.Severity), is.Code).Inc()
		}
	}
	return res, nil
}

// CodeToolNotAllowed is the issue of a tool outside the client's allow-list.
const CodeToolNotAllowed = "tool_not_allowed"

func (s *Service) allowListIssues(client *clients.Client, tools []composition.ToolRef) []compat.Issue {
	var issues []compat.Issue
	for _, t := range tools {
		if !client.AllowsTool(t.Name) {
			issues = append(issues, compat.Issue{Severity: compat.SeverityError, Code: CodeToolNotAllowed,
				SourceTool: t.Name, Message: fmt.Sprintf("tool %s is not in the allow-list of client %s", t.Name, client.ID)})
		}
	}
	return issues
}

func (s *Service) mint(_ context.Context, g token.Grant, rec *audit.Issuance) (*TokenResponse, error) {
	m, err := s.Minter.Mint(g)
	if err != nil {
		return nil, serverError(err)
	}
	rec.JTI = m.Claims.ID
	expiresIn := int64(m.Claims.ExpiresAt.Sub(m.Claims.IssuedAt) / time.Second)
	return &TokenResponse{AccessToken: m.Token, TokenType: "Bearer", ExpiresIn: expiresIn,
		Scope: strings.Join(m.Claims.Scope, " ")}, nil
}

// decided audits and counts one decision. A failure to audit an issued
// token is logged: the token is already signed, and refusing it then would
// not unsign it.
func (s *Service) decided(ctx context.Context, rec *audit.Issuance, err error) {
	rec.Outcome = audit.Issued
	reason := "ok"
	if err != nil {
		e := AsError(err)
		rec.Outcome, reason = audit.Denied, e.Code
		if e.Kind == KindServer {
			rec.Outcome = audit.Error
		}
		if rec.Reason == "" {
			rec.Reason = e.Code
		}
	}
	if s.Metrics != nil {
		s.Metrics.TokenRequests.WithLabelValues(string(rec.Outcome), reason).Inc()
		if err == nil {
			s.Metrics.TokensIssued.WithLabelValues(s.Metrics.ClientLabel(rec.ClientID)).Inc()
		}
	}
	if s.Audit == nil {
		return
	}
	if aerr := s.Audit.Append(context.WithoutCancel(ctx), rec); aerr != nil && s.Log != nil {
		s.Log.ErrorContext(ctx, "audit record failed", "err", aerr, "client_id", rec.ClientID, "outcome", rec.Outcome, "jti", rec.JTI)
	}
}

func decodeTokenRequest(form url.Values) (tokenRequest, error) {
	var req tokenRequest
	grant, err := single(form, "grant_type")
	if err != nil {
		return req, err
	}
	switch grant {
	case "":
		return req, badRequest(CodeInvalidRequest, "grant_type is required")
	case GrantTypeClientCredentials:
	default:
		return req, badRequest(CodeUnsupportedGrantType, "only client_credentials is supported")
	}
	if len(form["resource"]) > 1 {
		return req, badRequest(CodeInvalidTarget, "one resource per token")
	}
	req.resource = form.Get("resource")
	if req.resource != "" {
		if u, err := url.Parse(req.resource); err != nil || !u.IsAbs() || u.Fragment != "" {
			return req, badRequest(CodeInvalidTarget, "resource must be an absolute URI without a fragment")
		}
	}
	scope, err := single(form, "scope")
	if err != nil {
		return req, err
	}
	req.scopes = strings.Fields(scope)
	details, err := single(form, "authorization_details")
	if err != nil {
		return req, err
	}
	if details != "" {
		cr, err := ParseAuthorizationDetails(details)
		if err != nil {
			return req, err
		}
		req.composition = &cr
	}
	return req, nil
}

func hasError(issues []compat.Issue) bool {
	return slices.ContainsFunc(issues, func(i compat.Issue) bool { return i.Severity == compat.SeverityError })
}

// refusalDescription summarises a refusal in ASCII; the issues say the rest.
func refusalDescription(issues []compat.Issue) string {
	n := 0
	for _, i := range issues {
		if i.Severity == compat.SeverityError {
			n++
		}
	}
	if n == 1 {
		return "the composition was refused: 1 error; see issues"
	}
	return fmt.Sprintf("the composition was refused: %d errors; see issues", n)
}
