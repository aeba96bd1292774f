package clients

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/typeward/typeward/internal/grading"
	"github.com/typeward/typeward/internal/resources"
	"github.com/typeward/typeward/verify"
)

// Registration is the RFC 7591-style client metadata of a create request.
type Registration struct {
	ClientName string `json:"client_name"`
	// TokenEndpointAuthMethod defaults to client_secret_basic, as in RFC 7591.
	TokenEndpointAuthMethod AuthMethod      `json:"token_endpoint_auth_method,omitempty"`
	JWKS                    json.RawMessage `json:"jwks,omitempty"`
	AllowedTools            []string        `json:"allowed_tools,omitempty"`
	AllowedAudiences        []string        `json:"allowed_audiences,omitempty"`
	AllowedScopes           []string        `json:"allowed_scopes,omitempty"`
	// RedirectURIs are needed by, and only used with, authorization_code.
	RedirectURIs []string `json:"redirect_uris,omitempty"`
	// GrantTypes defaults to authorization_code when redirect_uris are
	// given or the client is public (RFC 7591 §2), else to
	// client_credentials and CIBA.
	GrantTypes []string `json:"grant_types,omitempty"`
	// Scope is the RFC 7591 §2 scope (space-separated values): what the
	// authorization endpoint asks for when a request names neither scope
	// nor authorization_details. Only with authorization_code.
	Scope string `json:"scope,omitempty"`
	// Approval defaults to never.
	Approval Approval `json:"approval,omitempty"`
	// Validation defaults to lenient.
	Validation grading.Mode `json:"validation,omitempty"`
	// DPoPBoundAccessTokens (RFC 9449 §5.2): every token request must
	// carry a DPoP proof. Defaults to false.
	DPoPBoundAccessTokens bool `json:"dpop_bound_access_tokens,omitempty"`
	// Issuer is this server's issuer identifier, set by the caller (never
	// from the request): a client may not list it as an audience, or its
	// tool tokens would be accepted where typeward's own are.
	Issuer string `json:"-"`
}

// Bounds on a registration: generous for real use, small enough that one
// client row stays small.
const (
	maxNameLen    = 200
	maxTools      = 200
	maxAudiences  = 50
	maxScopes     = 50
	maxScopeLen   = 200
	maxGrantTypes = 8
)

