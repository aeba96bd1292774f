package verify

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
)

type claimsKey struct{}

// maxDescription bounds an error_description.
const maxDescription = 200

// ClaimsFromContext returns the claims Middleware verified for a request.
func ClaimsFromContext(ctx context.Context) (*Claims, bool) {
	c, ok := ctx.Value(claimsKey{}).(*Claims)
	return c, ok
}

// Middleware admits a request only with a valid token (VerifyRequest)
// that allows the tool the request calls:
//
//   - no token: 401 with a WWW-Authenticate challenge (RFC 6750);
//   - more than one Authorization or DPoP header: 400,
//     error="invalid_request";
//   - a token Verify refuses: 401, error="invalid_token";
//   - a DPoP-bound token as Bearer, or a bearer token as DPoP: 401
//     error="invalid_token", in a DPoP challenge for the first;
//   - a DPoP proof refused: 401 DPoP error="invalid_dpop_proof" (RFC 9449
//     §7.1), every DPoP challenge naming the algorithms accepted;
//   - a request that does not say clearly which tool it calls: 400 (413
//     for a body over MaxBodyBytes);
//   - a tool the token does not name: 403, error="insufficient_scope".
//
// Requests that call no tool (tools/list, initialize, ...) pass with any
// valid token. The next handler finds the claims with ClaimsFromContext.
func (v *Verifier) Middleware(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		claims, scheme, err := v.VerifyRequest(r)
		if err != nil {
			v.refuse(w, r, scheme, err)
			return
		}
		tool, err := ToolName(r, v.cfg.MaxBodyBytes)
		if errors.Is(err, ErrBodyTooLarge) {
			http.Error(w, err.Error(), http.StatusRequestEntityTooLarge)
			return
		}
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		if tool != "" && !ToolAllowed(claims, tool) {
			scope := ToolScopePrefix + tool
			if v.cfg.ChallengeScope != nil {
				scope = v.cfg.ChallengeScope(r, claims, tool)
			}
			v.Challenge(w, scheme, http.StatusForbidden, "insufficient_scope",
				fmt.Sprintf("the token does not allow tool %q", tool), scope)
			return
		}
		next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), claimsKey{}, claims)))
	})
}

// refuse answers an error of VerifyRequest.
func (v *Verifier) refuse(w http.ResponseWriter, r *http.Request, scheme Scheme, err error) {
	scope := ""
	if v.cfg.ChallengeScope != nil && (errors.Is(err, ErrNoToken) || errors.Is(err, ErrInvalidToken) || errors.Is(err, ErrDPoPBound)) {
		scope = v.cfg.ChallengeScope(r, nil, "")
	}
	switch {
	case errors.Is(err, ErrNoToken):
		v.Challenge(w, SchemeBearer, http.StatusUnauthorized, "", "", scope)
	case errors.Is(err, ErrAmbiguous):
		v.Challenge(w, scheme, http.StatusBadRequest, "invalid_request", strings.TrimPrefix(err.Error(), ErrAmbiguous.Error()+": "), "")
	case errors.Is(err, ErrInvalidProof):
		v.Challenge(w, SchemeDPoP, http.StatusUnauthorized, "invalid_dpop_proof", err.Error(), "")
	case errors.Is(err, ErrInvalidToken), errors.Is(err, ErrDPoPBound):
		v.Challenge(w, scheme, http.StatusUnauthorized, "invalid_token", err.Error(), scope)
	default: // the replay store failed: not the client's fault
		w.Header().Set("Retry-After", "1")
		http.Error(w, "DPoP proofs cannot be checked now", http.StatusServiceUnavailable)
	}
}

// Challenge answers status with a WWW-Authenticate challenge of scheme
// (RFC 6750, and RFC 9449 §7.1 with algs for DPoP): for a router that
// refuses a verified request itself, in the scheme VerifyRequest named.
func (v *Verifier) Challenge(w http.ResponseWriter, scheme Scheme, status int, code, description, scope string) {
	var params []string
	add := func(name, value string) {
		if value != "" {
			params = append(params, name+`="`+quotable(value)+`"`)
		}
	}
	add("realm", v.cfg.Realm)
	add("resource_metadata", v.cfg.ResourceMetadata)
	add("error", code)
	if len(description) > maxDescription { // it may quote a kid from the token
		description = description[:maxDescription] + "..."
	}
	add("error_description", description)
	add("scope", scope)
	if scheme == SchemeDPoP {
		add("algs", strings.Join(v.dpop.Algorithms(), " "))
	}
	value := string(scheme)
	if len(params) > 0 {
		value += " " + strings.Join(params, ", ")
	}
	w.Header().Set("WWW-Authenticate", value)
	w.Header().Set("Cache-Control", "no-store")
	http.Error(w, http.StatusText(status), status)
}

// quotable keeps what RFC 6750 allows in a quoted value (printable ASCII
// but '"' and '\'), replacing the rest.
func quotable(s string) string {
	return strings.Map(func(r rune) rune {
		if r < 0x20 || r > 0x7e || r == '"' || r == '\\' {
			return '\''
		}
		return r
	}, s)
}
