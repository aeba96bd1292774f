package clients

import (
	"encoding/json"
	"strings"
	"time"
)

// View is a client as the admin API and `typeward clients list --output
// json` show it: never its secret's hash. One shape for both, so they
// cannot drift.
type View struct {
	ClientID                string          `json:"client_id"`
	ClientSecret            string          `json:"client_secret,omitempty"` // on creation only
	ClientIDIssuedAt        int64           `json:"client_id_issued_at"`
	ClientName              string          `json:"client_name"`
	TokenEndpointAuthMethod string          `json:"token_endpoint_auth_method"`
	JWKS                    json.RawMessage `json:"jwks,omitempty"`
	AllowedTools            []string        `json:"allowed_tools"`
	AllowedAudiences        []string        `json:"allowed_audiences"`
	AllowedScopes           []string        `json:"allowed_scopes"`
	RedirectURIs            []string        `json:"redirect_uris"`
	GrantTypes              []string        `json:"grant_types"`
	Scope                   string          `json:"scope,omitempty"` // RFC 7591 §2
	Approval                string          `json:"approval"`
	Validation              string          `json:"validation"`
	DPoPBoundAccessTokens   bool            `json:"dpop_bound_access_tokens"`
	Disabled                bool            `json:"disabled"`
	CreatedAt               time.Time       `json:"created_at"`
}

// ViewOf is c's View; empty lists are [] and unset policies their defaults.
func ViewOf(c *Client) View {
	orEmpty := func(s []string) []string {
		if s == nil {
			return []string{}
		}
		return s
	}
	return View{ClientID: c.ID, ClientIDIssuedAt: c.CreatedAt.Unix(), ClientName: c.Name,
		TokenEndpointAuthMethod: string(c.TokenEndpointAuthMethod), JWKS: c.JWKS,
		AllowedTools: orEmpty(c.AllowedTools), AllowedAudiences: orEmpty(c.AllowedAudiences),
		AllowedScopes: orEmpty(c.AllowedScopes), RedirectURIs: orEmpty(c.RedirectURIs), GrantTypes: c.Grants(),
		Scope:      strings.Join(c.Scope, " "),
		Approval:   string(c.Approval.OrNever()),
		Validation: string(c.Validation.OrLenient()), DPoPBoundAccessTokens: c.DPoPBound, Disabled: c.Disabled, CreatedAt: c.CreatedAt}
}
