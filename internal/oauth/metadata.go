package oauth

import (
	"slices"

	"github.com/typeward/typeward/internal/clients"
	"github.com/typeward/typeward/verify"
	"github.com/typeward/typeward/verify/dpop"
)

// Metadata is the RFC 8414 authorization server metadata.
type Metadata struct {
	Issuer                 string   `json:"issuer"`
	AuthorizationEndpoint  string   `json:"authorization_endpoint"`
	TokenEndpoint          string   `json:"token_endpoint"`
	JWKSURI                string   `json:"jwks_uri"`
	IntrospectionEndpoint  string   `json:"introspection_endpoint"`
	RevocationEndpoint     string   `json:"revocation_endpoint"`
	GrantTypesSupported    []string `json:"grant_types_supported"`
	ResponseTypesSupported []string `json:"response_types_supported"`
	// PKCE (RFC 7636), S256 only, and RFC 9207's iss on every
	// authorization response.
	CodeChallengeMethodsSupported              []string `json:"code_challenge_methods_supported"`
	AuthorizationResponseIssParameterSupported bool     `json:"authorization_response_iss_parameter_supported"`
	TokenEndpointAuthMethodsSupported          []string `json:"token_endpoint_auth_methods_supported"`
	TokenEndpointAuthSigningAlgValuesSupported []string `json:"token_endpoint_auth_signing_alg_values_supported"`
	IntrospectionEndpointAuthMethodsSupported  []string `json:"introspection_endpoint_auth_methods_supported"`
	// RFC 8414 §2 requires the *_auth_signing_alg_values_supported members
	// whenever private_key_jwt is among an endpoint's auth methods.
	IntrospectionEndpointAuthSigningAlgValuesSupported []string `json:"introspection_endpoint_auth_signing_alg_values_supported"`
	RevocationEndpointAuthMethodsSupported             []string `json:"revocation_endpoint_auth_methods_supported"`
	RevocationEndpointAuthSigningAlgValuesSupported    []string `json:"revocation_endpoint_auth_signing_alg_values_supported"`
	AuthorizationDetailsTypesSupported                 []string `json:"authorization_details_types_supported"`
	ScopesSupported                                    []string `json:"scopes_supported"`
	// Not an RFC 8414 member for access tokens, but what RFC 9068 verifiers
	// look for; the JWKS carries the same algorithms per key.
	AccessTokenSigningAlgValuesSupported []string `json:"access_token_signing_alg_values_supported"`
	// RegistrationEndpoint is RFC 7591's, named only while registration is
	// open to someone (--registration open or token).
	RegistrationEndpoint string `json:"registration_endpoint,omitempty"`
	// ClientIDMetadataDocumentSupported: a client_id may be the https URL
	// of the client's metadata document (package cimd).
	ClientIDMetadataDocumentSupported bool `json:"client_id_metadata_document_supported"`
	// OpenID CIBA Core §4: the backchannel authentication endpoint, in
	// poll mode only.
	BackchannelAuthenticationEndpoint      string   `json:"backchannel_authentication_endpoint"`
	BackchannelTokenDeliveryModesSupported []string `json:"backchannel_token_delivery_modes_supported"`
	BackchannelUserCodeParameterSupported  bool     `json:"backchannel_user_code_parameter_supported"`
	// RFC 9449 §5.1: the DPoP proof algorithms the token endpoint accepts.
	DPoPSigningAlgValuesSupported []string `json:"dpop_signing_alg_values_supported"`
}

// Endpoint paths, relative to the issuer.
const (
	PathToken      = "/oauth2/token"
	PathIntrospect = "/oauth2/introspect"
	PathRevoke     = "/oauth2/revoke"
	// PathRegister is RFC 7591 dynamic client registration (package
	// registration).
	PathRegister = "/oauth2/register"
	// PathBackchannel is the CIBA backchannel authentication endpoint.
	PathBackchannel = "/oauth2/bc-authorize"
	PathJWKS        = "/.well-known/jwks.json"
	PathMetadata    = "/.well-known/oauth-authorization-server"
)

// NewMetadata describes a server at issuer that signs with signingAlgs
// and accepts client assertions signed with assertionAlgs.
func NewMetadata(issuer string, signingAlgs, assertionAlgs []string) Metadata {
	var auth []string
	for _, m := range clients.AuthMethods() {
		auth = append(auth, string(m))
	}
	// A public client (an MCP host) authenticates by its client_id alone
	// at the token endpoint, for the code and refresh grants, and revokes
	// its own tokens; introspection is for confidential clients only.
	public := append(slices.Clone(auth), string(clients.None))
	return Metadata{
		Issuer:                issuer,
		AuthorizationEndpoint: issuer + PathAuthorize,
		TokenEndpoint:         issuer + PathToken,
		JWKSURI:               issuer + PathJWKS,
		IntrospectionEndpoint: issuer + PathIntrospect,
		RevocationEndpoint:    issuer + PathRevoke,
		GrantTypesSupported:   clients.GrantTypes(),
		// The authorization code flow is the only one with a
		// response_type: client_credentials and CIBA's poll grant have
		// none, and OAuth 2.1 removed the implicit "token".
		ResponseTypesSupported:                             []string{"code"},
		CodeChallengeMethodsSupported:                      []string{"S256"},
		AuthorizationResponseIssParameterSupported:         true,
		TokenEndpointAuthMethodsSupported:                  public,
		TokenEndpointAuthSigningAlgValuesSupported:         assertionAlgs,
		IntrospectionEndpointAuthMethodsSupported:          auth,
		IntrospectionEndpointAuthSigningAlgValuesSupported: assertionAlgs,
		RevocationEndpointAuthMethodsSupported:             public,
		RevocationEndpointAuthSigningAlgValuesSupported:    assertionAlgs,
		AuthorizationDetailsTypesSupported:                 []string{verify.DetailType},
		ScopesSupported:                                    []string{clients.AdminScope, ScopeOfflineAccess},
		AccessTokenSigningAlgValuesSupported:               signingAlgs,
		BackchannelAuthenticationEndpoint:                  issuer + PathBackchannel,
		BackchannelTokenDeliveryModesSupported:             []string{"poll"},
		DPoPSigningAlgValuesSupported:                      dpop.DefaultAlgorithms(),
	}
}