// Validate returns a *ValidationError listing every problem, or nil. It
// applies the default auth method first, so call it on the value you keep.
func (r *Registration) Validate() error {
	if r.TokenEndpointAuthMethod == "" {
		r.TokenEndpointAuthMethod = SecretBasic
	}
	r.Approval = r.Approval.OrNever()
	r.Validation = r.Validation.OrLenient()
	var ps []Problem
	add := func(field, format string, args ...any) {
		ps = append(ps, Problem{Field: field, Message: fmt.Sprintf(format, args...)})
	}

	switch name := r.ClientName; {
	case strings.TrimSpace(name) == "":
		add("/client_name", "is required")
	case !utf8.ValidString(name):
		add("/client_name", "is not valid UTF-8")
	case utf8.RuneCountInString(name) > maxNameLen:
		add("/client_name", "is longer than %d characters", maxNameLen)
	case strings.ContainsFunc(name, unicode.IsControl):
		add("/client_name", "contains a control character")
	case strings.ContainsFunc(name, invisible):
		add("/client_name", "contains an invisible formatting character (a bidi override, a zero-width or line separator)")
	}

	if !r.Approval.Valid() {
		add("/approval", "%s", approvalProblem)
	}
	if !r.Validation.Valid() {
		add("/validation", "%s", validationProblem)
	}
	if !r.TokenEndpointAuthMethod.Valid() {
		add("/token_endpoint_auth_method", "must be one of client_secret_basic, client_secret_post, private_key_jwt, none")
	}
	if r.TokenEndpointAuthMethod == PrivateKeyJWT {
		if len(r.JWKS) == 0 {
			add("/jwks", "is required for private_key_jwt")
		} else if _, err := parsePublicJWKS(r.JWKS); err != nil {
			add("/jwks", "%s", err)
		}
	} else if len(r.JWKS) > 0 && string(r.JWKS) != "null" {
		add("/jwks", "is only used with private_key_jwt")
	}

	if len(r.AllowedTools) == 0 && len(r.AllowedScopes) == 0 {
		add("/allowed_tools", "is required unless allowed_scopes grants something")
	}
	if len(r.AllowedTools) > maxTools {
		add("/allowed_tools", "has more than %d patterns", maxTools)
	}
	eachUnique(r.AllowedTools, "/allowed_tools", add, ValidateToolPattern)

	// A host of the authorization code grant without admin-set audiences
	// asks for the server's protected resources (package hosts).
	if len(r.AllowedTools) > 0 && len(r.AllowedAudiences) == 0 && !r.authorizationCode() {
		add("/allowed_audiences", "is required when allowed_tools is set (a tool token names its resource)")
	}
	if len(r.AllowedAudiences) > maxAudiences {
		add("/allowed_audiences", "has more than %d entries", maxAudiences)
	}
	eachUnique(r.AllowedAudiences, "/allowed_audiences", add, validateAudience)
	for i, a := range r.AllowedAudiences {
		if resources.IsIssuer(a, r.Issuer) {
			add(fmt.Sprintf("/allowed_audiences/%d", i), "%q is this server's issuer: tokens for typeward itself are not a client's to ask for", a)
		}
	}

	r.validateRedirection(add)

	if len(r.AllowedScopes) > maxScopes {
		add("/allowed_scopes", "has more than %d entries", maxScopes)
	}
	eachUnique(r.AllowedScopes, "/allowed_scopes", add, validateScope)
	r.validateRegisteredScope(add)

	if len(ps) > 0 {
		return &ValidationError{Problems: ps}
	}
	return nil
}

// authorizationCode reports whether the client will have the
// authorization code grant, as validateRedirection defaults it.
func (r *Registration) authorizationCode() bool {
	if len(r.GrantTypes) == 0 {
		return len(r.RedirectURIs) > 0 || r.TokenEndpointAuthMethod == None
	}
	return slices.Contains(r.GrantTypes, GrantAuthorizationCode)
}

// validateRedirection checks redirect_uris and grant_types together,
// after defaulting the grant types.
func (r *Registration) validateRedirection(add func(string, string, ...any)) {
	if len(r.GrantTypes) == 0 {
		r.GrantTypes = slices.Clone(machineGrants)
		if len(r.RedirectURIs) > 0 || r.TokenEndpointAuthMethod == None {
			r.GrantTypes = []string{GrantAuthorizationCode}
		}
	}
	if len(r.GrantTypes) > maxGrantTypes {
		add("/grant_types", "has more than %d entries", maxGrantTypes)
	}
	eachUnique(r.GrantTypes, "/grant_types", add, func(g string) error {
		if !slices.Contains(GrantTypes(), g) {
			return fmt.Errorf("is not one of %s", strings.Join(GrantTypes(), ", "))
		}
		return nil
	})
	code := slices.Contains(r.GrantTypes, GrantAuthorizationCode)
	switch {
	case code && len(r.RedirectURIs) == 0:
		add("/redirect_uris", "is required for authorization_code")
	case !code && len(r.RedirectURIs) > 0:
		add("/redirect_uris", "is only used with the authorization_code grant")
	case slices.Contains(r.GrantTypes, GrantRefreshToken) && !code:
		add("/grant_types", "refresh_token needs authorization_code: refresh tokens come only from a person's consent")
	}
	if r.TokenEndpointAuthMethod == None {
		for i, g := range r.GrantTypes {
			if g != GrantAuthorizationCode && g != GrantRefreshToken {
				add(fmt.Sprintf("/grant_types/%d", i), "%q needs client authentication: a public client (none) has only authorization_code and refresh_token", g)
			}
		}
	}
	if len(r.RedirectURIs) > maxRedirectURIs {
		add("/redirect_uris", "has more than %d entries", maxRedirectURIs)
	}
	eachUnique(r.RedirectURIs, "/redirect_uris", add, ValidateRedirectURI)
}

