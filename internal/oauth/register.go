package oauth

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/typeward/typeward/internal/addrkey"
	"github.com/typeward/typeward/internal/audit"
	"github.com/typeward/typeward/internal/clients"
	"github.com/typeward/typeward/internal/hosts"
	"github.com/typeward/typeward/internal/ratelimit"
	"github.com/typeward/typeward/internal/registration"
	"github.com/typeward/typeward/verify/strictjson"
)

// Bounds of dynamic registration, and defaults of Registrar.
const (
	// RegistrationMaxUnused caps registrations never used: past it, a
	// registration waits until one is used or expires.
	RegistrationMaxUnused = 1000
	// RegistrationUnusedTTL is how long a registration may stay unused.
	RegistrationUnusedTTL = 24 * time.Hour
	// A remote address may register RegistrationBurst times at once, then
	// once per 1/RegistrationRate seconds.
	RegistrationBurst = 10
	RegistrationRate  = 1.0 / 60
	// MaxAccessTokenTTL bounds an initial access token's life.
	MaxAccessTokenTTL     = 30 * 24 * time.Hour
	DefaultAccessTokenTTL = 24 * time.Hour
	// sweepRegistrations bounds the registrations one Sweep looks at.
	sweepRegistrations = 500
)

// RFC 7591 §3.2.2 error codes.
const (
	CodeInvalidRedirectURI    = "invalid_redirect_uri"
	CodeInvalidClientMetadata = "invalid_client_metadata"
	CodeInvalidToken          = "invalid_token" // RFC 6750, for the initial access token
)

// Registrar is RFC 7591 dynamic client registration (package
// registration keeps what it stores).
type Registrar struct {
	Mode    registration.Mode
	Store   registration.Store
	Hasher  *clients.Hasher
	Audit   audit.Store // where Sweep sees a client used
	Limiter *ratelimit.Limiter
	Issuer  string
	// MaxUnused and UnusedTTL: RegistrationMaxUnused and RegistrationUnusedTTL when
	// zero.
	MaxUnused int
	UnusedTTL time.Duration
	Now       func() time.Time
}

// NewRegistrationLimiter is the per-address bucket of registrations.
func NewRegistrationLimiter() (*ratelimit.Limiter, error) {
	return ratelimit.New(ratelimit.Config{Rate: RegistrationRate, Burst: RegistrationBurst})
}

func (s *Registrar) now() time.Time {
	if s.Now != nil {
		return s.Now()
	}
	return time.Now()
}

// RegistrationRequest is the RFC 7591 §2 client metadata typeward reads; other
// members are ignored, as §2 asks.
type RegistrationRequest struct {
	RedirectURIs            []string        `json:"redirect_uris"`
	TokenEndpointAuthMethod string          `json:"token_endpoint_auth_method"`
	GrantTypes              []string        `json:"grant_types"`
	ResponseTypes           []string        `json:"response_types"`
	ClientName              string          `json:"client_name"`
	ApplicationType         string          `json:"application_type"`
	JWKS                    json.RawMessage `json:"jwks"`
	JWKSURI                 string          `json:"jwks_uri"`
	Scope                   string          `json:"scope"`
}

// RegistrationResponse is the RFC 7591 §3.2.1 answer.
type RegistrationResponse struct {
	ClientID                string   `json:"client_id"`
	ClientSecret            string   `json:"client_secret,omitempty"`
	ClientIDIssuedAt        int64    `json:"client_id_issued_at"`
	ClientSecretExpiresAt   *int64   `json:"client_secret_expires_at,omitempty"`
	ClientName              string   `json:"client_name"`
	RedirectURIs            []string `json:"redirect_uris"`
	GrantTypes              []string `json:"grant_types"`
	ResponseTypes           []string `json:"response_types"`
	TokenEndpointAuthMethod string   `json:"token_endpoint_auth_method"`
	ApplicationType         string   `json:"application_type"`
	Scope                   string   `json:"scope,omitempty"`
}

// members are read by their exact names: another member folding like one
// ("Redirect_URIs") would mean one thing here and another to a peer.
var registrationMembers = []string{"redirect_uris", "token_endpoint_auth_method", "grant_types", "response_types",
	"client_name", "application_type", "jwks", "jwks_uri", "scope"}

