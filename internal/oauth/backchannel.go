package oauth

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"time"

	"github.com/typeward/typeward/internal/approval"
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
	in, resp, err := s.backchannelRequest(ctx, form, authorization)
	if err != nil {
		rec := in.record(err)
		ctx := context.WithoutCancel(ctx) // the refusal is recorded even if the client hung up
		if aerr := s.Audit.Append(ctx, &rec); aerr != nil {
			s.logAuditFailure(ctx, &rec, aerr)
		}
		s.count(&rec, err)
	}
	return resp, err
}

// backchannelRequest is the endpoint's steps, as the token endpoint's
// (issue): admitted, the rate limit, the request, its composition
// checked, then the pending request stored.
func (s *Service) backchannelRequest(ctx context.Context, form url.Values, authorization string) (in issuance, resp *BackchannelResponse, err error) {
	in, client, err := s.admitted(ctx, form, authorization)
	if err != nil {
		return in, nil, err
	}
	if s.Backchannel.Store == nil {
		return in, nil, badRequest(CodeInvalidRequest, "this server has no backchannel authentication")
	}
	if err := s.allow(client.ID, "requests"); err != nil {
		return in, nil, err
	}
	req, err := s.decodeBackchannel(form)
	if err != nil {
		return in, nil, err
	}
	if err := checkScopes(client, req.scopes); err != nil {
		return in, nil, err
	}
	if req.details == "" {
		return in, nil, badRequest(CodeInvalidRequest, "authorization_details with one mcp_composition is required")
	}
	c, err := s.checkComposition(ctx, client, req.resource, req.details)
	in.authorized.check = c
	if err != nil {
		return in, nil, err
	}
	resp, err = s.pend(ctx, client.ID, req, c)
	return in, resp, err
}

// pend stores the pending request a person decides.
func (s *Service) pend(ctx context.Context, clientID string, req backchannelRequest, c checked) (*BackchannelResponse, error) {
	now := s.now()
	r := &approval.Request{
		ID: approval.NewID(), ClientID: clientID, Audience: c.audience, Scopes: req.scopes, Details: req.details,
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
	compositionRequest
	bindingMessage string
	expiry         time.Duration
}

// decodeBackchannel reads the authentication request. login_hint and its
// kin are accepted and ignored: any approver may decide, and the console
// shows the binding_message instead.
func (s *Service) decodeBackchannel(form url.Values) (backchannelRequest, error) {
	var req backchannelRequest
	var err error
	if req.compositionRequest, err = decodeCompositionRequest(form, "request"); err != nil {
		return req, err
	}
	// "openid" is what CIBA clients send by habit; typeward issues no ID
	// token, so it is dropped rather than refused.
	req.scopes = slices.DeleteFunc(req.scopes, func(s string) bool { return s == "openid" })
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
