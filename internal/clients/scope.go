package clients

import (
	"fmt"
	"slices"
	"strings"

	"github.com/typeward/typeward/verify"
)

// The scopes of the authorization endpoint beside a client's allowed ones.
const (
	// ScopeOfflineAccess asks for a refresh token.
	ScopeOfflineAccess = "offline_access"
	// ScopeCompositionPrefix names a stored composition: what a host that
	// cannot send authorization_details (every SDK) asks for.
	ScopeCompositionPrefix = "mcp:composition:"
)

// maxScopeValues bounds the values of a registered scope.
const maxScopeValues = 50

// AllowsScope reports whether the client may be granted scope s: one of
// its allowed scopes, or a narrowing of an allowed mcp:resources or
// mcp:prompts (verify.NarrowedScope).
func (c *Client) AllowsScope(s string) bool { return allowsScope(c.AllowedScopes, s) }

func allowsScope(allowed []string, s string) bool {
	broad, _, narrowed := verify.NarrowedScope(s)
	return slices.Contains(allowed, s) || narrowed && slices.Contains(allowed, broad)
}

// ScopeValues splits an RFC 6749 §3.3 scope (scope-tokens separated by
// single spaces) into its values; "" has none.
func ScopeValues(scope string) []string {
	if scope == "" {
		return nil
	}
	return strings.Split(scope, " ")
}

// validateRegisteredScope checks the RFC 7591 §2 scope, what the
// authorization endpoint asks for on the client's behalf when a request
// names neither scope nor authorization_details: each value a form that
// endpoint accepts from this client, so that the default can never be a
// request it refuses for its form.
func (r *Registration) validateRegisteredScope(add func(string, string, ...any)) {
	if r.Scope == "" {
		return
	}
	if !r.authorizationCode() {
		add("/scope", "is only used with the authorization_code grant (what the authorization endpoint asks for when a request names no scope)")
		return
	}
	values := ScopeValues(r.Scope)
	if len(values) > maxScopeValues || len(r.Scope) > maxScopeValues*(maxScopeLen+1) {
		add("/scope", "has more than %d values or %d characters", maxScopeValues, maxScopeValues*(maxScopeLen+1))
		return
	}
	for i, v := range values {
		if err := r.checkScopeValue(v); err != nil {
			add("/scope", "value %d %q %s", i, clipScope(v), err)
		} else if slices.Index(values, v) < i {
			add("/scope", "value %d %q is listed twice", i, v)
		}
	}
}

// GrantableScope is the part of a self-registered host's RFC 7591 scope
// it may ask for: each value of a form the authorization endpoint accepts
// from this registration, once, in order, at most maxScopeValues. A host
// publishes one scope for every server it talks to (openid, another
// server's names), so the others are dropped rather than the host refused,
// as RFC 7591 §3.2.1 lets a server replace a requested value; the
// registration answer and the consent page show what was kept.
func (r *Registration) GrantableScope(scope string) string {
	var kept []string
	for _, v := range strings.Fields(scope) {
		if len(kept) < maxScopeValues && r.checkScopeValue(v) == nil && !slices.Contains(kept, v) {
			kept = append(kept, v)
		}
	}
	return strings.Join(kept, " ")
}

// checkScopeValue says why v is not a scope the client may ask for.
func (r *Registration) checkScopeValue(v string) error {
	if v == "" {
		return fmt.Errorf("is empty: values are separated by single spaces, with none leading or trailing")
	}
	if err := checkScopeToken(v); err != nil {
		return err
	}
	switch {
	case v == ScopeOfflineAccess:
	case strings.HasPrefix(v, ScopeCompositionPrefix):
		if v == ScopeCompositionPrefix {
			return fmt.Errorf("names no composition")
		}
	case strings.HasPrefix(v, verify.ToolScopePrefix):
		name := strings.TrimPrefix(v, verify.ToolScopePrefix)
		if name == "" {
			return fmt.Errorf("names no tool")
		}
		if !slices.ContainsFunc(r.AllowedTools, func(p string) bool { return MatchTool(p, name) }) {
			return fmt.Errorf("names a tool allowed_tools does not admit")
		}
	case allowsScope(r.AllowedScopes, v):
	default:
		return fmt.Errorf("is not mcp:composition:NAME, mcp:tool:NAME, offline_access or one of allowed_scopes (mcp:resources, mcp:prompts, mcp:completions and their narrowings among them)")
	}
	return nil
}

func clipScope(s string) string {
	if len(s) > maxScopeLen {
		return s[:maxScopeLen] + "…"
	}
	return s
}
