package oauth

import (
	"context"
	"errors"
	"net/url"
	"slices"
	"strings"

	"github.com/typeward/typeward/internal/clients"
	"github.com/typeward/typeward/verify"
)

// Introspection is the RFC 7662 answer. An inactive token is
// {"active":false} and nothing else.
type Introspection struct {
	Active               bool                         `json:"active"`
	Scope                string                       `json:"scope,omitempty"`
	ClientID             string                       `json:"client_id,omitempty"`
	TokenType            string                       `json:"token_type,omitempty"`
	Exp                  int64                        `json:"exp,omitempty"`
	Iat                  int64                        `json:"iat,omitempty"`
	Nbf                  int64                        `json:"nbf,omitempty"`
	Sub                  string                       `json:"sub,omitempty"`
	Aud                  []string                     `json:"aud,omitempty"`
	Iss                  string                       `json:"iss,omitempty"`
	JTI                  string                       `json:"jti,omitempty"`
	MCPTools             []string                     `json:"mcp_tools,omitempty"`
	AuthorizationDetails []verify.AuthorizationDetail `json:"authorization_details,omitempty"`
	// Cnf is a DPoP-bound token's confirmation (RFC 9449 §6.2: jkt), and
	// TokenType then "DPoP".
	Cnf *verify.Confirmation `json:"cnf,omitempty"`
}

// Introspect answers RFC 7662 for an authenticated caller. A token that is
// expired, revoked, malformed, signed by someone else, or that the caller
// has no business seeing (neither its client, nor a client whose allowed
// audiences include the token's, nor an admin) is inactive.
func (s *Service) Introspect(ctx context.Context, form url.Values, authorization string) (*Introspection, error) {
	if err := checkForm(form); err != nil {
		return nil, err
	}
	a, err := s.authenticate(ctx, form, authorization)
	if err != nil {
		return nil, err
	}
	caller := a.client
	if err := s.allowCall("introspection", caller); err != nil {
		return nil, err
	}
	raw, err := single(form, "token")
	if err != nil {
		return nil, err
	}
	if raw == "" {
		return nil, badRequest(CodeInvalidRequest, "token is required")
	}
	inactive := &Introspection{}
	tok, err := s.activeToken(ctx, raw)
	if err != nil {
		return nil, err
	}
	if tok == nil || !mayInspect(caller, tok) {
		return inactive, nil
	}
	answer := &Introspection{
		Active: true, Scope: strings.Join(tok.Scope, " "), ClientID: tok.ClientID, TokenType: tok.TokenType(),
		Exp: tok.ExpiresAt.Unix(), Iat: tok.IssuedAt.Unix(),
		Sub: tok.Subject, Aud: tok.Audience, Iss: tok.Issuer, JTI: tok.ID,
		MCPTools: tok.Tools, AuthorizationDetails: tok.AuthorizationDetails,
	}
	if !tok.NotBefore.IsZero() {
		answer.Nbf = tok.NotBefore.Unix()
	}
	if tok.JKT != "" {
		answer.Cnf = &verify.Confirmation{JKT: tok.JKT}
	}
	return answer, nil
}

// Active is what the admin API's authentication needs: the verified,
// unrevoked bearer token, or nil. A DPoP-bound token is nil: the admin API
// takes bearer tokens, and a bound token used as one is a stolen one.
func (s *Service) Active(ctx context.Context, raw string) (*verify.Claims, error) {
	tok, err := s.activeToken(ctx, raw)
	if tok != nil && tok.JKT != "" {
		return nil, err
	}
	return tok, err
}

// activeToken is the verified, unrevoked token of an enabled client, or
// nil. A disabled (or deleted) client's tokens are inactive from the
// moment its record says so, checked on every use. Only a failing store is
// an error.
func (s *Service) activeToken(ctx context.Context, raw string) (*verify.Claims, error) {
	if len(raw) > MaxTokenBytes || strings.Count(raw, ".") != 2 {
		return nil, nil
	}
	tok, err := s.Verifier.Verify(ctx, raw)
	if err != nil || !s.now().Before(tok.ExpiresAt) {
		return nil, nil
	}
	revoked, err := s.Revocations.IsRevoked(ctx, tok.ID)
	if err != nil {
		return nil, serverError(err)
	}
	if revoked {
		return nil, nil
	}
	client, err := s.Clients.Get(ctx, tok.ClientID)
	if errors.Is(err, clients.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, serverError(err)
	}
	if client.Disabled {
		return nil, nil
	}
	return tok, nil
}

func mayInspect(caller *clients.Client, tok *verify.Claims) bool {
	if caller.ID == tok.ClientID || caller.AllowsScope(clients.AdminScope) {
		return true
	}
	return slices.ContainsFunc(tok.Audience, caller.AllowsAudience)
}
