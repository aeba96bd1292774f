package oauth

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"time"

	"github.com/typeward/typeward/internal/approval"
	"github.com/typeward/typeward/internal/clients"
	"github.com/typeward/typeward/internal/verdict"
	"github.com/typeward/typeward/verify"
)

// ciba authorizes a poll of the CIBA grant: pending, too fast, denied,
// expired, or, once a person approved, the composition. The composition
// is validated again at that moment, and authorized only while the
// registry still gives the digest that was approved; the token's
// redemption (the store's Redeem) makes it the only token of this
// auth_req_id, across replicas too.
func (s *Service) ciba(ctx context.Context, client *clients.Client, form url.Values) (authorized, error) {
	// The backchannel request fixed everything else; only the id is read.
	id, err := single(form, "auth_req_id")
	if err != nil {
		return authorized{}, err
	}
	store := s.Backchannel.Store
	switch {
	case store == nil:
		return authorized{}, badRequest(CodeUnsupportedGrantType, "this server has no backchannel authentication")
	case id == "":
		return authorized{}, badRequest(CodeInvalidRequest, "auth_req_id is required")
	case len(id) > maxAuthReqIDBytes:
		return authorized{}, badRequest(CodeInvalidGrant, "unknown auth_req_id")
	}
	now := s.now()
	r, err := store.Poll(ctx, id, now)
	if errors.Is(err, approval.ErrNotFound) {
		return authorized{}, badRequest(CodeInvalidGrant, "unknown auth_req_id")
	} else if err != nil {
		return authorized{}, serverError(err)
	}
	if r.ClientID != client.ID { // as unknown: ids of other clients are not confirmed
		return authorized{}, badRequest(CodeInvalidGrant, "unknown auth_req_id")
	}
	a := authorized{pending: r}
	switch {
	case r.Status == approval.Issued:
		return a, alreadyRedeemed()
	case r.Expired(now):
		return a, badRequest(CodeExpiredToken, "the request expired before it was approved and redeemed")
	case r.Status == approval.Denied:
		why := "denied by " + r.DecidedBy
		if r.Reason != "" {
			why += ": " + r.Reason
		}
		return a, badRequest(CodeAccessDenied, truncate(why, 600))
	case r.Status == approval.Pending && !r.LastPollAt.IsZero() && now.Sub(r.LastPollAt) < r.Interval:
		return a, badRequest(CodeSlowDown, fmt.Sprintf("poll at most every %s", r.Interval))
	case r.Status == approval.Pending:
		return a, badRequest(CodeAuthorizationPending, "waiting for a person to approve or deny")
	}

	// The person's decision satisfies the client's approval policy.
	if a.check, err = s.recheck(ctx, client, r); err != nil {
		return a, err
	}
	a.audience, a.scopes = a.check.audience, r.Scopes
	a.approval = &verify.Approval{ApprovedBy: r.DecidedBy, ApprovedAt: r.DecidedAt.Unix()}
	a.redeem = func(ctx context.Context, jti string, _ time.Time) error {
		if err := store.Redeem(ctx, r.ID, jti, now); errors.Is(err, approval.ErrNotPending) {
			return alreadyRedeemed()
		} else if err != nil {
			return serverError(err)
		}
		return nil
	}
	return a, nil
}

func alreadyRedeemed() *Error {
	return badRequest(CodeInvalidGrant, "this auth_req_id was already redeemed for its one token")
}

// recheck validates an approval request's composition again, as at the
// token endpoint, and requires the digest the person was shown: the one
// rule of both the approval click (Revalidate) and the redemption.
func (s *Service) recheck(ctx context.Context, client *clients.Client, r *approval.Request) (checked, error) {
	c, err := s.checkComposition(ctx, client, r.Audience, r.Details)
	if err != nil {
		return c, err
	}
	if c.v.result.Digest != r.Digest {
		return c, badRequest(CodeAccessDenied, fmt.Sprintf(
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
	if _, err := s.recheck(ctx, client, r); err != nil {
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

// maxAuthReqIDBytes bounds an auth_req_id before any lookup; typeward's
// are 43 characters.
const maxAuthReqIDBytes = 128