// Register makes a host from the JSON metadata of body, sent from
// remoteAddr with the Authorization header authorization. Errors are
// *Error.
func (s *Registrar) Register(ctx context.Context, body []byte, remoteAddr, authorization string) (*RegistrationResponse, error) {
	if ok, wait := s.Limiter.Allow(addrkey.Of(remoteAddr)); !ok {
		return nil, &Error{Kind: KindRateLimited, Code: CodeRateLimited,
			Description: "too many registrations from this address; retry later", RetryAfter: wait}
	}
	now := s.now()
	if s.Mode == registration.Token {
		if err := s.spendToken(ctx, authorization, now); err != nil {
			return nil, err
		}
	}
	req, err := parseRegistration(body)
	if err != nil {
		return nil, err
	}
	c, secret, err := hosts.New(hosts.Metadata{Name: req.ClientName, Method: clients.AuthMethod(req.TokenEndpointAuthMethod),
		JWKS: req.JWKS, RedirectURIs: req.RedirectURIs, GrantTypes: req.GrantTypes, Scope: req.Scope}, s.Hasher, s.Issuer, now)
	var ve *clients.ValidationError
	if errors.As(err, &ve) {
		return nil, metadataError(ve)
	}
	if err != nil {
		return nil, err
	}
	maxUnused := positiveOr(s.MaxUnused, RegistrationMaxUnused)
	err = s.Store.Create(ctx, c, registration.Record{ClientID: c.ID, Address: addrkey.Of(remoteAddr), RegisteredAt: now}, maxUnused)
	if errors.Is(err, registration.ErrTooMany) {
		return nil, &Error{Kind: KindRateLimited, Code: CodeRateLimited,
			Description: fmt.Sprintf("%d registrations are waiting to be used; retry later", maxUnused), RetryAfter: time.Minute}
	}
	if err != nil {
		return nil, AsError(err)
	}
	out := &RegistrationResponse{ClientID: c.ID, ClientSecret: secret, ClientIDIssuedAt: now.Unix(), ClientName: c.Name,
		RedirectURIs: c.RedirectURIs, GrantTypes: c.GrantTypes, ResponseTypes: []string{"code"},
		TokenEndpointAuthMethod: string(c.TokenEndpointAuthMethod), ApplicationType: req.ApplicationType,
		Scope: strings.Join(c.Scope, " ")}
	if secret != "" {
		never := int64(0)
		out.ClientSecretExpiresAt = &never
	}
	return out, nil
}

// parse reads the metadata and applies RFC 7591's defaults.
func parseRegistration(body []byte) (*RegistrationRequest, error) {
	obj, err := strictjson.Object(body)
	if err != nil {
		return nil, invalidMetadata("the body is not one JSON object: %v", err)
	}
	if err := strictjson.Exact(obj, registrationMembers...); err != nil {
		return nil, invalidMetadata("%v", err)
	}
	known := map[string]json.RawMessage{}
	for _, m := range registrationMembers {
		if v, ok := obj[m]; ok && string(v) != "null" {
			known[m] = v
		}
	}
	raw, _ := json.Marshal(known)
	var req RegistrationRequest
	if err := json.Unmarshal(raw, &req); err != nil {
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			return nil, invalidMetadata("member %s has the wrong JSON type", te.Field)
		}
		return nil, invalidMetadata("the metadata does not decode")
	}
	if req.TokenEndpointAuthMethod == "" {
		req.TokenEndpointAuthMethod = string(clients.SecretBasic) // RFC 7591 §2
	}
	switch req.ApplicationType {
	case "":
		req.ApplicationType = "web"
	case "web", "native":
	default:
		return nil, invalidMetadata("application_type %q: want web or native", clipped(req.ApplicationType))
	}
	if slices.ContainsFunc(req.ResponseTypes, func(t string) bool { return t != "code" }) {
		return nil, invalidMetadata(`response_types may hold only "code"`)
	}
	if req.JWKSURI != "" {
		return nil, invalidMetadata("jwks_uri is not fetched for a registration: send the keys as jwks, or publish a client ID metadata document")
	}
	if req.ClientName == "" {
		req.ClientName = "unnamed client"
	}
	return &req, nil
}

