// Package dpop checks DPoP proofs (RFC 9449): a JWT a client signs with a
// key of its own for each request, binding the request (method, URL, time
// and, at a resource server, the access token) to that key, so that a
// token bound to the key (cnf.jkt) is useless to whoever copies it. The
// check is pure: the caller says what the request is and supplies the
// replay store; nonces are the caller's (Proof.Nonce).
package dpop

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"github.com/typeward/typeward/verify/jwk"
	"github.com/typeward/typeward/verify/strictjson"
)

// Header is the HTTP header a proof travels in.
const Header = "DPoP"

// Bounds of a proof.
const (
	// MaxProofSize bounds a proof: an RSA-4096 key's proof is under 2 KiB.
	MaxProofSize = 8 << 10
	// DefaultMaxAge is how long after its iat a proof is accepted: a proof
	// is made for one request, at once.
	DefaultMaxAge = 2 * time.Minute
	// DefaultLeeway is how far in the future a proof's iat may be (the
	// client's clock ahead of the server's).
	DefaultLeeway = 30 * time.Second
	// MaxWindow bounds MaxAge and Leeway each.
	MaxWindow = 10 * time.Minute
	// MaxJTILength bounds a proof's jti.
	MaxJTILength = 256
)

// DefaultAlgorithms are the proof algorithms accepted when Config names
// none (a new slice each call).
func DefaultAlgorithms() []string { return []string{"ES256", "EdDSA", "RS256"} }

// ErrInvalidProof is wrapped by every error Check returns, with one of the
// more specific errors below.
var ErrInvalidProof = errors.New("invalid DPoP proof")

// Why a proof is invalid.
var (
	ErrMalformed   = errors.New("malformed proof")
	ErrType        = errors.New("typ must be dpop+jwt")
	ErrAlgorithm   = errors.New("proof algorithm not allowed")
	ErrKey         = errors.New("the proof's jwk is not an allowed public key")
	ErrKeyMismatch = errors.New("the proof is signed by another key than the token is bound to")
	ErrSignature   = errors.New("proof signature does not verify")
	ErrMethod      = errors.New("htm is not the request's method")
	ErrURL         = errors.New("htu is not the request's URL")
	ErrIssuedAt    = errors.New("iat outside the accepted window")
	ErrTokenHash   = errors.New("ath is not the hash of the access token")
	ErrReplayed    = errors.New("proof jti already used")
)

// Replay remembers the proofs accepted, so each is accepted once. Claim
// records (jkt, jti) until the time given and returns an error wrapping
// ErrReplayed when the pair is recorded already; any other error refuses
// the proof too. ReplayCache is one, in memory.
type Replay interface {
	Claim(ctx context.Context, jkt, jti string, until time.Time) error
}

// Config configures a Checker. Replay is required.
type Config struct {
	// Algorithms allowed; DefaultAlgorithms when empty. Only ES256, EdDSA
	// and RS256 may be listed.
	Algorithms []string
	// MaxAge and Leeway bound iat: DefaultMaxAge and DefaultLeeway when
	// zero, at most MaxWindow.
	MaxAge, Leeway time.Duration
	Replay         Replay
	// Now is the clock; time.Now when nil.
	Now func() time.Time
}

// Checker checks proofs. It is safe for concurrent use.
type Checker struct {
	cfg Config
	// headers are the headers read, by their encoded form: a client's
	// proofs share theirs (typ, alg, jwk), whose reading costs as much
	// as the rest of the check. Bounded by maxHeaders, emptied when full.
	mu      sync.Mutex
	headers map[string]header
}

// maxHeaders bounds the headers a Checker keeps read.
const maxHeaders = 4096

type header struct {
	key    jwk.Key
	method jwt.SigningMethod // of the header's alg, looked up once
}

