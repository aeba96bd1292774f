package oauth

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/typeward/typeward/internal/clients"
	"github.com/typeward/typeward/internal/grant"
	"github.com/typeward/typeward/verify"
)

// maxGrantSecretBytes bounds a code or refresh token before it is
// hashed; typeward's are 43 characters.
const maxGrantSecretBytes = 256

// authorizationCode authorizes the redemption of an authorization code
// (OAuth 2.1 §4.1.3): for the client it was issued to, with the redirect
// URI and the PKCE verifier of its request, once. The composition is
// validated again now and must give the digest the person consented to.
// A second redemption is refused and revokes every token issued from the
// code.
func (s *Service) authorizationCode(ctx context.Context, client *clients.Client, form url.Values) (authorized, error) {
	store := s.Grants.Store
	if store == nil {
		return authorized{}, badRequest(CodeUnsupportedGrantType, "this server has no authorization endpoint")
	}
	p, err := singles(form, "code", "code_verifier", "redirect_uri")
	if err != nil {
		return authorized{}, err
	}
	code, verifier, redirect := p[0], p[1], p[2]
	resource, err := resourceParam(form, "token")
	if err != nil {
		return authorized{}, err
	}
	switch {
	case code == "":
		return authorized{}, badRequest(CodeInvalidRequest, "code is required")
	case verifier == "":
		return authorized{}, badRequest(CodeInvalidRequest, "code_verifier is required (PKCE)")
	case !validVerifier(verifier):
		return authorized{}, badRequest(CodeInvalidRequest, "code_verifier must be 43 to 128 characters of A-Z a-z 0-9 - . _ ~ (RFC 7636)")
	case len(code) > maxGrantSecretBytes:
		return authorized{}, badRequest(CodeInvalidGrant, "unknown or expired code")
	}
	hash := grant.Hash(code)
	c, err := store.Code(ctx, hash)
	if errors.Is(err, grant.ErrNotFound) {
		return authorized{}, badRequest(CodeInvalidGrant, "unknown or expired code")
	} else if err != nil {
		return authorized{}, serverError(err)
	}
	if c.ClientID != client.ID { // as unknown: codes of other clients are not confirmed
		return authorized{}, badRequest(CodeInvalidGrant, "unknown or expired code")
	}
	a := authorized{consent: &c.Consent, consentID: "code:" + grantID(hash)}
	now := s.now()
	switch {
	case !c.RedeemedAt.IsZero():
		s.revokeIssued(ctx, c.JTI, c.JTIExpiresAt, c.FamilyID, "authorization code replayed", now)
		return a, codeReplayed()
	case !now.Before(c.ExpiresAt):
		return a, badRequest(CodeInvalidGrant, "the code expired")
	case redirect != c.RedirectURI && !(c.RedirectURI == "" && len(client.RedirectURIs) == 1 && redirect == client.RedirectURIs[0]):
		// Omitted from the request (the client has one), it is optional
		// here and, when sent, the one the code went to (OAuth 2.1 §4.1.3).
		return a, badRequest(CodeInvalidGrant, "redirect_uri is not the one of the authorization request")
	case !pkceMatches(verifier, c.Challenge):
		return a, badRequest(CodeInvalidGrant, "code_verifier does not match the code_challenge")
	case resource != "" && resource != c.Audience:
		return a, badRequest(CodeInvalidTarget, "resource is not the one the person consented to: "+truncate(resource, 128))
	}
	if err := s.consented(ctx, client, &a); err != nil {
		return a, err
	}
	var family *grant.Family
	var first *grant.RefreshToken
	if c.Refresh {
		family = &grant.Family{ID: grant.NewFamilyID(), Consent: c.Consent, CreatedAt: now,
			ExpiresAt: now.Add(s.Grants.absolute()), LastUsedAt: now}
		a.refreshToken, first = s.newRefreshToken(family, now)
		a.family, a.bindsFamily = family, true
	}
	a.redeem = func(ctx context.Context, jti string, expires time.Time) error {
		if family != nil {
			family.JTI, family.JTIExpiresAt = jti, expires
		}
		err := store.RedeemCode(ctx, hash, now, jti, expires, family, first)
		if errors.Is(err, grant.ErrSpent) {
			// Another redemption won meanwhile: this one is the replay.
			if again, gerr := store.Code(ctx, hash); gerr == nil {
				s.revokeIssued(ctx, again.JTI, again.JTIExpiresAt, again.FamilyID, "authorization code replayed", now)
			}
			return codeReplayed()
		} else if err != nil {
			return serverError(err)
		}
		return nil
	}
	return a, nil
}

func codeReplayed() *Error {
	return badRequest(CodeInvalidGrant, "this code was already redeemed; every token issued from it is revoked")
}

