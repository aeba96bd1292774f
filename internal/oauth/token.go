package oauth

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/typeward/typeward/internal/approval"
	"github.com/typeward/typeward/internal/audit"
	"github.com/typeward/typeward/internal/clients"
	"github.com/typeward/typeward/internal/composition"
	"github.com/typeward/typeward/internal/grading"
	"github.com/typeward/typeward/internal/registry"
	"github.com/typeward/typeward/internal/token"
	"github.com/typeward/typeward/internal/verdict"
	"github.com/typeward/typeward/verify"
)

// The grants typeward issues: client_credentials, and the CIBA grant that
// redeems a person's approval of a backchannel authentication request.
const (
	GrantTypeClientCredentials = clients.GrantClientCredentials
	GrantTypeCIBA              = clients.GrantCIBA
)

// TokenResponse is the RFC 6749 §5.1 success answer.
type TokenResponse struct {
	AccessToken          string                       `json:"access_token"`
	TokenType            string                       `json:"token_type"`
	ExpiresIn            int64                        `json:"expires_in"`
	Scope                string                       `json:"scope"`
	AuthorizationDetails []verify.AuthorizationDetail `json:"authorization_details,omitempty"`
	Warnings             []verdict.Issue              `json:"warnings,omitempty"`
}

// tokenRequest is the decoded form, before any decision.
type tokenRequest struct {
	grant    string
	authReq  string // auth_req_id of the CIBA grant
	resource string
	scopes   []string
	// details is the authorization_details parameter, parsed only when
	// its validation is not cached.
	details string
}

// Token runs the token endpoint for a request's form and Authorization
// header: authenticate, rate-limit, decode, check the audience and the
// scopes, validate the composition, mint. Every decision is audited and
// counted, failed authentications included, and a token is handed out
// only once its audit record is durable: one whose record failed is
// withheld, which is as if it had never been signed.
//
// The record is written even when the request's context ends first (its
// deadline passes, the client hangs up), but then the token is withheld
// and the log says so (audit.Undelivered), as it does for a token whose
// record failed when the store can still write it: the log never claims
// a token nobody received.
func (s *Service) Token(ctx context.Context, form url.Values, authorization string) (*TokenResponse, error) {
	rec := &audit.Issuance{Time: s.now()}
	resp, err := decide(form, authorization, rec, func() (*TokenResponse, error) {
		return s.issue(ctx, form, authorization, rec)
	})
	if notADecision(err) {
		s.count(rec, err)
		return nil, err
	}
	if aerr := s.Audit.Append(ctx, rec); aerr != nil {
		switch {
		case err == nil && errors.Is(aerr, audit.ErrRegistryChanged):
			// Validated against a registry that has moved on: withheld.
			// The next request validates afresh, once this replica has
			// heard the change.
			s.RegistryChanged()
			if s.RegistryBehind != nil {
				s.RegistryBehind(rec.RegistryGeneration)
			}
			resp, err = nil, registryChangedError(aerr)
			*rec = audit.RegistryChanged(*rec) // as the store records it
		case err == nil:
			resp, err = nil, serverError(fmt.Errorf("audit record of token %s: %w", rec.JTI, aerr))
			*rec = audit.Undelivered(*rec) // as the store records it
		default:
			s.logAuditFailure(ctx, rec, aerr)
		}
	}
	s.count(rec, err)
	return resp, err
}

// logAuditFailure logs a refusal's record that is not durable: buffered
// until the database answers (a warning, summarised: at most one line per
// BufferedLogInterval with the count), or lost (an error, every time).
func (s *Service) logAuditFailure(ctx context.Context, rec *audit.Issuance, err error) {
	switch {
	case s.Log == nil:
	case errors.Is(err, audit.ErrBuffered):
		s.buffered.note(ctx, s.Log, rec.ClientID, rec.Reason)
	case ctx.Err() != nil:
		// Written after the request ended; nothing is lost.
	default:
		s.Log.ErrorContext(ctx, "audit record of a refusal failed", "err", err, "client_id", rec.ClientID, "reason", rec.Reason)
	}
}

