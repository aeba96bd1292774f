// Package clients holds typeward's OAuth clients: their registration, the
// keyed hashing of their secrets, their allow-lists, and the authentication
// of a token request (client_secret_basic, client_secret_post,
// private_key_jwt).
package clients

import (
	"encoding/json"
	"slices"
	"time"

	"github.com/typeward/typeward/internal/grading"
)

// AuthMethod is a token_endpoint_auth_method (RFC 7591 §2).
type AuthMethod string

// The methods typeward accepts.
const (
	SecretBasic   AuthMethod = "client_secret_basic"
	SecretPost    AuthMethod = "client_secret_post"
	PrivateKeyJWT AuthMethod = "private_key_jwt"
	// None is a public client (an MCP host on a person's machine): it
	// proves nothing but its client_id, so it gets only the grants a
	// person's consent and a PKCE verifier stand behind (AllowsGrant).
	None AuthMethod = "none"
)

// AuthMethods lists every method a confidential client authenticates
// with, in the order the authorization server metadata (RFC 8414
// token_endpoint_auth_methods_supported) names them; None is not one.
func AuthMethods() []AuthMethod { return []AuthMethod{SecretBasic, SecretPost, PrivateKeyJWT} }

// UsesSecret reports whether the method authenticates with a shared secret.
func (m AuthMethod) UsesSecret() bool { return m == SecretBasic || m == SecretPost }

// Valid reports whether m is one of AuthMethods or None.
func (m AuthMethod) Valid() bool { return m == None || slices.Contains(AuthMethods(), m) }

// AdminScope is the scope the admin API demands of its bearer tokens.
const AdminScope = "typeward:admin"

// Client is a registered OAuth client.
type Client struct {
	ID                      string
	Name                    string
	TokenEndpointAuthMethod AuthMethod
	// SecretHash is the keyed hash of the client secret (see Hasher); nil
	// for private_key_jwt clients. The secret itself is never stored.
	SecretHash []byte
	// JWKS is the client's public JSON Web Key Set (RFC 7517) for
	// private_key_jwt; nil for secret clients.
	JWKS json.RawMessage
	// AllowedTools holds tool patterns: an exact name, "server/*" or "*".
	AllowedTools []string
	// AllowedAudiences holds the resources (RFC 8707) tokens may name as aud.
	AllowedAudiences []string
	// AllowedScopes holds plain scope values such as AdminScope.
	AllowedScopes []string
	// RedirectURIs are where the authorization endpoint may send a code
	// (RFC 7591 redirect_uris; see MatchRedirectURI).
	RedirectURIs []string
	// GrantTypes are the RFC 7591 grant_types; empty reads as a machine
	// client's (see Grants).
	GrantTypes []string
	// Scope holds the values of the RFC 7591 scope: what the authorization
	// endpoint asks for when a request names neither scope nor
	// authorization_details.
	Scope []string
	// Approval says which compositions need a person's approval (the
	// backchannel flow) before a token is issued.
	Approval Approval
	// Validation is the mode its compositions are judged under
	// (grading.Lenient or grading.Strict); unset reads as lenient.
	Validation grading.Mode
	// DPoPBound (RFC 9449 §5.2 dpop_bound_access_tokens): the client gets
	// no token without a DPoP proof, so none of its tokens is a bearer
	// token.
	DPoPBound bool
	Disabled  bool
	CreatedAt time.Time
}

// Approval is a client's approval policy. Which tools count as mutating
// or destructive is decided from their MCP annotations (package approval).
type Approval string

// The approval policies; ApprovalNever is the default.
const (
	ApprovalNever       Approval = "never"
	ApprovalMutating    Approval = "mutating"    // any tool not marked readOnlyHint: true
	ApprovalDestructive Approval = "destructive" // any tool neither read-only nor destructiveHint: false
	ApprovalAlways      Approval = "always"
)

// Approvals lists every policy, from the least to the most demanding.
func Approvals() []Approval {
	return []Approval{ApprovalNever, ApprovalMutating, ApprovalDestructive, ApprovalAlways}
}

// Valid reports whether a is one of Approvals.
func (a Approval) Valid() bool { return slices.Contains(Approvals(), a) }

// OrNever is a, or ApprovalNever when a is unset: what stores keep.
func (a Approval) OrNever() Approval {
	if a == "" {
		return ApprovalNever
	}
	return a
}

// AllowsTool reports whether the qualified tool name ("server/tool" or a
// bare name) matches one of the client's tool patterns.
func (c *Client) AllowsTool(name string) bool {
	return slices.ContainsFunc(c.AllowedTools, func(p string) bool { return MatchTool(p, name) })
}

// AllowsAudience reports whether aud is one of the client's resources.
// RFC 8707 resources compare as exact strings: no normalisation that two
// routers could disagree on.
func (c *Client) AllowsAudience(aud string) bool { return slices.Contains(c.AllowedAudiences, aud) }

// Clone returns a deep copy, so stores never share slices with callers.
func (c *Client) Clone() *Client {
	d := *c
	d.SecretHash = slices.Clone(c.SecretHash)
	d.JWKS = slices.Clone(c.JWKS)
	d.AllowedTools = slices.Clone(c.AllowedTools)
	d.AllowedAudiences = slices.Clone(c.AllowedAudiences)
	d.AllowedScopes = slices.Clone(c.AllowedScopes)
	d.RedirectURIs = slices.Clone(c.RedirectURIs)
	d.GrantTypes = slices.Clone(c.GrantTypes)
	d.Scope = slices.Clone(c.Scope)
	return &d
}
