package oauth

import (
	"context"
	"errors"
	"net/url"

	"github.com/typeward/typeward/internal/clients"
	"github.com/typeward/typeward/internal/grant"
)

// Revoke answers RFC 7009 for an authenticated caller. The answer is the
// same (success) for unknown, malformed and already expired tokens, so
// revocation reveals nothing; a token of another client is left alone
// unless the caller is an admin. A refresh token revokes its whole
// family (and the family's latest access token); a public client may
// revoke its own (RFC 7009 §2.1). Whatever the token, every
// token_type_hint is accepted and ignored: both kinds are looked for.
func (s *Service) Revoke(ctx context.Context, form url.Values, authorization string) error {
	if err := checkForm(form); err != nil {
		return err
	}
	a, err := s.authenticateAs(ctx, form, authorization, true)
	if err != nil {
		return err
	}
	caller := a.client
	if err := s.allowCall("revocation", caller); err != nil {
		return err
	}
	raw, err := single(form, "token")
	if err != nil {
		return err
	}
	if raw == "" {
		return badRequest(CodeInvalidRequest, "token is required")
	}
	if _, err := single(form, "token_type_hint"); err != nil {
		return err
	}
	tok, err := s.activeToken(ctx, raw)
	if err != nil {
		return err
	}
	if tok == nil {
		return s.revokeRefresh(ctx, caller, raw)
	}
	if tok.ClientID != caller.ID && !caller.AllowsScope(clients.AdminScope) {
		return nil
	}
	if err := s.Revocations.Revoke(ctx, tok.ID, tok.ExpiresAt); err != nil {
		return serverError(err)
	}
	return nil
}

// revokeRefresh ends the family of a refresh token of the caller's (or
// any, for an admin); an unknown token changes nothing.
func (s *Service) revokeRefresh(ctx context.Context, caller *clients.Client, raw string) error {
	if s.Grants.Store == nil || len(raw) > maxGrantSecretBytes {
		return nil
	}
	_, fam, err := s.Grants.Store.Refresh(ctx, grant.Hash(raw))
	switch {
	case errors.Is(err, grant.ErrNotFound):
		return nil
	case err != nil:
		return serverError(err)
	case fam.ClientID != caller.ID && !caller.AllowsScope(clients.AdminScope):
		return nil
	}
	return s.RevokeFamily(ctx, fam.ID, "revoked by "+caller.ID)
}

// RevokeFamily ends a refresh family and revokes every access token it
// issued that is still unexpired: what /oauth2/revoke does with a refresh
// token, and the admin API with a family's id. grant.ErrNotFound when
// there is none.
func (s *Service) RevokeFamily(ctx context.Context, id, reason string) error {
	if s.Grants.Store == nil {
		return grant.ErrNotFound
	}
	now := s.now()
	if err := s.Grants.Store.RevokeFamily(ctx, id, reason, now); errors.Is(err, grant.ErrNotFound) {
		return err
	} else if err != nil {
		return serverError(err)
	}
	issued, err := s.familyAccessTokens(ctx, id, now)
	if err == nil {
		err = s.revokeAll(ctx, issued, now)
	}
	if err != nil {
		return serverError(err)
	}
	return nil
}
