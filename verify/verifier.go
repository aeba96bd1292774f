package verify

import (
	"context"
	"crypto"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"github.com/typeward/typeward/verify/dpop"
)

// MaxTokenSize bounds the tokens Verify parses. typeward's tokens are a
// few kilobytes even for large compositions.
const MaxTokenSize = 64 << 10

// DefaultLeeway is the clock skew tolerated on exp, nbf and iat.
const DefaultLeeway = 30 * time.Second

// MaxLeeway bounds Config.Leeway: a larger skew would let an expired token
// live on for longer than typeward's tokens last.
const MaxLeeway = 5 * time.Minute

// DefaultAlgorithms returns the algorithms typeward signs with (a new slice
// each call, so no caller can change another's allow-list).
func DefaultAlgorithms() []string { return []string{"ES256", "EdDSA"} }

// KeySource finds a public key by its kid, with the algorithm the key is
// for. The JWKS cache New builds on Config.JWKSURL is
// the usual one; typeward itself passes its keyring.
type KeySource interface {
	Key(ctx context.Context, kid string) (key crypto.PublicKey, alg string, err error)
}

// Config configures a Verifier. Issuer and either JWKSURL or Keys are
// required; so is Audience unless AcceptAnyAudience says otherwise.
type Config struct {
	// Issuer is typeward's issuer identifier, as its tokens' iss.
	Issuer string
	// Audience is this router's resource URI: tokens must name it in aud.
	Audience string
	// AcceptAnyAudience skips the audience check. Only the authorization
	// server itself (introspection) has a reason to set it.
	AcceptAnyAudience bool
	// JWKSURL is where typeward publishes its keys
	// (https://typeward.example.com/.well-known/jwks.json); New builds a
	// JWKS cache on it. Ignored when Keys is set.
	JWKSURL string
	// HTTPClient fetches JWKSURL; http.DefaultClient when nil. Each fetch
	// is bounded to 10 seconds whatever the client.
	HTTPClient *http.Client
	// MaxStale bounds how long past its max-age the JWKS cache keeps
	// trusting keys it cannot refresh (the authorization server down, or
	// answering errors): after that its keys are refused, since a key
	// typeward revoked would otherwise verify forever. When zero,
	// three times the set's max-age, and never less than a minute (two of
	// the 30 s between refetches of unknown keys, so a set served with
	// no-cache survives a failed refetch).
	MaxStale time.Duration
	// Keys, when set, supplies the keys instead of JWKSURL: keys the
	// router was given, or typeward's own keyring.
	Keys KeySource
	// Algorithms allowed; DefaultAlgorithms when empty. Only asymmetric
	// algorithms may be listed.
	Algorithms []string
	// Leeway on exp, nbf and iat; DefaultLeeway when zero, at most
	// MaxLeeway.
	Leeway time.Duration
	// Now is the clock; time.Now when nil.
	Now func() time.Time

	// Realm, when set, is the realm of the middleware's WWW-Authenticate
	// challenges.
	Realm string
	// ResourceMetadata, when set, is this router's RFC 9728 protected
	// resource metadata URL, announced in challenges so MCP clients can
	// find the authorization server.
	ResourceMetadata string
	// ChallengeScope, when set, is the scope Middleware's 401 and 403
	// challenges ask for: the whole set the request needs at once (claims
	// is nil on a 401; tool is the tool refused on a 403, "" otherwise).
	// Unset, a 401 names no scope and a 403 the refused tool's alone.
	ChallengeScope func(r *http.Request, claims *Claims, tool string) string
	// MaxBodyBytes bounds how much of a request body the middleware reads to
	// find the tool called; DefaultMaxBodyBytes when zero.
	MaxBodyBytes int64
	// DPoPReplayEntries bounds the DPoP proofs remembered against replay
	// (each for dpop.DefaultMaxAge plus dpop.DefaultLeeway);
	// dpop.DefaultReplayEntries when zero. A proof beyond it is refused
	// with 503 until older ones age out.
	DPoPReplayEntries int
	// Logger receives warnings (a plain-http JWKS URL); slog.Default when
	// nil.
	Logger *slog.Logger
}

// Verifier verifies typeward access tokens. It is safe for concurrent use.
type Verifier struct {
	cfg    Config
	keys   KeySource
	parser *jwt.Parser
	dpop   *dpop.Checker
	origin string // the Audience's scheme and host: where requests are sent
	ok     verifiedCache
}

