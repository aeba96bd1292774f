package oauth

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/typeward/typeward/internal/audit"
	"github.com/typeward/typeward/internal/registry"
	"github.com/typeward/typeward/internal/token"
	"github.com/typeward/typeward/internal/verdict"
	"github.com/typeward/typeward/verify"
)

// TokenResponse is the RFC 6749 §5.1 success answer.
type TokenResponse struct {
	AccessToken string `json:"access_token"`
	TokenType   string `json:"token_type"`
	ExpiresIn   int64  `json:"expires_in"`
	Scope       string `json:"scope"`
	// RefreshToken is set by the authorization code and refresh grants.
	RefreshToken         string                       `json:"refresh_token,omitempty"`
	AuthorizationDetails []verify.AuthorizationDetail `json:"authorization_details,omitempty"`
	Warnings             []verdict.Issue              `json:"warnings,omitempty"`
	// DPoPNonce is the answer's DPoP-Nonce header (RFC 9449 §8), set
	// while nonces are required.
	DPoPNonce string `json:"-"`
}

// Token runs the token endpoint for a request's form and Authorization
// header (issue), then records the decision (commit). Every decision is
// audited and counted, failed authentications included, and a token is
// handed out only once its audit record is durable: one whose record
// failed is withheld, which is as if it had never been signed.
//
// The record is written even when the request's context ends first (its
// deadline passes, the client hangs up), but then the token is withheld
// and the log says so (audit.Undelivered), as it does for a token whose
// record failed when the store can still write it: the log never claims
// a token nobody received.
func (s *Service) Token(ctx context.Context, form url.Values, authorization string) (*TokenResponse, error) {
	in, resp, err := s.issue(ctx, form, authorization)
	rec := in.record(err)
	if notADecision(err) {
		s.count(&rec, err)
		return nil, err
	}
	resp, err = s.commit(ctx, &rec, resp, err)
	s.count(&rec, err)
	return resp, err
}

// issue is the token request's steps, top to bottom, each answering its
// part of the issuance: the form's bounds and the authenticated client
// (admitted), the rate limit, the DPoP proof's key (proofKey), the grant the client asks for and is
// registered for (grantOf) and what it authorized, the token grant, the
// signed token, the grant's redemption, the answer. A step that refuses
// ends the request; what the steps before it answered is what its audit
// record says.
func (s *Service) issue(ctx context.Context, form url.Values, authorization string) (in issuance, resp *TokenResponse, err error) {
	in, client, err := s.admitted(ctx, form, authorization)
	if err != nil {
		return in, nil, err
	}
	if err := s.allow(client.ID, "token requests"); err != nil {
		return in, nil, err
	}
	jkt, err := s.proofKey(ctx, client, &in)
	if err != nil {
		return in, nil, err
	}
	grant, err := grantOf(client, form)
	if err != nil {
		return in, nil, err
	}
	if in.authorized, err = grant(s, ctx, client, form); err != nil {
		return in, nil, err
	}
	a := &in.authorized
	if err := a.bindKey(jkt); err != nil {
		return in, nil, err
	}
	g := a.tokenGrant(client.ID)
	g.JKT = jkt
	in.audience = g.Audience
	m, err := s.Minter.Mint(g)
	if err != nil {
		return in, nil, serverError(err)
	}
	in.jti = m.Claims.ID
	if a.redeem != nil {
		if err := a.redeem(ctx, in.jti, m.Claims.ExpiresAt); err != nil {
			in.discarded = true // the signed token is never handed out
			return in, nil, err
		}
	}
	resp = answer(m, g, a.check.issues)
	resp.DPoPNonce = in.dpopNonce
	resp.RefreshToken = a.refreshToken
	return in, resp, nil
}

// answer is the success answer of a token minted for g.
func answer(m token.Minted, g token.Grant, warnings []verdict.Issue) *TokenResponse {
	return &TokenResponse{AccessToken: m.Token, TokenType: m.Claims.TokenType(),
		ExpiresIn: int64(m.Claims.ExpiresAt.Sub(m.Claims.IssuedAt) / time.Second),
		Scope:     strings.Join(m.Claims.Scope, " "), AuthorizationDetails: g.Details, Warnings: warnings}
}

// commit appends the decision's record, and withholds a token whose
// record is not durable: resp and err are the answer once it is.
func (s *Service) commit(ctx context.Context, rec *audit.Issuance, resp *TokenResponse, err error) (*TokenResponse, error) {
	aerr := s.Audit.Append(ctx, rec)
	switch {
	case aerr == nil:
		return resp, err
	case err == nil && errors.Is(aerr, registry.ErrChanged):
		// Validated against a registry that has moved on: withheld. The
		// next request validates afresh, once this replica has heard the
		// change.
		s.RegistryChanged()
		if s.RegistryBehind != nil {
			s.RegistryBehind(rec.RegistryGeneration)
		}
		*rec = audit.RegistryChanged(*rec) // as the store records it
		return nil, registryChangedError(aerr)
	case err == nil:
		*rec = audit.Undelivered(*rec) // as the store records it
		return nil, serverError(fmt.Errorf("audit record of token %s: %w", rec.JTI, aerr))
	}
	s.logAuditFailure(ctx, rec, aerr)
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
