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
//     past its max-age the set is refreshed in the background, verifies of
//     known keys never waiting, and trusted for at most MaxStale more when
//     the authorization server cannot be reached;
//   - verifies each token: signature, algorithm allow-list (ES256, EdDSA),
//     typ at+jwt, no crit header (RFC 7515 §4.1.11: none is understood),
//     issuer, audience (the router's own resource URI), expiry and
//     not-before with a small leeway (at most MaxLeeway);
//   - checks that the tool the request calls (the Mcp-Name header, or
//     params.name of a JSON-RPC tools/call, in a body of any HTTP method) is
//     one the token names, refusing what is ambiguous: repeated Mcp-Name or
//     Mcp-Method headers, headers contradicting the body, duplicate
//     members, batches calling tools or nesting batches, and bodies nested
//     deeper than MaxNesting (checked in linear time).
//
// Token strings are malleable: one signed token has several spellings (the
// unused bits of the base64url signature, the two forms of an ECDSA
// signature), all of which verify. A router that denies tokens must deny
// by jti ([Claims].ID), never by the token string or its hash.
//
// A token bound to a client's key (DPoP, RFC 9449: cnf.jkt) is accepted
// only as "Authorization: DPoP" with a proof of that key for the request
// ([Verifier.VerifyRequest], package dpop): a copied token is useless
// without the key. A bound token sent as Bearer is refused with a DPoP
// challenge.
//
// [Verifier.Middleware] does all of it for a net/http handler, answering
// 401 with an RFC 6750 WWW-Authenticate challenge for a missing or invalid
// token and 403 insufficient_scope for a tool outside the token.
package verify