// New checks cfg and returns a Verifier.
func New(cfg Config) (*Verifier, error) {
	var problems []string
	if cfg.Issuer == "" {
		problems = append(problems, "Issuer is required")
	}
	if cfg.Audience == "" && !cfg.AcceptAnyAudience {
		problems = append(problems, "Audience is required (this router's resource URI)")
	}
	if cfg.Keys == nil && cfg.JWKSURL == "" {
		problems = append(problems, "JWKSURL or Keys is required")
	}
	if len(cfg.Algorithms) == 0 {
		cfg.Algorithms = DefaultAlgorithms()
	}
	cfg.Algorithms = slices.Clone(cfg.Algorithms) // the caller's slice may change
	for _, a := range cfg.Algorithms {
		if a != "ES256" && a != "EdDSA" {
			problems = append(problems, fmt.Sprintf("algorithm %q is not supported (ES256, EdDSA)", a))
		}
	}
	if cfg.Leeway < 0 || cfg.MaxBodyBytes < 0 || cfg.MaxStale < 0 || cfg.DPoPReplayEntries < 0 {
		problems = append(problems, "Leeway, MaxBodyBytes, MaxStale and DPoPReplayEntries must not be negative")
	}
	if cfg.Leeway > MaxLeeway {
		problems = append(problems, fmt.Sprintf("Leeway %v is above the maximum %v", cfg.Leeway, MaxLeeway))
	}
	if len(problems) > 0 {
		return nil, fmt.Errorf("verify: %s", strings.Join(problems, "; "))
	}
	if cfg.Leeway == 0 {
		cfg.Leeway = DefaultLeeway
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.MaxBodyBytes == 0 {
		cfg.MaxBodyBytes = DefaultMaxBodyBytes
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if cfg.HTTPClient == nil {
		cfg.HTTPClient = http.DefaultClient
	}
	keys := cfg.Keys
	if keys == nil {
		if insecureURL(cfg.JWKSURL) {
			cfg.Logger.Warn("verify: the JWKS URL is plain http outside loopback: anyone on the path can substitute keys", "jwks_url", cfg.JWKSURL)
		}
		keys = newJWKS(cfg)
	}
	opts := []jwt.ParserOption{
		jwt.WithValidMethods(cfg.Algorithms),
		jwt.WithLeeway(cfg.Leeway),
		jwt.WithTimeFunc(cfg.Now),
		jwt.WithIssuer(cfg.Issuer),
		jwt.WithExpirationRequired(),
		jwt.WithIssuedAt(),
	}
	if !cfg.AcceptAnyAudience {
		opts = append(opts, jwt.WithAudience(cfg.Audience))
	}
	proofs, err := dpop.New(dpop.Config{Now: cfg.Now,
		Replay: dpop.NewReplayCache(cfg.DPoPReplayEntries, dpop.DefaultMaxAge+dpop.DefaultLeeway, cfg.Now)})
	if err != nil {
		return nil, err
	}
	return &Verifier{cfg: cfg, keys: keys, parser: jwt.NewParser(opts...), dpop: proofs, origin: originOf(cfg.Audience)}, nil
}

// Verify checks a token and returns its claims. Every error wraps
// ErrInvalidToken and one of ErrMalformed, ErrAlgorithm, ErrType,
// ErrCritical, ErrUnknownKey, ErrSignature, ErrExpired, ErrNotYetValid, ErrIssuer,
// ErrAudience or ErrMissingClaim.
func (v *Verifier) Verify(ctx context.Context, token string) (*Claims, error) {
	if len(token) > MaxTokenSize {
		return nil, invalid(ErrMalformed, fmt.Sprintf("token longer than %d bytes", MaxTokenSize))
	}
	now := v.cfg.Now()
	if e, ok := v.ok.get(token, now); ok && v.stillSigns(ctx, e) {
		claims := e.claims
		return &claims, nil
	}
	var (
		wire      wireClaims
		keyErr    error
		kid, alg  string
		signedKey crypto.PublicKey
	)
	tok, err := v.parser.ParseWithClaims(token, &wire, func(t *jwt.Token) (any, error) {
		key, err := v.key(ctx, t)
		keyErr = err
		kid, _ = t.Header["kid"].(string)
		alg, signedKey = t.Method.Alg(), key
		return key, err
	})
	if keyErr != nil {
		return nil, keyError(keyErr)
	}
	if err != nil {
		return nil, v.classify(tok, err)
	}
	claims := wire.claims()
	v.ok.put(token, claims, kid, alg, signedKey, now)
	return claims, nil
}

// stillSigns reports whether the key that checked a remembered token is
// still the key source's key of its kid, for its algorithm.
func (v *Verifier) stillSigns(ctx context.Context, e verifiedEntry) bool {
	key, alg, err := v.keys.Key(ctx, e.kid)
	eq, ok := key.(interface{ Equal(crypto.PublicKey) bool })
	return err == nil && alg == e.alg && ok && eq.Equal(e.key)
}

// key checks the header and finds the key named by kid, which must be for
// the algorithm the header names.
func (v *Verifier) key(ctx context.Context, t *jwt.Token) (crypto.PublicKey, error) {
	typ, _ := t.Header["typ"].(string)
	if !strings.EqualFold(typ, "at+jwt") && !strings.EqualFold(typ, "application/at+jwt") {
		return nil, fmt.Errorf("%w (got %q)", ErrType, typ)
	}
	if crit, ok := t.Header["crit"]; ok {
		// RFC 7515 §4.1.11: a recipient must refuse a token whose critical
		// extensions it does not understand, and this one understands none.
		return nil, fmt.Errorf("%w: %v", ErrCritical, crit)
	}
	kid, _ := t.Header["kid"].(string)
	if kid == "" {
		return nil, fmt.Errorf("%w: no kid in the header", ErrUnknownKey)
	}
	key, alg, err := v.keys.Key(ctx, kid)
	if err != nil {
		return nil, err
	}
	if alg != t.Method.Alg() {
		return nil, fmt.Errorf("%w: key %s is for %s, not %s", ErrAlgorithm, kid, alg, t.Method.Alg())
	}
	return key, nil
}

// keyError is an error of finding the key, which names its own reason.
func keyError(err error) error {
	for _, own := range []error{ErrType, ErrCritical, ErrUnknownKey, ErrAlgorithm} {
		if errors.Is(err, own) {
			return invalid(own, err.Error())
		}
	}
	return invalid(ErrUnknownKey, err.Error())
}

// classify maps a jwt error onto this package's errors. The jwt parser
// joins several errors; the first that applies, in this order, names it.
func (v *Verifier) classify(tok *jwt.Token, err error) error {
	if tok != nil {
		if alg, _ := tok.Header["alg"].(string); alg != "" && !slices.Contains(v.cfg.Algorithms, alg) {
			return invalid(ErrAlgorithm, fmt.Sprintf("alg %q is not allowed", alg))
		}
	}
	for _, m := range []struct{ jwt, own error }{
		{jwt.ErrTokenMalformed, ErrMalformed},
		{jwt.ErrTokenUnverifiable, ErrMalformed}, // no or unknown alg
		{jwt.ErrTokenSignatureInvalid, ErrSignature},
		{jwt.ErrTokenRequiredClaimMissing, ErrMissingClaim},
		{jwt.ErrTokenExpired, ErrExpired},
		{jwt.ErrTokenNotValidYet, ErrNotYetValid},
		{jwt.ErrTokenUsedBeforeIssued, ErrNotYetValid},
		{jwt.ErrTokenInvalidIssuer, ErrIssuer},
		{jwt.ErrTokenInvalidAudience, ErrAudience},
	} {
		if errors.Is(err, m.jwt) {
			return invalid(m.own, "")
		}
	}
	return invalid(ErrMalformed, "")
}

// invalid wraps why under ErrInvalidToken, with an optional detail that
// replaces why's own message.
func invalid(why error, detail string) error {
	if detail == "" {
		detail = why.Error()
	}
	return &tokenError{why: why, detail: detail}
}

type tokenError struct {
	why    error
	detail string
}

func (e *tokenError) Error() string   { return "invalid token: " + e.detail }
func (e *tokenError) Unwrap() []error { return []error{ErrInvalidToken, e.why} }

// insecureURL reports a plain-http URL to a host other than loopback.
func insecureURL(raw string) bool {
	u, err := url.Parse(raw)
	if err != nil || !strings.EqualFold(u.Scheme, "http") {
		return false
	}
	host := u.Hostname()
	if strings.EqualFold(host, "localhost") {
		return false
	}
	ip := net.ParseIP(host)
	return ip == nil || !ip.IsLoopback()
}
