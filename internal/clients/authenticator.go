package clients

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"time"
)

// Form parameters of client authentication (RFC 6749 §2.3.1, RFC 7521 §4.2).
const (
	ParamClientID            = "client_id"
	ParamClientSecret        = "client_secret"
	ParamClientAssertion     = "client_assertion"
	ParamClientAssertionType = "client_assertion_type"
	// JWTBearerAssertionType is the client_assertion_type of private_key_jwt.
	JWTBearerAssertionType = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"
)

// Defaults of AuthenticatorConfig.
const (
	DefaultMaxAssertionLifetime = 5 * time.Minute
	DefaultLeeway               = 30 * time.Second
)

// MaxClientIDLen bounds the ids looked up: longer ones cannot exist.
const MaxClientIDLen = 256

// AuthenticatorConfig is what an Authenticator needs.
type AuthenticatorConfig struct {
	Clients Getter
	Hasher  *Hasher
	// Replay remembers assertion jtis; required.
	Replay ReplayStore
	// Issuer is the issuer identifier: a private_key_jwt assertion's aud
	// must be exactly it (draft-ietf-oauth-rfc7523bis, which closes the
	// audience-injection attack on assertions aimed at several servers).
	// Required.
	Issuer string
	// MaxAssertionLifetime bounds how far ahead an assertion's exp may be
	// (default 5 minutes): it bounds how long the replay store remembers.
	MaxAssertionLifetime time.Duration
	// Leeway tolerates clock skew on exp, nbf and iat (default 30 seconds).
	Leeway time.Duration
	// Now is the clock (default time.Now).
	Now func() time.Time
}

// Authenticator authenticates the client of a token, introspection or
// revocation request.
type Authenticator struct {
	clients     Getter
	hasher      *Hasher
	replay      ReplayStore
	issuer      string
	maxLifetime time.Duration
	leeway      time.Duration
	now         func() time.Time
}

// NewAuthenticator checks cfg and applies its defaults.
func NewAuthenticator(cfg AuthenticatorConfig) (*Authenticator, error) {
	var missing []string
	if cfg.Clients == nil {
		missing = append(missing, "Clients")
	}
	if cfg.Hasher == nil {
		missing = append(missing, "Hasher")
	}
	if cfg.Replay == nil {
		missing = append(missing, "Replay")
	}
	if cfg.Issuer == "" {
		missing = append(missing, "Issuer")
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("clients: authenticator config lacks %v", missing)
	}
	a := &Authenticator{
		clients:     cfg.Clients,
		hasher:      cfg.Hasher,
		replay:      cfg.Replay,
		issuer:      cfg.Issuer,
		maxLifetime: cfg.MaxAssertionLifetime,
		leeway:      cfg.Leeway,
		now:         cfg.Now,
	}
	if a.maxLifetime <= 0 {
		a.maxLifetime = DefaultMaxAssertionLifetime
	}
	if a.leeway <= 0 {
		a.leeway = DefaultLeeway
	}
	if a.now == nil {
		a.now = time.Now
	}
	return a, nil
}

// Authenticate finds the client a request authenticates as, from its parsed
// form and its Authorization header ("" when absent). A failure is an
// *AuthError; any other error is the server's (store unreachable).
func (a *Authenticator) Authenticate(ctx context.Context, form url.Values, authorization string) (*Client, error) {
	header := authorization != ""
	claimedID := first(form[ParamClientID])
	fail := func(code ErrorCode, reason Reason, desc string) error {
		return &AuthError{Code: code, Reason: reason, Description: desc, BasicHeader: header, ClientID: claimedID}
	}

	for _, p := range []string{ParamClientID, ParamClientSecret, ParamClientAssertion, ParamClientAssertionType} {
		if len(form[p]) > 1 {
			return nil, fail(InvalidRequest, ReasonRepeatedParameter, "parameter "+p+" is repeated")
		}
	}
	post := form.Has(ParamClientSecret)
	assertion := form.Has(ParamClientAssertion) || form.Has(ParamClientAssertionType)
	if count(header, post, assertion) > 1 {
		// OAuth 2.1 §2.4: a client MUST NOT use more than one method per request.
		return nil, fail(InvalidRequest, ReasonMultipleMethods, "more than one client authentication method used")
	}

	switch {
	case header:
		id, secret, err := ParseBasic(authorization)
		if err != nil {
			return nil, fail(InvalidClient, ReasonMalformed, err.Error())
		}
		if claimedID != "" && claimedID != id {
			return nil, fail(InvalidRequest, ReasonClientIDMismatch, "client_id differs from the Basic credentials")
		}
		claimedID = id
		return a.secret(ctx, id, secret, SecretBasic, fail)
	case post:
		if claimedID == "" {
			return nil, fail(InvalidRequest, ReasonMalformed, "client_secret without client_id")
		}
		return a.secret(ctx, claimedID, form.Get(ParamClientSecret), SecretPost, fail)
	case assertion:
		return a.assertion(ctx, form, &claimedID, fail)
	default:
		return nil, fail(InvalidClient, ReasonNoCredentials, "client authentication required")
	}
}

type failFunc func(ErrorCode, Reason, string) error

// secret authenticates client_secret_basic and client_secret_post. Unknown
// client and wrong secret take the same path: a keyed hash and a constant
// time comparison, against a dummy when there is no stored hash.
func (a *Authenticator) secret(ctx context.Context, id, secret string, method AuthMethod, fail failFunc) (*Client, error) {
	c, err := a.lookup(ctx, id)
	if err != nil {
		return nil, err
	}
	var stored []byte
	if c != nil && c.TokenEndpointAuthMethod.UsesSecret() {
		stored = c.SecretHash
	}
	ok := a.hasher.Verify(id, secret, stored)
	switch {
	case c == nil:
		return nil, fail(InvalidClient, ReasonUnknownClient, genericFailure)
	case !c.TokenEndpointAuthMethod.UsesSecret():
		return nil, fail(InvalidClient, ReasonMethodMismatch, genericFailure)
	case !ok:
		return nil, fail(InvalidClient, ReasonBadSecret, genericFailure)
	case c.TokenEndpointAuthMethod != method:
		// A client authenticates only with its registered method: anything
		// else is a failed authentication (401). The secret is right, so
		// saying what is wrong reveals nothing.
		return nil, fail(InvalidClient, ReasonMethodMismatch, "client is registered for "+string(c.TokenEndpointAuthMethod))
	case c.Disabled:
		return nil, fail(InvalidClient, ReasonDisabled, "client is disabled")
	}
	return c, nil
}

// lookup returns the client, nil when there is none, or a store error.
func (a *Authenticator) lookup(ctx context.Context, id string) (*Client, error) {
	if id == "" || len(id) > MaxClientIDLen {
		return nil, nil
	}
	c, err := a.clients.Get(ctx, id)
	if errors.Is(err, ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("authenticate client: %w", err)
	}
	return c, nil
}

func first(vs []string) string {
	if len(vs) == 0 {
		return ""
	}
	return vs[0]
}

func count(bs ...bool) int {
	n := 0
	for _, b := range bs {
		if b {
			n++
		}
	}
	return n
}
