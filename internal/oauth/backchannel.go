package oauth

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/typeward/typeward/internal/approval"
	"github.com/typeward/typeward/internal/audit"
	"github.com/typeward/typeward/internal/clients"
	"github.com/typeward/typeward/internal/verdict"
	"github.com/typeward/typeward/verify"
)

// The token endpoint's answers to a CIBA grant (OpenID CIBA Core §11,
// RFC 8628 §3.5), and the answer to a grant it does not recognise.
const (
	CodeAuthorizationPending = "authorization_pending"
	CodeSlowDown             = "slow_down"
	CodeAccessDenied         = "access_denied"
	CodeExpiredToken         = "expired_token"
	CodeInvalidGrant         = "invalid_grant"
)

// maxAuthReqIDBytes bounds an auth_req_id before any lookup; typeward's
// are 43 characters.
const maxAuthReqIDBytes = 128

// Backchannel configures the backchannel authentication endpoint. A nil
// Store turns the endpoint and the CIBA grant off; zero durations and
// counts take the approval package's defaults.
type Backchannel struct {
	Store      approval.Store
	Interval   time.Duration
	MinExpiry  time.Duration
	MaxExpiry  time.Duration
	MaxPending int
}

func (b Backchannel) interval() time.Duration  { return cmpOr(b.Interval, approval.DefaultInterval) }
func (b Backchannel) minExpiry() time.Duration { return cmpOr(b.MinExpiry, approval.MinExpiry) }
func (b Backchannel) maxExpiry() time.Duration { return cmpOr(b.MaxExpiry, approval.MaxExpiry) }
func (b Backchannel) maxPending() int {
	if b.MaxPending > 0 {
		return b.MaxPending
	}
	return approval.DefaultMaxPending
}

func cmpOr(d, def time.Duration) time.Duration {
	if d > 0 {
		return d
	}
	return def
}

// BackchannelResponse is the successful authentication request answer
// (CIBA §7.3).
type BackchannelResponse struct {
	AuthReqID string `json:"auth_req_id"`
	ExpiresIn int64  `json:"expires_in"`
	Interval  int64  `json:"interval"`
}

// BackchannelAuthorize runs the backchannel authentication endpoint:
// authenticate the client as at the token endpoint, check and validate
// the composition exactly as a token request would, and store a pending
// request for a person to decide. Refusals are audited like the token
// endpoint's; an accepted request is not a token decision, so it is not.
func (s *Service) BackchannelAuthorize(ctx context.Context, form url.Values, authorization string) (*BackchannelResponse, error) {
	rec := &audit.Issuance{Time: s.now()}
	resp, err := decide(form, authorization, rec, func() (*BackchannelResponse, error) {
		return s.backchannelRequest(ctx, form, authorization, rec)
	})
	if err != nil {
		ctx := context.WithoutCancel(ctx) // the refusal is recorded even if the client hung up
		if aerr := s.Audit.Append(ctx, rec); aerr != nil {
			s.logAuditFailure(ctx, rec, aerr)
		}
		s.count(rec, err)
	}
	return resp, err
}

func (s *Service) backchannelRequest(ctx context.Context, form url.Values, authorization string, rec *audit.Issuance) (*BackchannelResponse, error) {
	client, err := s.authenticate(ctx, form, authorization, rec)
	if err != nil {
		return nil, err
	}
	rec.ClientID = client.ID
	if s.Backchannel.Store == nil {
		return nil, badRequest(CodeInvalidRequest, "this server has no backchannel authentication")
	}
	if err := s.allow(client.ID, "requests"); err != nil {
		return nil, err
	}
	req, err := s.decodeBackchannel(form)
	if err != nil {
		return nil, err
	}
	if err := checkScopes(client, req.scopes); err != nil {
		return nil, err
	}
	if req.details == "" {
		return nil, badRequest(CodeInvalidRequest, "authorization_details with one mcp_composition is required")
	}
	c, err := s.checkComposition(ctx, client, req.resource, req.details, rec)
	if err != nil {
		return nil, err
	}
	now := s.now()
	r := &approval.Request{
		ID: approval.NewID(), ClientID: client.ID, Audience: c.audience, Scopes: req.scopes, Details: req.details,
		Digest: c.v.result.Digest, Tools: c.v.tools, BindingMessage: req.bindingMessage,
		CreatedAt: now, ExpiresAt: now.Add(req.expiry), Interval: s.Backchannel.interval(),
	}
	if err := s.Backchannel.Store.Create(ctx, r, s.Backchannel.maxPending()); errors.Is(err, approval.ErrTooMany) {
		return nil, &Error{Kind: KindRateLimited, Code: CodeRateLimited, RetryAfter: s.Backchannel.interval(),
			Description: fmt.Sprintf("this client already has %d requests waiting for a person", s.Backchannel.maxPending())}
	} else if err != nil {
		return nil, serverError(err)
	}
	return &BackchannelResponse{AuthReqID: r.ID, ExpiresIn: int64(req.expiry / time.Second),
		Interval: int64((r.Interval + time.Second - 1) / time.Second)}, nil
}