func refreshReused() *Error {
	return badRequest(CodeInvalidGrant, "this refresh token was already used: its whole family is revoked; ask the person again")
}

// refresh authorizes a refresh (OAuth 2.1 §4.3): the token rotated on
// every use, the whole family revoked when a used one comes back, and
// the composition proved again against the registry as it is now: a
// tool changed, or a composition that no longer validates, ends the
// grant, and the host must ask the person again.
func (s *Service) refresh(ctx context.Context, client *clients.Client, form url.Values) (authorized, error) {
	store := s.Grants.Store
	if store == nil {
		return authorized{}, badRequest(CodeUnsupportedGrantType, "this server has no refresh tokens")
	}
	p, err := singles(form, "refresh_token", "scope")
	if err != nil {
		return authorized{}, err
	}
	raw, scope := p[0], p[1]
	resource, err := resourceParam(form, "token")
	if err != nil {
		return authorized{}, err
	}
	switch {
	case raw == "":
		return authorized{}, badRequest(CodeInvalidRequest, "refresh_token is required")
	case len(raw) > maxGrantSecretBytes:
		return authorized{}, badRequest(CodeInvalidGrant, "unknown refresh token")
	}
	hash := grant.Hash(raw)
	tok, fam, err := store.Refresh(ctx, hash)
	if errors.Is(err, grant.ErrNotFound) {
		return authorized{}, badRequest(CodeInvalidGrant, "unknown refresh token")
	} else if err != nil {
		return authorized{}, serverError(err)
	}
	if fam.ClientID != client.ID {
		return authorized{}, badRequest(CodeInvalidGrant, "unknown refresh token")
	}
	a := authorized{consent: &fam.Consent, consentID: "refresh:" + fam.ID}
	now := s.now()
	switch {
	case !tok.UsedAt.IsZero():
		s.revokeIssued(ctx, fam.JTI, fam.JTIExpiresAt, fam.ID, "refresh token reused", now)
		return a, refreshReused()
	case !fam.RevokedAt.IsZero():
		return a, badRequest(CodeInvalidGrant, "this grant was revoked ("+truncate(fam.RevokedReason, 200)+"); ask the person again")
	case !now.Before(fam.ExpiresAt):
		return a, badRequest(CodeInvalidGrant, "this grant reached its absolute lifetime; ask the person again")
	case !now.Before(tok.ExpiresAt):
		return a, badRequest(CodeInvalidGrant, "this refresh token expired unused (idle lifetime); ask the person again")
	case scope != "" && !sameScope(scope, fam.Consent):
		return a, badRequest(CodeInvalidScope, "a refresh keeps the scope the person consented to; omit scope")
	case resource != "" && resource != fam.Audience:
		return a, badRequest(CodeInvalidTarget, "resource is not the one the person consented to: "+truncate(resource, 128))
	}
	if err := s.consented(ctx, client, &a); err != nil {
		if e := AsError(err); e.Kind == KindBadRequest || e.Kind == KindForbidden {
			// The consent no longer holds: the grant ends here.
			if rerr := store.RevokeFamily(ctx, fam.ID, "the consent no longer holds: "+Clip(e.Description, 200), now); rerr != nil {
				return a, serverError(rerr)
			}
			return a, &Error{Kind: KindBadRequest, Code: CodeInvalidGrant, Issues: e.Issues,
				Description: ASCII("the consent no longer holds, so the grant is ended; ask the person again: " + e.Description)}
		}
		return a, err
	}
	var next *grant.RefreshToken
	a.refreshToken, next = s.newRefreshToken(fam, now)
	a.family = fam
	a.redeem = func(ctx context.Context, jti string, expires time.Time) error {
		err := store.Rotate(ctx, hash, now, next, jti, expires)
		if errors.Is(err, grant.ErrSpent) {
			// Used concurrently: one of the two is a replay.
			s.revokeIssued(ctx, "", time.Time{}, fam.ID, "refresh token reused", now)
			return refreshReused()
		} else if err != nil {
			return serverError(err)
		}
		return nil
	}
	return a, nil
}

// consented validates the composition of a's consent again, as at the
// token endpoint; it must give the digest consented to (a tool whose
// version or schema changed gives another). The consent stands for the
// client's approval policy.
func (s *Service) consented(ctx context.Context, client *clients.Client, a *authorized) error {
	c := a.consent
	a.scopes = slices.DeleteFunc(slices.Clone(c.Scopes), func(s string) bool { return s == ScopeOfflineAccess })
	a.approval = &verify.Approval{ApprovedBy: c.Subject, ApprovedAt: c.ConsentedAt.Unix()}
	if c.Details == "" {
		audience, err := s.audience(client, c.Audience)
		a.audience = audience
		return err
	}
	var err error
	a.check, err = s.checkComposition(ctx, client, c.Audience, c.Details)
	a.audience = a.check.audience
	if err != nil {
		return err
	}
	if d := a.check.v.result.Digest; d != c.Digest {
		return badRequest(CodeInvalidGrant, fmt.Sprintf(
			"the composition changed since the person consented (digest %s, consented %s)", d, c.Digest))
	}
	return nil
}

