package token

import (
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"github.com/typeward/typeward/internal/keys"
	"github.com/typeward/typeward/verify"
)

// Signers gives the key to sign with now: *keys.Keyring.
type Signers interface {
	Signer() (*keys.Signer, error)
}

// Config configures a Minter.
type Config struct {
	Issuer  string // iss
	TTL     time.Duration
	Signers Signers
	Now     func() time.Time // time.Now when nil
}

// Minter signs access tokens with the keyring's active key. It is safe for
// concurrent use.
type Minter struct {
	cfg    Config
	header atomic.Pointer[header] // the last signer's encoded header
}

// header is a signer's JWS header, base64url-encoded once: it changes only
// when the signing key does.
type header struct {
	kid     string
	encoded string
	method  jwt.SigningMethod
}

// NewMinter checks cfg and returns a Minter.
func NewMinter(cfg Config) (*Minter, error) {
	if cfg.Issuer == "" || cfg.Signers == nil || cfg.TTL <= 0 {
		return nil, errors.New("token: a Minter needs an issuer, signers and a positive TTL")
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	return &Minter{cfg: cfg}, nil
}

// Grant is what the authorization server decided to let a client do.
type Grant struct {
	ClientID string
	// Subject is the person the token acts for, the sub claim; "" makes
	// it the client (a machine acting for itself).
	Subject  string
	Audience string   // the resource (RFC 8707) the token is for
	Tools    []string // mcp_tools: the validated composition's tools
	Scopes   []string // other granted scope values, e.g. typeward:admin
	Details  []verify.AuthorizationDetail
	// JKT, when set, binds the token to the client's DPoP key (cnf.jkt,
	// RFC 9449 §6): the thumbprint of the key its proof was signed with.
	JKT string
}

// Minted is a signed token and the claims it carries.
type Minted struct {
	Token  string
	Claims verify.Claims
}

// Mint signs a token for g: iss, sub = the subject or else client_id, aud, iat = nbf = now,
// exp = now + TTL, a random jti, the scope of g's tools and scopes.
func (m *Minter) Mint(g Grant) (Minted, error) {
	if g.ClientID == "" || g.Audience == "" {
		return Minted{}, errors.New("token: a grant needs a client id and an audience")
	}
	jti, err := newJTI()
	if err != nil {
		return Minted{}, err
	}
	now := m.cfg.Now().Truncate(time.Second)
	sub := g.Subject
	if sub == "" {
		sub = g.ClientID
	}
	c := verify.Claims{
		Issuer: m.cfg.Issuer, Subject: sub, ClientID: g.ClientID, Audience: []string{g.Audience},
		IssuedAt: now, NotBefore: now, ExpiresAt: now.Add(m.cfg.TTL), ID: jti,
		Scope: Scope(g.Tools, g.Scopes), Tools: g.Tools, AuthorizationDetails: g.Details, JKT: g.JKT,
	}
	tok, err := m.Sign(&c)
	if err != nil {
		return Minted{}, err
	}
	return Minted{Token: tok, Claims: c}, nil
}

// Sign signs c exactly as given, with the active key.
func (m *Minter) Sign(c *verify.Claims) (string, error) {
	s, err := m.cfg.Signers.Signer()
	if err != nil {
		return "", err
	}
	h, err := m.headerFor(s)
	if err != nil {
		return "", err
	}
	body, err := json.Marshal(payload{
		Issuer: c.Issuer, Subject: c.Subject, ClientID: c.ClientID, Audience: c.Audience,
		IssuedAt: c.IssuedAt.Unix(), NotBefore: unixOrZero(c.NotBefore), ExpiresAt: c.ExpiresAt.Unix(), ID: c.ID,
		Scope: strings.Join(c.Scope, " "), Tools: c.Tools, AuthorizationDetails: c.AuthorizationDetails,
		Confirmation: confirmation(c.JKT),
	})
	if err != nil {
		return "", fmt.Errorf("token: encode claims: %w", err)
	}
	enc := base64.RawURLEncoding
	var b strings.Builder
	b.Grow(len(h.encoded) + 1 + enc.EncodedLen(len(body)) + 1 + 120)
	b.WriteString(h.encoded)
	b.WriteByte('.')
	b.WriteString(enc.EncodeToString(body))
	sig, err := h.method.Sign(b.String(), s.Key)
	if err != nil {
		return "", fmt.Errorf("token: sign with %s: %w", s.KID, err)
	}
	b.WriteByte('.')
	b.WriteString(enc.EncodeToString(sig))
	return b.String(), nil
}

// confirmation is the cnf claim of a token bound to the key jkt, nil for
// a bearer token.
func confirmation(jkt string) *verify.Confirmation {
	if jkt == "" {
		return nil
	}
	return &verify.Confirmation{JKT: jkt}
}

// headerFor is s's encoded header, made once per signing key.
func (m *Minter) headerFor(s *keys.Signer) (*header, error) {
	if h := m.header.Load(); h != nil && h.kid == s.KID {
		return h, nil
	}
	var method jwt.SigningMethod
	switch s.Alg {
	case keys.ES256:
		method = jwt.SigningMethodES256
	case keys.EdDSA:
		method = jwt.SigningMethodEdDSA
	default:
		return nil, fmt.Errorf("token: key %s has unsupported alg %q", s.KID, s.Alg)
	}
	raw, err := json.Marshal(struct {
		Alg string `json:"alg"`
		Kid string `json:"kid"`
		Typ string `json:"typ"`
	}{method.Alg(), s.KID, "at+jwt"})
	if err != nil {
		return nil, err
	}
	h := &header{kid: s.KID, encoded: base64.RawURLEncoding.EncodeToString(raw), method: method}
	m.header.Store(h)
	return h, nil
}

// newJTI is a random token id of 128 bits.
func newJTI() (string, error) {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", fmt.Errorf("token: jti: %w", err)
	}
	return base64.RawURLEncoding.EncodeToString(b[:]), nil
}

// unixOrZero is t in seconds, 0 (nbf omitted) for the zero time.
func unixOrZero(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.Unix()
}
