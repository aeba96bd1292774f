package oauth

import (
	"context"
	"net/url"

	"github.com/typeward/typeward/internal/clients"
)

// Revoke answers RFC 7009 for an authenticated caller. The answer is the
// same (success) for unknown, malformed and already expired tokens, so
// revocation reveals nothing; a token of another client is left alone
// unless the caller is an admin. Only access tokens exist, so every
// token_type_hint is accepted and ignored.
func (s *Service) Revoke(ctx context.Context, form url.Values, authorization string) error {
	if err := checkForm(form); err != nil {
		return err
	}
	a, err := s.authenticate(ctx, form, authorization)
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
	if err != nil || tok == nil {
		return err
	}
	if tok.ClientID != caller.ID && !caller.AllowsScope(clients.AdminScope) {
		return nil
	}
	if err := s.Revocations.Revoke(ctx, tok.ID, tok.ExpiresAt); err != nil {
		return serverError(err)
	}
	return nil
}