// eachUnique checks every element and reports duplicates.
func eachUnique(values []string, field string, add func(string, string, ...any), check func(string) error) {
	for i, v := range values {
		at := fmt.Sprintf("%s/%d", field, i)
		if err := check(v); err != nil {
			add(at, "%q %s", v, err)
		} else if slices.Index(values, v) < i {
			add(at, "%q is listed twice", v)
		}
	}
}

// validateAudience is the one rule for a resource URI (RFC 8707).
func validateAudience(a string) error { return resources.CheckURI(a) }

// validateScope accepts an RFC 6749 §3.3 scope-token that does not claim a
// tool: tool scopes come only from a validated composition.
func validateScope(s string) error {
	if s == "" {
		return fmt.Errorf("is empty")
	}
	if err := checkScopeToken(s); err != nil {
		return err
	}
	if strings.HasPrefix(s, verify.ToolScopePrefix) {
		return fmt.Errorf("is a tool scope; grant tools through allowed_tools")
	}
	return nil
}

// checkScopeToken accepts an RFC 6749 §3.3 scope-token of at most
// maxScopeLen characters.
func checkScopeToken(s string) error {
	if len(s) > maxScopeLen {
		return fmt.Errorf("is longer than %d characters", maxScopeLen)
	}
	for _, c := range []byte(s) {
		if c < 0x21 || c == 0x22 || c == 0x5c || c > 0x7e {
			return fmt.Errorf("is not an RFC 6749 scope-token")
		}
	}
	return nil
}

// NewClient validates r and builds the client it describes with a fresh id
// and, for secret methods, a fresh secret: the secret is returned once and
// only its keyed hash is kept on the client.
func NewClient(r Registration, h *Hasher, now time.Time) (c *Client, secret string, err error) {
	if err := r.Validate(); err != nil {
		return nil, "", err
	}
	c = &Client{
		ID:                      GenerateID(),
		Name:                    r.ClientName,
		TokenEndpointAuthMethod: r.TokenEndpointAuthMethod,
		AllowedTools:            slices.Clone(r.AllowedTools),
		AllowedAudiences:        slices.Clone(r.AllowedAudiences),
		AllowedScopes:           slices.Clone(r.AllowedScopes),
		RedirectURIs:            slices.Clone(r.RedirectURIs),
		GrantTypes:              slices.Clone(r.GrantTypes),
		Scope:                   ScopeValues(r.Scope),
		Approval:                r.Approval,
		Validation:              r.Validation,
		DPoPBound:               r.DPoPBoundAccessTokens,
		CreatedAt:               now.UTC(),
	}
	switch c.TokenEndpointAuthMethod {
	case None: // a public client has nothing to prove with
	case SecretBasic, SecretPost:
		secret = GenerateSecret()
		c.SecretHash = h.Hash(c.ID, secret)
	default:
		set, _ := parsePublicJWKS(r.JWKS) // validated above
		c.JWKS, err = json.Marshal(set)   // re-encoded: public members only
		if err != nil {
			return nil, "", fmt.Errorf("encode jwks: %w", err)
		}
	}
	return c, secret, nil
}

// Register creates a client from r in s. The secret ("" for
// private_key_jwt and none) is returned here and never again.
func Register(ctx context.Context, s Store, h *Hasher, r Registration, now time.Time) (*Client, string, error) {
	c, secret, err := NewClient(r, h, now)
	if err != nil {
		return nil, "", err
	}
	if err := s.Create(ctx, c); err != nil {
		return nil, "", err
	}
	return c, secret, nil
}