type backchannelRequest struct {
	tokenRequest
	bindingMessage string
	expiry         time.Duration
}

// decodeBackchannel reads the authentication request. login_hint and its
// kin are accepted and ignored: any approver may decide, and the console
// shows the binding_message instead.
func (s *Service) decodeBackchannel(form url.Values) (backchannelRequest, error) {
	var req backchannelRequest
	var err error
	if req.resource, err = resourceParam(form, "request"); err != nil {
		return req, err
	}
	scope, err := single(form, "scope")
	if err != nil {
		return req, err
	}
	// "openid" is what CIBA clients send by habit; typeward issues no ID
	// token, so it is dropped rather than refused.
	req.scopes = slices.DeleteFunc(strings.Fields(scope), func(s string) bool { return s == "openid" })
	if req.details, err = single(form, "authorization_details"); err != nil {
		return req, err
	}
	if req.bindingMessage, err = single(form, "binding_message"); err != nil {
		return req, err
	}
	if err := approval.CheckText("binding_message", req.bindingMessage, approval.MaxBindingMessage); err != nil {
		return req, badRequest("invalid_binding_message", err.Error())
	}
	expiry, err := single(form, "requested_expiry")
	if err != nil {
		return req, err
	}
	req.expiry = approval.DefaultExpiry
	if expiry != "" {
		n, err := strconv.ParseInt(expiry, 10, 32)
		lo, hi := s.Backchannel.minExpiry(), s.Backchannel.maxExpiry()
		if err != nil || time.Duration(n)*time.Second < lo || time.Duration(n)*time.Second > hi {
			return req, badRequest(CodeInvalidRequest, fmt.Sprintf("requested_expiry must be whole seconds from %d to %d",
				int64(lo/time.Second), int64(hi/time.Second)))
		}
		req.expiry = time.Duration(n) * time.Second
	}
	req.expiry = min(max(req.expiry, s.Backchannel.minExpiry()), s.Backchannel.maxExpiry())
	return req, nil
}

// checkScopes refuses tool scopes and scopes the client is not allowed.
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

