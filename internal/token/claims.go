// Package token mints typeward's access tokens: RFC 9068 JWTs (typ
// "at+jwt", kid = the signing key's thumbprint) whose claims name exactly
// the tools of a validated composition. The claim types are the public
// ones of package verify, so what typeward signs is what routers parse.
package token

import (
	"encoding/json"
	"slices"

	"github.com/typeward/typeward/verify"
)

// ToolScope is the scope value allowing one tool.
func ToolScope(tool string) string { return verify.ToolScopePrefix + tool }

// Scope is a token's scope values: mcp:tool:<name> for every tool, in
// order, then every other granted scope not already there.
func Scope(tools, other []string) []string {
	out := make([]string, 0, len(tools)+len(other))
	for _, t := range tools {
		if s := ToolScope(t); !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	for _, s := range other {
		if !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	return out
}

// payload is the JSON of a token's claims, in the order RFC 9068 lists
// them. Times are whole seconds (NumericDate).
type payload struct {
	Issuer               string                       `json:"iss"`
	Subject              string                       `json:"sub"`
	ClientID             string                       `json:"client_id"`
	Audience             audience                     `json:"aud"`
	IssuedAt             int64                        `json:"iat"`
	NotBefore            int64                        `json:"nbf,omitempty"`
	ExpiresAt            int64                        `json:"exp"`
	ID                   string                       `json:"jti"`
	Scope                string                       `json:"scope,omitempty"`
	Tools                []string                     `json:"mcp_tools,omitempty"`
	AuthorizationDetails []verify.AuthorizationDetail `json:"authorization_details,omitempty"`
	Confirmation         *verify.Confirmation         `json:"cnf,omitempty"`
}

// audience is aud: a string for one resource (the usual case), else an
// array, as RFC 7519 allows.
type audience []string

func (a audience) MarshalJSON() ([]byte, error) {
	if len(a) == 1 {
		return json.Marshal(a[0])
	}
	return json.Marshal([]string(a))
}
