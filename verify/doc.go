// Package verify is what a Go MCP tool router imports to accept typeward's
// access tokens offline.
//
// typeward signs a token (RFC 9068 JWT, typ "at+jwt") only for a
// composition whose tools it has type-checked; the token names those tools
// in mcp_tools and in its scope ("mcp:tool:<name>"). A router:
//
//   - fetches typeward's JWKS and caches it as its Cache-Control says,
//     fetching again when a token names a key it does not know (rate-limited,
//     so a flood of made-up key ids cannot hammer the authorization server);
//   - verifies each token: signature, algorithm allow-list (ES256, EdDSA),
//     typ at+jwt, issuer, audience (the router's own resource URI), expiry
//     and not-before with a small leeway;
//   - checks that the tool the request calls (the Mcp-Name header, or
//     params.name of a JSON-RPC tools/call) is one the token names.
//
// [Verifier.Middleware] does all of it for a net/http handler, answering
// 401 with an RFC 6750 WWW-Authenticate challenge for a missing or invalid
// token and 403 insufficient_scope for a tool outside the token.
package verify
