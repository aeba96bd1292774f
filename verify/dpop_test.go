package verify_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/typeward/typeward/verify"
	"github.com/typeward/typeward/verify/dpop"
	"github.com/typeward/typeward/verify/dpop/dpoptest"
)

// A DPoP-bound token passes with the DPoP scheme and a proof of its key
// for this request; every other way of presenting it, or a bearer token
// as DPoP, is refused with the challenge RFC 9449 §7.1 names.
func TestMiddlewareDPoP(t *testing.T) {
	t.Parallel()
	a := newAuthServer(t, "ES256")
	v := a.verifier(t, nil)
	var reached int
	h := v.Middleware(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		c, _ := verify.ClaimsFromContext(r.Context())
		if c.TokenType() == "DPoP" {
			reached++
		}
	}))
	cl, other := dpoptest.NewClient(t, "ES256"), dpoptest.NewClient(t, "EdDSA")
	bound := a.mintBound(t, grant, cl.JKT)
	bearer := a.mint(t, grant)
	now := a.clock.Now()
	call := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"db_query"}}`
	proof := func(token string) string { return cl.Proof(t, "POST", resource, token, now, nil) }
	const algs = `algs="ES256 EdDSA RS256"`
	replayed := proof(bound)

	tests := []struct {
		name      string
		auth      string
		proofs    []string
		path      string
		status    int
		challenge string // a prefix of WWW-Authenticate
	}{
		{"bound token, DPoP scheme, valid proof", "DPoP " + bound, []string{replayed}, "/mcp", 200, ""},
		{"a replayed proof", "DPoP " + bound, []string{replayed}, "/mcp", 401, `DPoP realm="mcp", error="invalid_dpop_proof", error_description="invalid DPoP proof: proof jti already used", ` + algs},
		{"bound token as Bearer", "Bearer " + bound, nil, "/mcp", 401, `DPoP realm="mcp", error="invalid_token", error_description="token kind does not match the scheme: the token is DPoP-bound`},
		{"bound token as Bearer with a proof", "Bearer " + bound, []string{proof(bound)}, "/mcp", 401, `DPoP realm="mcp", error="invalid_token"`},
		{"bearer token as DPoP", "DPoP " + bearer, []string{proof(bearer)}, "/mcp", 401, `DPoP realm="mcp", error="invalid_token", error_description="token kind does not match the scheme: the token is not DPoP-bound`},
		{"no proof", "DPoP " + bound, nil, "/mcp", 401, `DPoP realm="mcp", error="invalid_dpop_proof", error_description="invalid DPoP proof: no DPoP header"`},
		{"two DPoP headers", "DPoP " + bound, []string{proof(bound), proof(bound)}, "/mcp", 400, `DPoP realm="mcp", error="invalid_request", error_description="2 DPoP headers"`},
		{"a proof of another key", "DPoP " + bound, []string{other.Proof(t, "POST", resource, bound, now, nil)}, "/mcp", 401, `DPoP realm="mcp", error="invalid_dpop_proof", error_description="invalid DPoP proof: the proof is signed by another key`},
		{"another htm", "DPoP " + bound, []string{cl.Proof(t, "GET", resource, bound, now, nil)}, "/mcp", 401, `DPoP realm="mcp", error="invalid_dpop_proof", error_description="invalid DPoP proof: htm`},
		{"another htu", "DPoP " + bound, []string{proof(bound)}, "/other", 401, `DPoP realm="mcp", error="invalid_dpop_proof", error_description="invalid DPoP proof: htu`},
		{"no ath", "DPoP " + bound, []string{proof("")}, "/mcp", 401, `DPoP realm="mcp", error="invalid_dpop_proof", error_description="invalid DPoP proof: the proof has no ath"`},
		{"a proof for another token", "DPoP " + bound, []string{proof(a.mintBound(t, grant, cl.JKT))}, "/mcp", 401, `DPoP realm="mcp", error="invalid_dpop_proof", error_description="invalid DPoP proof: ath`},
		{"iat an hour old", "DPoP " + bound, []string{cl.Proof(t, "POST", resource, bound, now.Add(-time.Hour), nil)}, "/mcp", 401, `DPoP realm="mcp", error="invalid_dpop_proof", error_description="invalid DPoP proof: iat`},
		{"iat in the future", "DPoP " + bound, []string{cl.Proof(t, "POST", resource, bound, now.Add(time.Hour), nil)}, "/mcp", 401, `DPoP realm="mcp", error="invalid_dpop_proof", error_description="invalid DPoP proof: iat`},
		{"an oversized proof", "DPoP " + bound, []string{strings.Repeat("a", dpop.MaxProofSize+1)}, "/mcp", 401, `DPoP realm="mcp", error="invalid_dpop_proof", error_description="invalid DPoP proof: proof longer than`},
		{"an invalid bound token", "DPoP x.y.z", []string{proof("x.y.z")}, "/mcp", 401, `DPoP realm="mcp", error="invalid_token", error_description="invalid token: malformed token"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			before := reached
			r := httptest.NewRequest(http.MethodPost, tc.path, strings.NewReader(call))
			r.Header.Set("Authorization", tc.auth)
			for _, p := range tc.proofs {
				r.Header.Add("DPoP", p)
			}
			w := httptest.NewRecorder()
			h.ServeHTTP(w, r)
			if w.Code != tc.status || !strings.HasPrefix(w.Header().Get("WWW-Authenticate"), tc.challenge) {
				t.Fatalf("%d %q, want %d %q", w.Code, w.Header().Get("WWW-Authenticate"), tc.status, tc.challenge)
			}
			if strings.HasPrefix(tc.challenge, "DPoP") && tc.status == 401 && !strings.Contains(w.Header().Get("WWW-Authenticate"), algs) {
				t.Errorf("a DPoP challenge without %s", algs)
			}
			if (reached > before) != (tc.status == 200) {
				t.Errorf("reached the handler: %v", reached > before)
			}
		})
	}
}
