package verify

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/golang-jwt/jwt/v5"
)

// DetailType is the authorization_details type of a typeward composition.
const DetailType = "mcp_composition"

// ToolScopePrefix prefixes a tool's name in the scope claim.
const ToolScopePrefix = "mcp:tool:"

// Claims are a verified typeward access token's claims.
type Claims struct {
	Issuer    string
	Subject   string // the client id, for client credentials tokens
	ClientID  string
	Audience  []string // the resources the token is for
	IssuedAt  time.Time
	NotBefore time.Time // zero when the token has no nbf
	ExpiresAt time.Time
	ID        string   // jti
	Scope     []string // the scope claim, split at spaces
	// Tools are the tools the token allows (mcp_tools): the validated
	// composition's tools.
	Tools []string
	// AuthorizationDetails describe the validated composition.
	AuthorizationDetails []AuthorizationDetail
	// JKT is cnf.jkt (RFC 9449 §6.1): the thumbprint of the key a
	// DPoP-bound token is bound to, "" for a bearer token. A bound token is
	// accepted only with the DPoP scheme and a proof signed by that key.
	JKT string
}

// TokenType is "DPoP" for a DPoP-bound token, else "Bearer".
func (c *Claims) TokenType() string {
	if c.JKT != "" {
		return "DPoP"
	}
	return "Bearer"
}

// Confirmation is the cnf claim of a DPoP-bound token.
type Confirmation struct {
	JKT string `json:"jkt"`
}

// AuthorizationDetail is one RFC 9396 authorization detail. typeward's is of
// type "mcp_composition": the composition's digest, its tools with the
// version and schema digest that were validated, and its edges.
type AuthorizationDetail struct {
	Type   string    `json:"type"`
	Digest string    `json:"digest,omitempty"`
	Tools  []ToolRef `json:"tools,omitempty"`
	Edges  []Edge    `json:"edges,omitempty"`
	// Approval is the person who approved the composition, for a token of
	// the backchannel (CIBA) grant; nil when no approval was needed.
	Approval *Approval `json:"approval,omitempty"`
}

// Approval records a person's approval of a composition.
type Approval struct {
	ApprovedBy string `json:"approved_by"`
	ApprovedAt int64  `json:"approved_at"` // NumericDate
}

// ToolRef is a tool version a composition was validated against.
type ToolRef struct {
	Name    string `json:"name"`
	Version int    `json:"version"`
	Digest  string `json:"digest"`
}

// Edge is one edge of a validated composition, between the tools it
// connects. Each, for a per-item edge, is the source array it iterates over
// (its path up to the first [], e.g. "rows[]"): To may run once per item.
// Optional marks an edge whose source may not run.
type Edge struct {
	From     string `json:"from"`
	To       string `json:"to"`
	Each     string `json:"each,omitempty"`
	Optional bool   `json:"optional,omitempty"`
}

// ToolAllowed reports whether the token allows calling the tool name: it
// is in mcp_tools. Names compare exactly, as typeward registered them.
func ToolAllowed(c *Claims, name string) bool {
	return c != nil && name != "" && slices.Contains(c.Tools, name)
}

// ToolDigest is the schema digest the tool name was validated with, for a
// router that checks the tool it calls still has that schema.
func ToolDigest(c *Claims, name string) (string, bool) {
	if c == nil {
		return "", false
	}
	for _, d := range c.AuthorizationDetails {
		if d.Type != DetailType {
			continue
		}
		for _, t := range d.Tools {
			if t.Name == name {
				return t.Digest, true
			}
		}
	}
	return "", false
}

// wireClaims is the JSON of the token's payload. It implements jwt.Claims
// so the jwt parser checks exp, nbf, iat, iss and aud.
type wireClaims struct {
	Issuer               string                `json:"iss"`
	Subject              string                `json:"sub"`
	ClientID             string                `json:"client_id"`
	Audience             jwt.ClaimStrings      `json:"aud"`
	IssuedAt             *jwt.NumericDate      `json:"iat"`
	NotBefore            *jwt.NumericDate      `json:"nbf"`
	ExpiresAt            *jwt.NumericDate      `json:"exp"`
	ID                   string                `json:"jti"`
	Scope                string                `json:"scope"`
	Tools                []string              `json:"mcp_tools"`
	AuthorizationDetails []AuthorizationDetail `json:"authorization_details"`
	Confirmation         *Confirmation         `json:"cnf"`
}

func (w *wireClaims) GetExpirationTime() (*jwt.NumericDate, error) { return w.ExpiresAt, nil }
func (w *wireClaims) GetIssuedAt() (*jwt.NumericDate, error)       { return w.IssuedAt, nil }
func (w *wireClaims) GetNotBefore() (*jwt.NumericDate, error)      { return w.NotBefore, nil }
func (w *wireClaims) GetIssuer() (string, error)                   { return w.Issuer, nil }
func (w *wireClaims) GetSubject() (string, error)                  { return w.Subject, nil }
func (w *wireClaims) GetAudience() (jwt.ClaimStrings, error)       { return w.Audience, nil }

// Validate requires the claims RFC 9068 makes mandatory beyond those the
// parser checks (exp, iss, aud).
func (w *wireClaims) Validate() error {
	var missing []string
	for _, c := range []struct {
		name string
		ok   bool
	}{{"sub", w.Subject != ""}, {"client_id", w.ClientID != ""}, {"jti", w.ID != ""}, {"iat", w.IssuedAt != nil},
		{"cnf.jkt", w.Confirmation == nil || w.Confirmation.JKT != ""}} {
		if !c.ok {
			missing = append(missing, c.name)
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf("%w: %s", jwt.ErrTokenRequiredClaimMissing, strings.Join(missing, ", "))
	}
	return nil
}

func (w *wireClaims) claims() *Claims {
	c := &Claims{
		Issuer: w.Issuer, Subject: w.Subject, ClientID: w.ClientID, Audience: w.Audience,
		ID: w.ID, Scope: strings.Fields(w.Scope), Tools: w.Tools,
		AuthorizationDetails: w.AuthorizationDetails,
	}
	if w.Confirmation != nil {
		c.JKT = w.Confirmation.JKT
	}
	for _, t := range []struct {
		dst *time.Time
		src *jwt.NumericDate
	}{{&c.IssuedAt, w.IssuedAt}, {&c.NotBefore, w.NotBefore}, {&c.ExpiresAt, w.ExpiresAt}} {
		if t.src != nil {
			*t.dst = t.src.Time
		}
	}
	return c
}