// New checks cfg and returns a Checker.
func New(cfg Config) (*Checker, error) {
	var problems []string
	if cfg.Replay == nil {
		problems = append(problems, "Replay is required")
	}
	if len(cfg.Algorithms) == 0 {
		cfg.Algorithms = DefaultAlgorithms()
	}
	cfg.Algorithms = slices.Clone(cfg.Algorithms)
	for _, a := range cfg.Algorithms {
		if !slices.Contains(DefaultAlgorithms(), a) {
			problems = append(problems, fmt.Sprintf("algorithm %q is not supported (ES256, EdDSA, RS256)", a))
		}
	}
	if cfg.MaxAge < 0 || cfg.Leeway < 0 || cfg.MaxAge > MaxWindow || cfg.Leeway > MaxWindow {
		problems = append(problems, fmt.Sprintf("MaxAge and Leeway must be within 0 and %v", MaxWindow))
	}
	if len(problems) > 0 {
		return nil, fmt.Errorf("dpop: %s", strings.Join(problems, "; "))
	}
	if cfg.MaxAge == 0 {
		cfg.MaxAge = DefaultMaxAge
	}
	if cfg.Leeway == 0 {
		cfg.Leeway = DefaultLeeway
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	return &Checker{cfg: cfg, headers: map[string]header{}}, nil
}

// Algorithms are the algorithms the checker accepts, for metadata
// (dpop_signing_alg_values_supported) and challenges (algs).
func (c *Checker) Algorithms() []string { return slices.Clone(c.cfg.Algorithms) }

// Window is how long the replay store must remember a proof at most:
// MaxAge past an iat up to Leeway ahead.
func (c *Checker) Window() time.Duration { return c.cfg.MaxAge + c.cfg.Leeway }

// Request is what a proof must match.
type Request struct {
	Method string // the HTTP method, as htm
	// URL is the URL the request was sent to, as the client named it
	// (scheme and host of the public endpoint); query and fragment are
	// ignored, on both sides.
	URL string
	// AccessToken, at a resource server, is the token the proof comes
	// with: ath must be its hash. Empty at the token endpoint, where ath is
	// not looked at.
	AccessToken string
	// JKT, when set, is the thumbprint of the key the proof must be signed
	// with: the token's cnf.jkt.
	JKT string
}

// Proof is what a valid proof says.
type Proof struct {
	JKT      string // the RFC 7638 thumbprint of the proof's key
	ID       string // jti
	IssuedAt time.Time
	Nonce    string // the nonce claim, "" when absent: the caller checks it
}

// Check verifies proof against req and records it in the replay store.
// An error wraps ErrInvalidProof and one of the errors above, except when
// the replay store failed (ErrReplayCacheFull, a database down): then the
// server is at fault, not the proof.
func (c *Checker) Check(ctx context.Context, proof string, req Request) (Proof, error) {
	if len(proof) > MaxProofSize {
		return Proof{}, invalid(ErrMalformed, fmt.Sprintf("proof longer than %d bytes", MaxProofSize))
	}
	// The signing input is the proof up to its last dot: sliced, not
	// split and joined again.
	if strings.Count(proof, ".") != 2 {
		return Proof{}, invalid(ErrMalformed, "a proof is a compact JWS of three parts")
	}
	first, last := strings.IndexByte(proof, '.'), strings.LastIndexByte(proof, '.')
	h, err := c.header(proof[:first])
	if err != nil {
		return Proof{}, err
	}
	key := h.key
	sig, err := base64.RawURLEncoding.DecodeString(proof[last+1:])
	if err != nil {
		return Proof{}, invalid(ErrMalformed, "signature: "+err.Error())
	}
	if err := h.method.Verify(proof[:last], sig, key.Public); err != nil {
		return Proof{}, invalid(ErrSignature, "")
	}
	claims, err := readClaims(proof[first+1 : last])
	if err != nil {
		return Proof{}, err
	}
	now := c.cfg.Now()
	switch {
	case req.JKT != "" && key.Thumbprint != req.JKT:
		return Proof{}, invalid(ErrKeyMismatch, "")
	case claims.Htm != req.Method:
		return Proof{}, invalid(ErrMethod, fmt.Sprintf("htm %q, the request is %s", clip(claims.Htm), req.Method))
	case !sameURL(claims.Htu, req.URL):
		return Proof{}, invalid(ErrURL, fmt.Sprintf("htu %q, the request is to %s", clip(claims.Htu), withoutQuery(req.URL)))
	case claims.iat.Before(now.Add(-c.cfg.MaxAge)) || claims.iat.After(now.Add(c.cfg.Leeway)):
		return Proof{}, invalid(ErrIssuedAt, fmt.Sprintf("iat %s is not within %v before and %v after %s",
			claims.iat.UTC().Format(time.RFC3339), c.cfg.MaxAge, c.cfg.Leeway, now.UTC().Format(time.RFC3339)))
	case req.AccessToken != "" && claims.Ath == "":
		return Proof{}, invalid(ErrTokenHash, "the proof has no ath")
	case req.AccessToken != "" && !hashOf(claims.Ath, req.AccessToken):
		return Proof{}, invalid(ErrTokenHash, "")
	}
	if err := c.cfg.Replay.Claim(ctx, key.Thumbprint, claims.Jti, claims.iat.Add(c.cfg.MaxAge)); err != nil {
		if errors.Is(err, ErrReplayed) {
			return Proof{}, invalid(ErrReplayed, "")
		}
		// The server's failure, not the proof's: not ErrInvalidProof.
		return Proof{}, fmt.Errorf("dpop: the replay check: %w", err)
	}
	return Proof{JKT: key.Thumbprint, ID: claims.Jti, IssuedAt: claims.iat, Nonce: claims.Nonce}, nil
}

// header reads the protected header: typ, alg and the public jwk the
// proof is signed with.
func (c *Checker) header(seg string) (header, error) {
	c.mu.Lock()
	h, ok := c.headers[seg]
	c.mu.Unlock()
	if ok {
		return h, nil
	}
	h, err := c.readHeader(seg)
	if err != nil {
		return header{}, err
	}
	c.mu.Lock()
	if len(c.headers) >= maxHeaders {
		clear(c.headers)
	}
	c.headers[seg] = h
	c.mu.Unlock()
	return h, nil
}

// readHeader reads a header, refusing members given twice (RFC 7515 §4).
func (c *Checker) readHeader(seg string) (header, error) {
	raw, err := base64.RawURLEncoding.DecodeString(seg)
	if err != nil {
		return header{}, invalid(ErrMalformed, "header: "+err.Error())
	}
	obj, err := strictjson.Object(raw)
	if err == nil {
		err = strictjson.Exact(obj, "typ", "alg", "jwk", "crit")
	}
	if err != nil {
		return header{}, invalid(ErrMalformed, "header: "+err.Error())
	}
	if _, ok := obj["crit"]; ok {
		return header{}, invalid(ErrMalformed, "header: crit is not understood")
	}
	var h struct {
		Typ, Alg string
		JWK      json.RawMessage
	}
	if err := json.Unmarshal(raw, &h); err != nil {
		return header{}, invalid(ErrMalformed, "header: "+err.Error())
	}
	if !strings.EqualFold(h.Typ, "dpop+jwt") {
		return header{}, invalid(ErrType, fmt.Sprintf("typ must be dpop+jwt, not %q", clip(h.Typ)))
	}
	if !slices.Contains(c.cfg.Algorithms, h.Alg) {
		return header{}, invalid(ErrAlgorithm, fmt.Sprintf("alg %q is not allowed (%s)", clip(h.Alg), strings.Join(c.cfg.Algorithms, ", ")))
	}
	if len(h.JWK) == 0 {
		return header{}, invalid(ErrKey, "the header has no jwk")
	}
	key, err := jwk.Parse(h.JWK)
	if err != nil {
		return header{}, invalid(ErrKey, err.Error())
	}
	if key.Alg != h.Alg {
		return header{}, invalid(ErrAlgorithm, fmt.Sprintf("alg %s with a key for %s", h.Alg, key.Alg))
	}
	return header{key: key, method: jwt.GetSigningMethod(h.Alg)}, nil
}

type claims struct {
	Jti, Htm, Htu, Ath, Nonce string
	Iat                       json.Number
	iat                       time.Time
}

// readClaims reads the payload: jti, htm, htu and iat are required. Of a
// claim given twice the last counts (RFC 7519 §4 allows it): the client
// signed both, and no one else reads them.
func readClaims(seg string) (claims, error) {
	raw, err := base64.RawURLEncoding.DecodeString(seg)
	if err != nil {
		return claims{}, invalid(ErrMalformed, "payload: "+err.Error())
	}
	var c claims
	if err := json.Unmarshal(raw, &c); err != nil {
		return claims{}, invalid(ErrMalformed, "payload: "+err.Error())
	}
	var missing []string
	for _, m := range []struct {
		name string
		ok   bool
	}{{"jti", c.Jti != ""}, {"htm", c.Htm != ""}, {"htu", c.Htu != ""}, {"iat", c.Iat != ""}} {
		if !m.ok {
			missing = append(missing, m.name)
		}
	}
	if len(missing) > 0 {
		return claims{}, invalid(ErrMalformed, "payload: missing "+strings.Join(missing, ", "))
	}
	if len(c.Jti) > MaxJTILength {
		return claims{}, invalid(ErrMalformed, fmt.Sprintf("jti longer than %d bytes", MaxJTILength))
	}
	secs, err := c.Iat.Float64()
	if err != nil || math.IsInf(secs, 0) || math.Abs(secs) > 1e11 {
		return claims{}, invalid(ErrMalformed, "iat is not a NumericDate")
	}
	c.iat = time.Unix(0, 0).Add(time.Duration(secs * float64(time.Second)))
	return c, nil
}

// TokenHash is ath for an access token: the base64url SHA-256 of its
// ASCII.
func TokenHash(token string) string {
	enc := tokenHash(token)
	return string(enc[:])
}

// hashOf is whether ath is TokenHash(token), without allocating: the check
// of every proof at a resource server.
func hashOf(ath, token string) bool {
	enc := tokenHash(token)
	return ath == string(enc[:])
}

func tokenHash(token string) (enc [43]byte) { // base64url of 32 bytes, unpadded
	sum := sha256.Sum256([]byte(token))
	base64.RawURLEncoding.Encode(enc[:], sum[:])
	return enc
}

// clip bounds a value quoted from a proof in an error.
func clip(s string) string {
	if len(s) > 100 {
		return s[:100] + "..."
	}
	return s
}

// invalid wraps why under ErrInvalidProof, with a detail replacing why's
// own message when given.
func invalid(why error, detail string) error {
	if detail == "" {
		detail = why.Error()
	}
	return &proofError{why: why, detail: detail}
}

type proofError struct {
	why    error
	detail string
}

func (e *proofError) Error() string   { return "invalid DPoP proof: " + e.detail }
func (e *proofError) Unwrap() []error { return []error{ErrInvalidProof, e.why} }