// metadataError is RFC 7591 §3.2.2's answer to refused metadata.
func metadataError(ve *clients.ValidationError) *Error {
	code := CodeInvalidClientMetadata
	var msgs []string
	for _, p := range ve.Problems {
		if strings.HasPrefix(p.Field, "/redirect_uris") && code == CodeInvalidClientMetadata && len(msgs) == 0 {
			code = CodeInvalidRedirectURI
		}
		msgs = append(msgs, strings.TrimPrefix(p.Field, "/")+" "+p.Message)
	}
	return &Error{Kind: KindBadRequest, Code: code, Description: ASCII(strings.Join(msgs, "; "))}
}

func invalidMetadata(format string, args ...any) *Error {
	return &Error{Kind: KindBadRequest, Code: CodeInvalidClientMetadata, Description: ASCII(fmt.Sprintf(format, args...))}
}

// spendToken checks the initial access token of an Authorization: Bearer
// header and spends it.
func (s *Registrar) spendToken(ctx context.Context, authorization string, now time.Time) error {
	scheme, token, _ := strings.Cut(authorization, " ")
	if !strings.EqualFold(scheme, "Bearer") || strings.TrimSpace(token) == "" {
		return &Error{Kind: KindUnauthorized, Code: CodeInvalidToken, Description: "registration needs an initial access token (Authorization: Bearer)"}
	}
	h := sha256.Sum256([]byte(strings.TrimSpace(token)))
	err := s.Store.UseToken(ctx, h[:], now)
	if errors.Is(err, registration.ErrNotFound) {
		return &Error{Kind: KindUnauthorized, Code: CodeInvalidToken, Description: "the initial access token is unknown, spent or expired"}
	}
	if err != nil {
		return AsError(err)
	}
	return nil
}

// NewToken makes an initial access token valid for ttl (DefaultAccessTokenTTL
// when zero, at most MaxAccessTokenTTL), good for one registration. The token
// is returned here only: the store keeps its SHA-256.
func (s *Registrar) NewToken(ctx context.Context, ttl time.Duration) (string, time.Time, error) {
	if ttl == 0 {
		ttl = DefaultAccessTokenTTL
	}
	if ttl < time.Minute || ttl > MaxAccessTokenTTL {
		return "", time.Time{}, fmt.Errorf("%w: expires_in must be from 60 seconds to %d", ErrInvalidAccessTokenTTL, int(MaxAccessTokenTTL.Seconds()))
	}
	token := base64.RawURLEncoding.EncodeToString([]byte(rand.Text()))
	h := sha256.Sum256([]byte(token))
	now := s.now()
	exp := now.Add(ttl).UTC().Truncate(time.Second)
	if err := s.Store.AddToken(ctx, registration.AccessToken{Hash: h[:], CreatedAt: now, ExpiresAt: exp}); err != nil {
		return "", time.Time{}, err
	}
	return token, exp, nil
}

// ErrInvalidAccessTokenTTL is a refused initial access token lifetime.
var ErrInvalidAccessTokenTTL = errors.New("invalid initial access token lifetime")

// Sweep marks the registrations whose client was issued a token as used
// and deletes, with their client, those never used past UnusedTTL. It
// looks at the oldest sweepRegistrations unused registrations a run.
func (s *Registrar) Sweep(ctx context.Context) (used, expired int, err error) {
	recs, err := s.Store.Unused(ctx, sweepRegistrations)
	if err != nil {
		return 0, 0, err
	}
	now := s.now()
	ttl := positiveOr(s.UnusedTTL, RegistrationUnusedTTL)
	for _, r := range recs {
		page, err := s.Audit.Query(ctx, audit.Query{ClientID: r.ClientID, Outcome: audit.Issued, Limit: 1})
		if err != nil {
			return used, expired, err
		}
		switch {
		case len(page.Items) > 0:
			if err := s.Store.MarkUsed(ctx, r.ClientID, page.Items[0].Time); err != nil {
				return used, expired, err
			}
			used++
		case now.Sub(r.RegisteredAt) > ttl:
			if err := s.Store.Delete(ctx, r.ClientID); err != nil && !errors.Is(err, registration.ErrNotFound) {
				return used, expired, err
			}
			expired++
		}
	}
	return used, expired, nil
}

func positiveOr[T int | time.Duration](v, def T) T {
	if v <= 0 {
		return def
	}
	return v
}

func clipped(s string) string {
	if len(s) > 40 {
		return s[:40] + "…"
	}
	return s
}
