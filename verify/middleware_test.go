package verify_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/typeward/typeward/verify"
)

func TestMiddleware(t *testing.T) {
	t.Parallel()
	a := newAuthServer(t, "ES256")
	v := a.verifier(t, func(c *verify.Config) {
		c.ResourceMetadata = "https://router.example.com/.well-known/oauth-protected-resource"
		c.MaxBodyBytes = 4096
	})
	var seenBody, seenClient string
	h := v.Middleware(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		seenBody = string(b)
		if c, ok := verify.ClaimsFromContext(r.Context()); ok {
			seenClient = c.ClientID
		}
		w.WriteHeader(http.StatusOK)
	}))
	tok := a.mint(t, grant)
	call := func(name string) string {
		return `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"` + name + `"}}`
	}
	const meta = `resource_metadata="https://router.example.com/.well-known/oauth-protected-resource"`

	tests := []struct {
		name          string
		auth          string
		body          string
		wantStatus    int
		wantChallenge string // the exact WWW-Authenticate, "" for none
	}{
		{"allowed tool", "Bearer " + tok, call("db_query"), 200, ""},
		{"scheme is case-insensitive", "bearer " + tok, call("email_send"), 200, ""},
		{"no tool called", "Bearer " + tok, `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`, 200, ""},
		{"no token", "", call("db_query"), 401, `Bearer realm="mcp", ` + meta},
		{"basic credentials", "Basic dTpw", call("db_query"), 401, `Bearer realm="mcp", ` + meta},
		{"invalid token", "Bearer x.y.z", call("db_query"), 401,
			`Bearer realm="mcp", ` + meta + `, error="invalid_token", error_description="invalid token: malformed token"`},
		{"tool not in the token", "Bearer " + tok, call("rm_rf"), 403,
			`Bearer realm="mcp", ` + meta + `, error="insufficient_scope", error_description="the token does not allow tool 'rm_rf'", scope="mcp:tool:rm_rf"`},
		{"header smuggling", "Bearer " + tok, call("rm_rf"), 400, ""},
		// Proxies disagree on which of two Authorization headers counts
		// (RFC 6750 allows one way of sending a token per request).
		{"two Authorization headers", "Bearer " + tok, call("db_query"), 400,
			`Bearer realm="mcp", ` + meta + `, error="invalid_request", error_description="more than one Authorization header"`},
		{"body too large", "Bearer " + tok, `{"method":"tools/call","params":{"name":"db_query","pad":"` + strings.Repeat("x", 5000) + `"}}`, 413, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			seenBody, seenClient = "", ""
			r := httptest.NewRequest(http.MethodPost, "/mcp", strings.NewReader(tc.body))
			if tc.auth != "" {
				r.Header.Set("Authorization", tc.auth)
			}
			if tc.name == "two Authorization headers" {
				r.Header.Add("Authorization", "Bearer x.y.z")
			}
			if tc.name == "header smuggling" {
				r.Header.Set("Mcp-Name", "db_query")
			}
			w := httptest.NewRecorder()
			h.ServeHTTP(w, r)
			if w.Code != tc.wantStatus {
				t.Fatalf("status %d, want %d (%s)", w.Code, tc.wantStatus, w.Body)
			}
			if got := w.Header().Get("WWW-Authenticate"); got != tc.wantChallenge {
				t.Errorf("WWW-Authenticate\n got %s\nwant %s", got, tc.wantChallenge)
			}
			if tc.wantStatus == 200 && (seenBody != tc.body || seenClient != "client-1") {
				t.Errorf("next handler saw body %q client %q", seenBody, seenClient)
			}
			if tc.wantStatus != 200 && seenBody != "" {
				t.Errorf("a refused request reached the handler")
			}
		})
	}
}

// TestMiddlewareChallengeScope: with ChallengeScope set, a 401 asks for
// what it says (no claims) and a 403 for what it says given the token's
// claims and the refused tool; the invalid_request 400 asks for nothing.
func TestMiddlewareChallengeScope(t *testing.T) {
	t.Parallel()
	a := newAuthServer(t, "ES256")
	var sawClaims bool
	v := a.verifier(t, func(c *verify.Config) {
		c.ChallengeScope = func(_ *http.Request, claims *verify.Claims, tool string) string {
			if claims == nil {
				return "mcp:tool:a mcp:tool:b"
			}
			sawClaims = claims.ClientID == "client-1"
			return "mcp:tool:db_query mcp:tool:" + tool
		}
	})
	h := v.Middleware(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusOK) }))
	tok := a.mint(t, grant)
	for _, tc := range []struct {
		name, auth, want string
		status           int
	}{
		{"no token", "", `Bearer realm="mcp", scope="mcp:tool:a mcp:tool:b"`, 401},
		{"invalid token", "Bearer x.y.z", `Bearer realm="mcp", error="invalid_token", error_description="invalid token: malformed token", scope="mcp:tool:a mcp:tool:b"`, 401},
		{"tool not in the token", "Bearer " + tok,
			`Bearer realm="mcp", error="insufficient_scope", error_description="the token does not allow tool 'rm_rf'", scope="mcp:tool:db_query mcp:tool:rm_rf"`, 403},
	} {
		r := httptest.NewRequest(http.MethodPost, "/mcp", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"rm_rf"}}`))
		if tc.auth != "" {
			r.Header.Set("Authorization", tc.auth)
		}
		w := httptest.NewRecorder()
		h.ServeHTTP(w, r)
		if w.Code != tc.status || w.Header().Get("WWW-Authenticate") != tc.want {
			t.Errorf("%s: %d %s\nwant %d %s", tc.name, w.Code, w.Header().Get("WWW-Authenticate"), tc.status, tc.want)
		}
	}
	if !sawClaims {
		t.Error("ChallengeScope did not get the token's claims on the 403")
	}
}