// decide runs a request of an endpoint that audits its refusals (token,
// backchannel) and settles rec with the outcome: the form's bounds are
// checked first, and whatever happens next (a failing store, a client
// hanging up) the record names the client the request named, clipped
// when no client could have such an id.
func decide[T any](form url.Values, authorization string, rec *audit.Issuance, run func() (T, error)) (T, error) {
	var resp T
	rec.ClientID = claimedClientID(form, authorization)
	err := checkForm(form)
	if err != nil {
		rec.Reason = ReasonOversizedParameter
	} else {
		resp, err = run()
	}
	if len(rec.ClientID) > clients.MaxClientIDLen {
		rec.ClientID = Clip(rec.ClientID, auditedValueBytes)
	}
	settle(rec, err)
	return resp, err
}

func (s *Service) issue(ctx context.Context, form url.Values, authorization string, rec *audit.Issuance) (*TokenResponse, error) {
	client, err := s.authenticate(ctx, form, authorization, rec)
	if err != nil {
		return nil, err
	}
	rec.ClientID = client.ID
	if err := s.allow(client.ID, "token requests"); err != nil {
		return nil, err
	}
	return s.token(ctx, client, form, rec)
}

// authenticate maps the Authenticator's verdict to an OAuth error; rec,
// when given, learns the claimed client and the precise reason.
func (s *Service) authenticate(ctx context.Context, form url.Values, authorization string, rec *audit.Issuance) (*clients.Client, error) {
	if err := s.addressBlocked(ctx); err != nil {
		if rec != nil {
			rec.ClientID, rec.Reason = claimedClientID(form, authorization), ReasonTooManyFailures
		}
		return nil, err
	}
	client, err := s.Authenticator.Authenticate(ctx, form, authorization)
	var ae *clients.AuthError
	switch {
	case errors.As(err, &ae):
		if rec != nil {
			rec.ClientID, rec.Reason = ae.ClientID, string(ae.Reason)
		}
		if err := s.countFailure(ctx, ae.ClientID); err != nil {
			return nil, err
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
	if !client.AllowsGrant(req.grant) {
		return nil, badRequest(CodeUnauthorizedClient, "this client is not registered for the "+req.grant+" grant")
	}
	if err := checkScopes(client, req.scopes); err != nil {
		return nil, err
	}
	if req.grant == GrantTypeCIBA {
		return s.cibaToken(ctx, client, req, rec)
	}
	if req.details == "" {
		return s.scopeToken(ctx, client, req, rec)
	}
	c, err := s.checkComposition(ctx, client, req.resource, req.details, rec)
	if err != nil {
		return nil, err
	}
	if approval.Needed(client.Approval, c.v.effects) {
		return nil, approvalRequired(s.Issuer, client, c.v)
	}
	return s.compositionToken(ctx, client, req.scopes, c, nil, rec)
}

// checked is a composition request that passed every check but the
// approval policy: its audience, validation and warnings.
type checked struct {
	audience string
	v        *validation
	warnings []verdict.Issue
}

// checkComposition checks the audience, validates the composition and
// checks the allow-list: every refusal is a 400 or a 403 with issues.
func (s *Service) checkComposition(ctx context.Context, client *clients.Client, resource, details string, rec *audit.Issuance) (*checked, error) {
	audience, err := s.audience(client, resource)
	if err != nil {
		return nil, err
	}
	v, issues, err := s.validated(ctx, client, details)
	if err != nil {
		refused := AsError(err).Issues // by the allow-list, before validation
		for _, is := range refused {
			rec.Tools, rec.IssueCodes = append(rec.Tools, is.SourceTool), append(rec.IssueCodes, is.Code)
		}
		rec.Issues, rec.IssuesDropped = audit.Issues(refused)
		return nil, err
	}
	rec.CompositionDigest, rec.Tools, rec.IssueCodes = v.result.Digest, v.tools, v.issueCodes
	if denied := s.allowListIssues(client, v.result.Tools); denied != nil {
		issues = append(slices.Clone(issues), denied...)
		rec.IssueCodes = slices.Clone(rec.IssueCodes)
		for _, is := range denied {
			rec.IssueCodes = append(rec.IssueCodes, is.Code)
		}
	}
	if grading.Refuses(issues) {
		// The log keeps what the client was shown, witnesses included.
		rec.Issues, rec.IssuesDropped = audit.Issues(issues)
		return nil, &Error{Kind: KindForbidden, Code: CodeInvalidAuthorizationDetails,
			Description: refusalDescription(issues, client.Validation.OrLenient()), Issues: issues}
	}
	return &checked{audience: audience, v: v, warnings: issues}, nil
}

// compositionToken mints the token of a checked composition, with the
// approval behind it when there was one.
func (s *Service) compositionToken(ctx context.Context, client *clients.Client, scopes []string, c *checked, approved *verify.Approval, rec *audit.Issuance) (*TokenResponse, error) {
	rec.Audience, rec.RegistryGeneration = c.audience, c.v.generation
	detail := c.v.detail
	detail.Approval = approved
	details := []verify.AuthorizationDetail{detail}
	resp, err := s.mint(ctx, token.Grant{ClientID: client.ID, Audience: c.audience, Scopes: scopes,
		Tools: c.v.tools, Details: details}, rec)
	if err != nil {
		return nil, err
	}
	resp.AuthorizationDetails = details
	resp.Warnings = c.warnings
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
		if len(client.AllowedAudiences) != 1 {
			return "", badRequest(CodeInvalidTarget, "resource is required: this client has several allowed audiences")
		}
		resource = client.AllowedAudiences[0]
	}
	if strings.TrimSuffix(resource, "/") == strings.TrimSuffix(s.Issuer, "/") {
		// Registration refuses it too; this covers clients made before,
		// or by a CLI that did not know the issuer, whether the resource
		// is named or is their one allowed audience.
		return "", badRequest(CodeInvalidTarget, "resource may not be this server's issuer")
	}
	if !client.AllowsAudience(resource) {
		return "", badRequest(CodeInvalidTarget, "resource is not an allowed audience of this client: "+truncate(resource, 128))
	}
	return resource, nil
}

// validated is the validation of the composition an authorization_details
// parameter asks for: from the cache when these exact bytes (or the
// stored definition they name) were validated since the last registry
// change. A composition naming a tool outside the client's allow-list is
// refused before it is validated, so it never costs a validation nor a
// cache entry. The cached validation is graded lenient; issues is its
// list graded under the client's validation mode, the one the request is
// judged by.
func (s *Service) validated(ctx context.Context, client *clients.Client, details string) (v *validation, issues []verdict.Issue, err error) {
	started, hit := time.Now(), true
	caches := s.caches()
	// Before anything is read: what is resolved from here on is at least
	// this current.
	registryGen := s.registryGeneration()
	gen := caches.inline.Generation()
	v, ok := caches.inline.Get(details)
	if !ok {
		cr, err := ParseAuthorizationDetails(details)
		if err != nil {
			return nil, nil, err
		}
		if cr.ID == "" {
			hit = false
			if v, err = s.validate(ctx, client, cr.Inline, caches.inline, details, gen, registryGen); err != nil {
				return nil, nil, err
			}
		} else {
			stored, err := s.Compositions.Composition(ctx, cr.ID)
			if errors.Is(err, registry.ErrNotFound) {
				return nil, nil, badRequest(CodeInvalidAuthorizationDetails, "no stored composition named "+truncate(cr.ID, 128))
			} else if err != nil {
				return nil, nil, serverError(err)
			}
			key := string(stored.Definition)
			gen = caches.stored.Generation()
			if v, ok = caches.stored.Get(key); !ok {
				hit = false
				if v, err = s.validate(ctx, client, stored.Definition, caches.stored, key, gen, registryGen); err != nil {
					return nil, nil, err
				}
			}
		}
	}
	issues = v.result.Under(client.Validation.OrLenient()).Issues
	if s.Metrics != nil {
		// Every decision counts, cached or not: a dashboard of validations
		// must not go quiet when the cache answers.
		cache := "hit"
		if !hit {
			cache = "miss"
		}
		s.Metrics.ValidationDuration.WithLabelValues(cache).Observe(time.Since(started).Seconds())
		s.Metrics.CompositionEdges.Observe(float64(v.edges))
		for _, is := range issues {
			s.Metrics.ValidationIssues.WithLabelValues(string(is.Severity), is.Code).Inc()
		}
	}
	return v, issues, nil
}

// validate parses doc, checks its tools against the client's allow-list,
// validates it, and caches the validation under key (read at generation
// gen) when it depends on nothing but doc and the registry.
func (s *Service) validate(ctx context.Context, client *clients.Client, doc []byte, cache *validationCache, key string, gen uint64, registryGen int64) (*validation, error) {
	c, err := composition.Parse(doc)
	if err != nil {
		return nil, badRequest(CodeInvalidAuthorizationDetails, truncate(err.Error(), 512))
	}
	if err := s.admitTools(ctx, client, c); err != nil {
		return nil, err
	}
	res, err := s.Validator.Validate(ctx, c)
	if err != nil {
		return nil, serverError(err)
	}
	v := newValidation(res)
	v.edges, v.generation = len(c.Edges), registryGen
	if v.effects, err = s.effects(ctx, v.tools); err != nil {
		return nil, err
	}
	if cacheable(c) {
		cache.PutAt(gen, key, v)
	}
	return v, nil
}

// admitTools refuses a composition whose nodes name a tool outside the
// client's allow-list, before any validation. Names that do not resolve
// are left to the validator, which reports them; tools reached through
// stored compositions are checked after validation (allowListIssues).
func (s *Service) admitTools(ctx context.Context, client *clients.Client, c *composition.Composition) error {
	if s.Tools == nil {
		return nil
	}
	var denied []composition.ToolRef
	seen := map[string]bool{}
	for _, n := range c.Nodes {
		if n.Tool == "" {
			continue
		}
		rt, err := s.Tools.ResolveTool(ctx, n.Tool, n.Version)
		if err != nil {
			if errors.Is(err, registry.ErrNotFound) || errors.Is(err, registry.ErrAmbiguous) {
				continue
			}
			return serverError(err)
		}
		if name := rt.QualifiedName(); !seen[name] && !client.AllowsTool(name) {
			seen[name] = true
			denied = append(denied, composition.ToolRef{Name: name, Version: rt.Version, Digest: rt.Digest})
		}
	}
	if len(denied) == 0 {
		return nil
	}
	issues := s.allowListIssues(client, denied)
	return &Error{Kind: KindForbidden, Code: CodeInvalidAuthorizationDetails,
		Description: refusalDescription(issues, grading.Lenient), Issues: issues} // no mode weighs an allow-list
}

func (s *Service) allowListIssues(client *clients.Client, tools []composition.ToolRef) []verdict.Issue {
	var issues []verdict.Issue
	for _, t := range tools {
		if !client.AllowsTool(t.Name) {
			issues = append(issues, verdict.Issue{Severity: verdict.SeverityError, Code: verdict.CodeToolNotAllowed,
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

// settle sets the outcome of a decision, and its reason unless the
// authenticator gave a more precise one.
func settle(rec *audit.Issuance, err error) {
	if err == nil {
		rec.Outcome, rec.Reason = audit.Issued, ""
		return
	}
	e := AsError(err)
	rec.Outcome = audit.Denied
	server := e.Kind == KindServer || e.Kind == KindUnavailable // a client hanging up is no server error
	if server {
		rec.Outcome = audit.Error
	}
	if rec.Reason == "" || server || e.Kind == KindCanceled {
		rec.Reason = e.Code
	}
}

// count counts one decision; the reason label is the OAuth error code, a
// bounded set.
func (s *Service) count(rec *audit.Issuance, err error) {
	if s.Metrics == nil {
		return
	}
	reason := "ok"
	if err != nil {
		reason = AsError(err).Code
	}
	s.Metrics.TokenRequests.WithLabelValues(string(rec.Outcome), reason).Inc()
	if err == nil {
		s.Metrics.TokensIssued.WithLabelValues(s.Metrics.ClientLabel(rec.ClientID)).Inc()
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
	case GrantTypeCIBA:
		// The request fixed everything else; only the id is read.
		req.grant = grant
		req.authReq, err = single(form, "auth_req_id")
		return req, err
	default:
		return req, badRequest(CodeUnsupportedGrantType, "only client_credentials and "+GrantTypeCIBA+" are supported")
	}
	req.grant = grant
	if req.resource, err = resourceParam(form, "token"); err != nil {
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

// refusalDescription summarises a refusal in ASCII; the issues say the
// rest. A strict refusal says so: the same composition may be issued to a
// lenient client.
func refusalDescription(issues []verdict.Issue, m grading.Mode) string {
	n := 0
	for _, i := range issues {
		if i.Severity == verdict.SeverityError {
			n++
		}
	}
	what := "the composition was refused"
	if m == grading.Strict {
		what += " under strict validation"
	}
	if n == 1 {
		return what + ": 1 error; see issues"
	}
	return fmt.Sprintf("%s: %d errors; see issues", what, n)
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