// newRefreshToken makes the next token of a family, its idle expiry
// never past the family's.
func (s *Service) newRefreshToken(f *grant.Family, now time.Time) (string, *grant.RefreshToken) {
	secret, hash := grant.NewSecret()
	exp := now.Add(s.Grants.idle())
	if exp.After(f.ExpiresAt) {
		exp = f.ExpiresAt
	}
	return secret, &grant.RefreshToken{Hash: hash, FamilyID: f.ID, CreatedAt: now, ExpiresAt: exp}
}

// revokeIssued revokes an access token and a refresh family with every
// access token of it still unexpired: what a replayed code or refresh
// token had produced (RFC 6749 §4.1.2: all tokens issued from the code).
// Failures are logged; the request is refused either way.
func (s *Service) revokeIssued(ctx context.Context, jti string, jtiExpires time.Time, familyID, reason string, now time.Time) {
	ctx = context.WithoutCancel(ctx)
	issued := []grant.Issued{{JTI: jti, ExpiresAt: jtiExpires}}
	if familyID != "" {
		if err := s.Grants.Store.RevokeFamily(ctx, familyID, reason, now); err != nil && s.Log != nil {
			s.Log.ErrorContext(ctx, "revoking a refresh family failed", "err", err, "family", familyID)
		}
		more, err := s.familyAccessTokens(ctx, familyID, now)
		if err != nil && s.Log != nil {
			s.Log.ErrorContext(ctx, "listing a refresh family's access tokens failed", "err", err, "family", familyID)
		}
		issued = append(issued, more...)
	}
	if err := s.revokeAll(ctx, issued, now); err != nil && s.Log != nil {
		s.Log.ErrorContext(ctx, "revoking a replayed grant's token failed", "err", err)
	}
}

// familyAccessTokens are the access tokens of a family: the latest, kept
// on the family (all that a family from before migration 0024 records),
// and the one each of its refresh tokens was issued with. Read after the
// family is revoked, so no rotation adds one unseen.
func (s *Service) familyAccessTokens(ctx context.Context, id string, now time.Time) ([]grant.Issued, error) {
	f, err := s.Grants.Store.Family(ctx, id)
	if err != nil {
		return nil, err
	}
	more, err := s.Grants.Store.Issued(ctx, id, now)
	return append(more, grant.Issued{JTI: f.JTI, ExpiresAt: f.JTIExpiresAt}), err
}

// revokeAll revokes each access token not yet expired, once; the first
// failure is returned after trying every one.
func (s *Service) revokeAll(ctx context.Context, issued []grant.Issued, now time.Time) error {
	var first error
	seen := map[string]bool{}
	for _, i := range issued {
		if i.JTI == "" || seen[i.JTI] || !now.Before(i.ExpiresAt) {
			continue
		}
		seen[i.JTI] = true
		if err := s.Revocations.Revoke(ctx, i.JTI, i.ExpiresAt); err != nil && first == nil {
			first = err
		}
	}
	return first
}

// sameScope reports whether a refresh's scope parameter is the consented
// scope, as a set of the plain scopes and the tools' scopes.
func sameScope(scope string, c grant.Consent) bool {
	want := map[string]bool{}
	for _, s := range c.Scopes {
		want[s] = true
	}
	for _, t := range c.Tools {
		want[verify.ToolScopePrefix+t] = true
	}
	got := map[string]bool{}
	for _, s := range strings.Fields(scope) {
		if !want[s] {
			return false
		}
		got[s] = true
	}
	return len(got) == len(want)
}

// pkceMatches checks a verifier against an S256 challenge (RFC 7636 §4.6).
func pkceMatches(verifier, challenge string) bool {
	sum := sha256.Sum256([]byte(verifier))
	return subtle.ConstantTimeCompare([]byte(base64.RawURLEncoding.EncodeToString(sum[:])), []byte(challenge)) == 1
}

// validVerifier accepts RFC 7636 §4.1's code_verifier.
func validVerifier(v string) bool {
	if len(v) < 43 || len(v) > maxChallengeBytes {
		return false
	}
	for _, r := range v {
		if !(r >= 'A' && r <= 'Z' || r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-' || r == '.' || r == '_' || r == '~') {
			return false
		}
	}
	return true
}

// grantID names a code in the audit log without revealing it.
func grantID(hash []byte) string { return base64.RawURLEncoding.EncodeToString(hash[:12]) }
