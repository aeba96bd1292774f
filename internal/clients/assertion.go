package clients

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	jose "github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"
)

// Bounds on an assertion: a compact JWS signed by one key is far smaller.
const (
	maxAssertionLen = 8 << 10
	maxJTILen       = 256
)

// ValidJTI reports whether an assertion's jti can be remembered: 1 to 256
// bytes of printable UTF-8 text (Postgres text refuses NUL and invalid
// UTF-8). The Authenticator refuses an assertion whose jti is not, and a
// ReplayStore refuses to Claim it.
func ValidJTI(jti string) bool {
	return jti != "" && len(jti) <= maxJTILen && utf8.ValidString(jti) && !strings.ContainsFunc(jti, unicode.IsControl)
}

// assertion authenticates private_key_jwt (RFC 7523 §2.2 and §3). Until the
// signature is verified every failure reads the same; after it, the caller
// has proved possession of the key and is told precisely what is wrong.
func (a *Authenticator) assertion(ctx context.Context, form url.Values, claimedID *string, fail failFunc) (*Client, error) {
	if form.Get(ParamClientAssertionType) != JWTBearerAssertionType {
		return nil, fail(InvalidRequest, ReasonMalformed, "client_assertion_type must be "+JWTBearerAssertionType)
	}
	raw := form.Get(ParamClientAssertion)
	if raw == "" {
		return nil, fail(InvalidRequest, ReasonMalformed, "client_assertion is missing")
	}
	if len(raw) > maxAssertionLen {
		return nil, fail(InvalidClient, ReasonBadAssertion, "client_assertion is too long")
	}
	// The algorithm allow-list is applied while parsing: "none", HMAC and
	// anything else never reach a key.
	tok, err := jwt.ParseSigned(raw, assertionAlgorithms)
	if err != nil || len(tok.Headers) != 1 {
		return nil, fail(InvalidClient, ReasonBadAssertion, "client_assertion is not a compact JWS signed with ES256, EdDSA or RS256")
	}
	if !assertionType(tok.Headers[0]) {
		return nil, fail(InvalidClient, ReasonBadAssertion, "client_assertion typ, when present, must be JWT or client-authentication+jwt")
	}
	var unverified jwt.Claims
	if err := tok.UnsafeClaimsWithoutVerification(&unverified); err != nil {
		return nil, fail(InvalidClient, ReasonBadAssertion, "client_assertion claims are not a JSON object of JWT claims")
	}
	id := unverified.Issuer
	if id == "" || unverified.Subject != id {
		return nil, fail(InvalidClient, ReasonAssertionClaims, "client_assertion iss and sub must both be the client_id")
	}
	if *claimedID != "" && *claimedID != id {
		return nil, fail(InvalidRequest, ReasonClientIDMismatch, "client_id differs from the client_assertion issuer")
	}
	*claimedID = id

	c, err := a.lookup(ctx, id)
	if err != nil {
		return nil, err
	}
	switch {
	case c == nil:
		return nil, fail(InvalidClient, ReasonUnknownClient, genericFailure)
	case c.TokenEndpointAuthMethod != PrivateKeyJWT:
		return nil, fail(InvalidClient, ReasonMethodMismatch, genericFailure)
	}
	keys, err := parsePublicJWKS(c.JWKS)
	if err != nil {
		return nil, fmt.Errorf("authenticate client %s: stored jwks: %w", c.ID, err)
	}
	claims, ok := verifyAssertion(tok, keys)
	if !ok {
		return nil, fail(InvalidClient, ReasonBadSignature, genericFailure)
	}

	now := a.now()
	exp, reason, problem := a.checkAssertionClaims(claims, id, now)
	if problem != "" {
		return nil, fail(InvalidClient, reason, problem)
	}
	if c.Disabled {
		return nil, fail(InvalidClient, ReasonDisabled, "client is disabled")
	}
	err = a.replay.Claim(ctx, id, claims.ID, exp.Add(a.leeway), now)
	if errors.Is(err, ErrReplayed) {
		return nil, fail(InvalidClient, ReasonReplayed, "client_assertion jti was already used")
	}
	if err != nil {
		return nil, fmt.Errorf("authenticate client %s: replay store: %w", id, err)
	}
	return c, nil
}

// assertionType reports whether a JWS header's typ, when present, says
// the JWT is a client assertion or an untyped JWT: an access token
// (at+jwt) or any other explicitly typed JWT is not accepted as one.
// Media types compare case-insensitively and may omit "application/"
// (RFC 7515 §4.1.9).
func assertionType(h jose.Header) bool {
	raw, present := h.ExtraHeaders[jose.HeaderType]
	if !present {
		return true
	}
	typ, ok := raw.(string)
	if !ok {
		return false
	}
	typ = strings.TrimPrefix(strings.ToLower(typ), "application/")
	return typ == "jwt" || typ == "client-authentication+jwt"
}

// verifyAssertion checks the signature with the client's keys: those with
// the header's kid when it names one, and always only keys whose type signs
// the header's alg.
func verifyAssertion(tok *jwt.JSONWebToken, set *jose.JSONWebKeySet) (*jwt.Claims, bool) {
	h := tok.Headers[0]
	for _, k := range set.Keys {
		if h.KeyID != "" && k.KeyID != h.KeyID {
			continue
		}
		if alg, _ := keyAlgorithm(k.Key); string(alg) != h.Algorithm {
			continue
		}
		var claims jwt.Claims
		if err := tok.Claims(k.Key, &claims); err == nil {
			return &claims, true
		}
	}
	return nil, false
}

// checkAssertionClaims applies RFC 7523 §3 to verified claims and returns
// the expiry, or the reason and description of the first problem.
func (a *Authenticator) checkAssertionClaims(c *jwt.Claims, id string, now time.Time) (time.Time, Reason, string) {
	switch {
	case c.Issuer != id || c.Subject != id:
		return time.Time{}, ReasonAssertionClaims, "client_assertion iss and sub must both be the client_id"
	case c.ID == "":
		return time.Time{}, ReasonAssertionClaims, "client_assertion has no jti"
	case !ValidJTI(c.ID):
		return time.Time{}, ReasonAssertionClaims, "client_assertion jti must be printable text of at most 256 bytes"
	case len(c.Audience) != 1 || c.Audience[0] != a.issuer:
		return time.Time{}, ReasonAudience, "client_assertion aud must be exactly this server's issuer identifier"
	case c.Expiry == nil:
		return time.Time{}, ReasonAssertionClaims, "client_assertion has no exp"
	}
	exp := c.Expiry.Time()
	switch {
	case !now.Before(exp.Add(a.leeway)):
		return exp, ReasonExpired, "client_assertion has expired"
	case exp.After(now.Add(a.maxLifetime + a.leeway)):
		return exp, ReasonLifetime, fmt.Sprintf("client_assertion exp is more than %s ahead", a.maxLifetime)
	case c.NotBefore != nil && c.NotBefore.Time().After(now.Add(a.leeway)):
		return exp, ReasonNotYetValid, "client_assertion is not valid yet (nbf)"
	case c.IssuedAt != nil && c.IssuedAt.Time().After(now.Add(a.leeway)):
		return exp, ReasonNotYetValid, "client_assertion was issued in the future (iat)"
	}
	return exp, "", ""
}
