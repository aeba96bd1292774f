package clients

import "slices"

// The grant types (RFC 7591 §2 grant_types) a client may be registered for.
const (
	GrantClientCredentials = "client_credentials"
	GrantAuthorizationCode = "authorization_code"
	GrantRefreshToken      = "refresh_token"
	// GrantCIBA redeems a person's approval of a backchannel request.
	GrantCIBA = "urn:openid:params:grant-type:ciba"
)

// GrantTypes lists every grant type typeward knows, in the order the
// authorization server metadata names them.
func GrantTypes() []string {
	return []string{GrantClientCredentials, GrantCIBA, GrantAuthorizationCode, GrantRefreshToken}
}

// machineGrants are the grants of a client registered without
// grant_types and without redirect_uris, and of every client made before
// grant types were kept (migration 0018): what typeward's machine
// clients have always had.
var machineGrants = []string{GrantClientCredentials, GrantCIBA}

// Grants is the client's grant types: the registered ones, or those of a
// machine client when none were registered.
func (c *Client) Grants() []string {
	if len(c.GrantTypes) == 0 {
		return slices.Clone(machineGrants)
	}
	return slices.Clone(c.GrantTypes)
}

// AllowsGrant reports whether the client may use grant type g. A public
// client proves nothing at the token endpoint, so only the grants a
// person's consent and a PKCE verifier stand behind are ever its. Every
// client of the authorization code grant may redeem the refresh tokens it
// was given: registering refresh_token (or asking offline_access) decides
// whether a code's redemption gives one.
func (c *Client) AllowsGrant(g string) bool {
	if c.TokenEndpointAuthMethod == None && g != GrantAuthorizationCode && g != GrantRefreshToken {
		return false
	}
	if g == GrantRefreshToken {
		g = GrantAuthorizationCode
	}
	if len(c.GrantTypes) == 0 {
		return slices.Contains(machineGrants, g)
	}
	return slices.Contains(c.GrantTypes, g)
}
