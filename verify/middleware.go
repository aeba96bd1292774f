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

// Middleware admits a request only with a valid bearer token that allows
// the tool the request calls:
//
//   - no bearer token: 401 with a WWW-Authenticate challenge (RFC 6750);
//   - more than one Authorization header: 400, error="invalid_request";
//   - a token Verify refuses: 401, error="invalid_token";
//   - a request that does not say clearly which tool it calls: 400 (413
//     for a body over MaxBodyBytes);
//   - a tool the token does not name: 403, error="insufficient_scope".
//
// Requests that call no tool (tools/list, initialize, ...) pass with any
// valid token. The next handler finds the claims with ClaimsFromContext.
func (v *Verifier) Middleware(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if len(r.Header.Values("Authorization")) > 1 {
			// Proxies disagree on which one counts: as ambiguous as a
			// header contradicting the body (RFC 6750 section 3.1).
			v.challenge(w, http.StatusBadRequest, "invalid_request", "more than one Authorization header", "")
			return
		}
		token, ok := bearer(r)
		if !ok {
			v.challenge(w, http.StatusUnauthorized, "", "", "")
			return
		}
		claims, err := v.Verify(r.Context(), token)
		if err != nil {
			v.challenge(w, http.StatusUnauthorized, "invalid_token", err.Error(), "")
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
			v.challenge(w, http.StatusForbidden, "insufficient_scope",
				fmt.Sprintf("the token does not allow tool %q", tool), ToolScopePrefix+tool)
			return
		}
		next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), claimsKey{}, claims)))
	})
}

// bearer is the token of an "Authorization: Bearer" header.
func bearer(r *http.Request) (string, bool) {
	scheme, token, ok := strings.Cut(r.Header.Get("Authorization"), " ")
	token = strings.TrimSpace(token)
	if !ok || !strings.EqualFold(scheme, "Bearer") || token == "" {
		return "", false
	}
	return token, true
}

// challenge answers status with an RFC 6750 WWW-Authenticate header.
func (v *Verifier) challenge(w http.ResponseWriter, status int, code, description, scope string) {
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
	value := "Bearer"
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