// cibaToken answers a poll of the CIBA grant: pending, too fast, denied,
// expired, or, once a person approved, the composition's token. The
// composition is validated again at that moment, and a token is issued
// only when the registry still gives the digest that was approved; the
// store's Redeem makes it the only token of this auth_req_id, across
// replicas too.
func (s *Service) cibaToken(ctx context.Context, client *clients.Client, req tokenRequest, rec *audit.Issuance) (*TokenResponse, error) {
	store := s.Backchannel.Store
	switch {
	case store == nil:
		return nil, badRequest(CodeUnsupportedGrantType, "this server has no backchannel authentication")
	case req.authReq == "":
		return nil, badRequest(CodeInvalidRequest, "auth_req_id is required")
	case len(req.authReq) > maxAuthReqIDBytes:
		return nil, badRequest(CodeInvalidGrant, "unknown auth_req_id")
	}
	now := s.now()
	r, err := store.Poll(ctx, req.authReq, now)
	if errors.Is(err, approval.ErrNotFound) {
		return nil, badRequest(CodeInvalidGrant, "unknown auth_req_id")
	} else if err != nil {
		return nil, serverError(err)
	}
	if r.ClientID != client.ID { // as unknown: ids of other clients are not confirmed
		return nil, badRequest(CodeInvalidGrant, "unknown auth_req_id")
	}
	rec.AuthReqID, rec.CompositionDigest, rec.Tools, rec.Audience = r.ID, r.Digest, r.Tools, r.Audience
	switch {
	case r.Status == approval.Issued:
		return nil, badRequest(CodeInvalidGrant, "this auth_req_id was already redeemed for its one token")
	case r.Expired(now):
		return nil, badRequest(CodeExpiredToken, "the request expired before it was approved and redeemed")
	case r.Status == approval.Denied:
		why := "denied by " + r.DecidedBy
		if r.Reason != "" {
			why += ": " + r.Reason
		}
		return nil, badRequest(CodeAccessDenied, truncate(why, 600))
	case r.Status == approval.Pending && !r.LastPollAt.IsZero() && now.Sub(r.LastPollAt) < r.Interval:
		return nil, badRequest(CodeSlowDown, fmt.Sprintf("poll at most every %s", r.Interval))
	case r.Status == approval.Pending:
		return nil, badRequest(CodeAuthorizationPending, "waiting for a person to approve or deny")
	}

	// The person's decision satisfies the client's approval policy.
	c, err := s.recheck(ctx, client, r, rec)
	if err != nil {
		return nil, err
	}
	rec.ApprovedBy, rec.ApprovedAt = r.DecidedBy, r.DecidedAt
	resp, err := s.compositionToken(ctx, client, r.Scopes, c, &verify.Approval{ApprovedBy: r.DecidedBy, ApprovedAt: r.DecidedAt.Unix()}, rec)
	if err != nil {
		return nil, err
	}
	if err := store.Redeem(ctx, r.ID, rec.JTI, now); err != nil {
		rec.JTI, rec.ApprovedBy, rec.ApprovedAt = "", "", time.Time{} // the signed token is discarded
		if errors.Is(err, approval.ErrNotPending) {
			return nil, badRequest(CodeInvalidGrant, "this auth_req_id was already redeemed for its one token")
		}
		return nil, serverError(err)
	}
	return resp, nil
}

// recheck validates an approval request's composition again, as at the
// token endpoint, and requires the digest the person was shown: the one
// rule of both the approval click (Revalidate) and the redemption.
func (s *Service) recheck(ctx context.Context, client *clients.Client, r *approval.Request, rec *audit.Issuance) (*checked, error) {
	c, err := s.checkComposition(ctx, client, r.Audience, r.Details, rec)
	if err != nil {
		return nil, err
	}
	rec.AuthReqID = r.ID
	if c.v.result.Digest != r.Digest {
		return nil, badRequest(CodeAccessDenied, fmt.Sprintf(
			"the approval no longer holds: the registry changed since it was asked for (composition digest %s, approved %s); ask again",
			c.v.result.Digest, r.Digest))
	}
	return c, nil
}

// Revalidate implements approval.Revalidator with the redemption's
// checks, for the moment a person clicks Approve: a refusal the client
// would get is approval.ErrNoLongerValid with its description; nothing
// is audited, since no token is asked for.
func (s *Service) Revalidate(ctx context.Context, r *approval.Request) error {
	client, err := s.Clients.Get(ctx, r.ClientID)
	switch {
	case errors.Is(err, clients.ErrNotFound):
		return fmt.Errorf("%w: client %s no longer exists", approval.ErrNoLongerValid, r.ClientID)
	case err != nil:
		return err
	case client.Disabled:
		return fmt.Errorf("%w: client %s is disabled", approval.ErrNoLongerValid, r.ClientID)
	}
	if _, err := s.recheck(ctx, client, r, &audit.Issuance{}); err != nil {
		if e := AsError(err); e.Kind != KindServer {
			why := e.Description
			for _, is := range e.Issues {
				if is.Severity == verdict.SeverityError {
					why += "; " + is.FieldPath + ": " + is.Message
				}
			}
			return fmt.Errorf("%w: %s", approval.ErrNoLongerValid, Clip(why, 600))
		}
		return err
	}
	return nil
}

// notADecision reports a poll answer that decides nothing (still
// waiting): it is counted, but not written to the audit log, which would
// otherwise hold a record per poll.
func notADecision(err error) bool {
	var e *Error
	return errors.As(err, &e) && (e.Code == CodeAuthorizationPending || e.Code == CodeSlowDown)
}
