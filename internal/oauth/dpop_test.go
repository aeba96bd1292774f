package oauth

import (
	"context"
	"errors"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"github.com/typeward/typeward/internal/approval"
	"github.com/typeward/typeward/internal/audit"
	"github.com/typeward/typeward/internal/store/memory"
	"github.com/typeward/typeward/verify/dpop"
	"github.com/typeward/typeward/verify/dpop/dpoptest"
)

const tokenURL = issuer + PathToken

func pipelineForm(t testing.TB) url.Values {
	return form("grant_type", "client_credentials", "resource", routerAud, "authorization_details", details(exampleDoc(t, "pipeline-valid.json")))
}

// A token request with a valid proof gets a DPoP-bound token: token_type
// DPoP, cnf.jkt the proof key's thumbprint, in the JWT, in introspection
// and in the audit record.
func TestTokenDPoPBound(t *testing.T) {
	for _, alg := range dpop.DefaultAlgorithms() {
		t.Run(alg, func(t *testing.T) {
			f := newFixture(t)
			cl := dpoptest.NewClient(t, alg)
			ctx := WithDPoPProofs(context.Background(), []string{cl.Proof(t, "POST", tokenURL, "", testNow, nil)})
			resp, err := f.svc.Token(ctx, pipelineForm(t), creds("bound"))
			if err != nil {
				t.Fatal(err)
			}
			tok, err := f.verifier.Verify(context.Background(), resp.AccessToken)
			if err != nil {
				t.Fatal(err)
			}
			if resp.TokenType != "DPoP" || tok.JKT != cl.JKT || tok.TokenType() != "DPoP" {
				t.Errorf("token_type %s, cnf.jkt %q; want DPoP %s", resp.TokenType, tok.JKT, cl.JKT)
			}
			in, err := f.svc.Introspect(context.Background(), form("token", resp.AccessToken), creds("bound"))
			if err != nil || !in.Active || in.TokenType != "DPoP" || in.Cnf == nil || in.Cnf.JKT != cl.JKT {
				t.Errorf("introspection %+v, %v", in, err)
			}
			if d := f.decisions(t); len(d) != 1 || d[0].Outcome != audit.Issued || d[0].DPoPJKT != cl.JKT {
				t.Errorf("audit %+v", d)
			}
			// The admin API takes bearer tokens: a bound one is not one.
			if c, err := f.svc.Active(context.Background(), resp.AccessToken); c != nil || err != nil {
				t.Errorf("Active(a DPoP-bound token) = %+v, %v; want nil", c, err)
			}
		})
	}
	// Without a proof, a client that may have bearer tokens gets one.
	f := newFixture(t)
	resp, err := f.svc.Token(context.Background(), pipelineForm(t), creds("app"))
	if err != nil || resp.TokenType != "Bearer" {
		t.Fatalf("%+v, %v", resp, err)
	}
	in, _ := f.svc.Introspect(context.Background(), form("token", resp.AccessToken), creds("app"))
	if in.TokenType != "Bearer" || in.Cnf != nil || f.decisions(t)[0].DPoPJKT != "" {
		t.Errorf("a bearer token: introspection %+v, audit %+v", in, f.decisions(t))
	}
}

// Every bad proof of issue 19 at the token endpoint is refused with 400
// invalid_dpop_proof, no token signed, the refusal audited; so is a
// DPoP-bound client's request without a proof.
func TestTokenDPoPRefusals(t *testing.T) {
	cl := dpoptest.NewClient(t, "ES256")
	proof := func(method, url string, iat time.Time, edit func(h, c map[string]any)) string {
		return cl.Proof(t, method, url, "", iat, edit)
	}
	claims := func() map[string]any {
		return map[string]any{"jti": "x", "htm": "POST", "htu": tokenURL, "iat": testNow.Unix()}
	}
	replayed := proof("POST", tokenURL, testNow, nil)
	tests := []struct {
		name, client string
		proofs       []string
		want         string // in the description
	}{
		{"alg none", "app", []string{cl.Sign(t, jwt.SigningMethodNone, jwt.UnsafeAllowNoneSignatureType, claims())}, "alg 'none' is not allowed"},
		{"HS256", "app", []string{cl.Sign(t, jwt.SigningMethodHS256, []byte("0123456789abcdef0123456789abcdef"), claims())}, "alg 'HS256' is not allowed"},
		{"a private key in jwk", "app", []string{proof("POST", tokenURL, testNow, func(h, _ map[string]any) {
			priv := map[string]any{"d": "AAAA"}
			for k, v := range cl.JWK {
				priv[k] = v
			}
			h["jwk"] = priv
		})}, "a private or symmetric key"},
		{"another htm", "app", []string{proof("GET", tokenURL, testNow, nil)}, "htm"},
		{"another htu", "app", []string{proof("POST", issuer+PathIntrospect, testNow, nil)}, "htu"},
		{"iat an hour old", "app", []string{proof("POST", tokenURL, testNow.Add(-time.Hour), nil)}, "iat"},
		{"iat in the future", "app", []string{proof("POST", tokenURL, testNow.Add(time.Hour), nil)}, "iat"},
		{"two DPoP headers", "app", []string{proof("POST", tokenURL, testNow, nil), proof("POST", tokenURL, testNow, nil)}, "2 DPoP headers"},
		{"an oversized proof", "app", []string{strings.Repeat("a", dpop.MaxProofSize+1)}, "proof longer than"},
		{"no proof from a DPoP-bound client", "bound", nil, "dpop_bound_access_tokens"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t)
			resp, err := f.svc.Token(WithDPoPProofs(context.Background(), tc.proofs), pipelineForm(t), creds(tc.client))
			var oe *Error
			if !errors.As(err, &oe) || oe.Kind != KindBadRequest || oe.Code != CodeInvalidDPoPProof || !strings.Contains(oe.Description, tc.want) || resp != nil {
				t.Fatalf("Token = %+v, %v; want 400 invalid_dpop_proof naming %q", resp, err, tc.want)
			}
			if d := f.decisions(t); len(d) != 1 || d[0].Outcome != audit.Denied || d[0].JTI != "" {
				t.Errorf("audit %+v", d)
			}
		})
	}
	// A proof is used once, across requests.
	f := newFixture(t)
	ctx := WithDPoPProofs(context.Background(), []string{replayed})
	if _, err := f.svc.Token(ctx, pipelineForm(t), creds("app")); err != nil {
		t.Fatal(err)
	}
	if _, err := f.svc.Token(ctx, pipelineForm(t), creds("app")); err == nil || !strings.Contains(err.Error(), "proof jti already used") {
		t.Errorf("a replayed proof: %v", err)
	}
}

// A refresh family opened by a code redeemed with a DPoP proof is bound to
// the proof's key: its refreshes need a proof of that key, and get
// DPoP-bound tokens.
func TestRefreshBoundToTheProofKey(t *testing.T) {
	f := newCodeFixture(t)
	cl, other := dpoptest.NewClient(t, "ES256"), dpoptest.NewClient(t, "EdDSA")
	proofOf := func(c *dpoptest.Client) context.Context {
		return WithDPoPProofs(context.Background(), []string{c.Proof(t, "POST", tokenURL, "", testNow, nil)})
	}
	code := f.consent(t, authQuery()).Get("code")
	resp, err := f.svc.Token(proofOf(cl), form("grant_type", "authorization_code", "client_id", "pub", "code", code,
		"code_verifier", testVerifier, "redirect_uri", pubRedirect), "")
	if err != nil || resp.TokenType != "DPoP" || resp.RefreshToken == "" {
		t.Fatalf("redeem with a proof: %+v, %v", resp, err)
	}
	refresh := func(ctx context.Context, rt string) (*TokenResponse, error) {
		return f.svc.Token(ctx, form("grant_type", "refresh_token", "client_id", "pub", "refresh_token", rt), "")
	}
	_, err = refresh(context.Background(), resp.RefreshToken)
	wantGrantError(t, "a refresh without a proof", err, CodeInvalidDPoPProof)
	_, err = refresh(proofOf(other), resp.RefreshToken)
	wantGrantError(t, "a refresh with another key's proof", err, CodeInvalidGrant)
	again, err := refresh(proofOf(cl), resp.RefreshToken)
	if err != nil || again.TokenType != "DPoP" {
		t.Fatalf("a refresh with the key's proof: %+v, %v", again, err)
	}
	if c, err := f.verifier.Verify(context.Background(), again.AccessToken); err != nil || c.JKT != cl.JKT {
		t.Errorf("the refreshed token: %+v, %v; want cnf.jkt %s", c, err, cl.JKT)
	}
	// A family opened without a proof stays unbound.
	code = f.consent(t, authQuery()).Get("code")
	plain, err := f.redeem("client_id", "pub", "code", code, "code_verifier", testVerifier, "redirect_uri", pubRedirect)
	if err != nil || plain.TokenType != "Bearer" {
		t.Fatalf("redeem without a proof: %+v, %v", plain, err)
	}
	if r, err := f.refresh(plain.RefreshToken); err != nil || r.TokenType != "Bearer" {
		t.Errorf("refresh of an unbound family: %+v, %v", r, err)
	}
}

// With nonces required (RFC 9449 §8), a proof without the server's nonce
// is refused with use_dpop_nonce and a nonce to use; a proof with it gets
// a token and the current nonce; one never issued is refused.
func TestTokenDPoPNonce(t *testing.T) {
	f := newFixture(t)
	f.svc.DPoPNonces = memory.NewDPoPNonces()
	cl := dpoptest.NewClient(t, "ES256")
	withNonce := func(n string) context.Context {
		return WithDPoPProofs(context.Background(), []string{cl.Proof(t, "POST", tokenURL, "", testNow, func(_, c map[string]any) {
			if n != "" {
				c["nonce"] = n
			}
		})})
	}
	_, err := f.svc.Token(withNonce(""), pipelineForm(t), creds("app"))
	e := AsError(err)
	if err == nil || e.Code != CodeUseDPoPNonce || e.Kind != KindBadRequest || len(e.DPoPNonce) != 43 {
		t.Fatalf("a proof without a nonce: %v (nonce %q)", err, e.DPoPNonce)
	}
	resp, err := f.svc.Token(withNonce(e.DPoPNonce), pipelineForm(t), creds("app"))
	if err != nil || resp.TokenType != "DPoP" || resp.DPoPNonce != e.DPoPNonce {
		t.Fatalf("with the nonce: %+v, %v", resp, err)
	}
	for _, bad := range []string{"never-issued", strings.Repeat("n", 300)} {
		if _, err := f.svc.Token(withNonce(bad), pipelineForm(t), creds("app")); AsError(err).Code != CodeUseDPoPNonce {
			t.Errorf("nonce %.20q: %v, want use_dpop_nonce", bad, err)
		}
	}
	// A request without a proof needs no nonce (a bearer token).
	if resp, err := f.svc.Token(context.Background(), pipelineForm(t), creds("app")); err != nil || resp.TokenType != "Bearer" || resp.DPoPNonce != "" {
		t.Errorf("without a proof: %+v, %v", resp, err)
	}
}

// The CIBA grant's poll with a proof gets a DPoP-bound token too: the
// DPoP step runs before every grant.
func TestCIBATokenDPoPBound(t *testing.T) {
	f := newCIBAFixture(t)
	bc := f.request(t, "careful")
	if err := approval.Decide(context.Background(), f.store, f.svc, bc.AuthReqID, approval.Decision{Approve: true, By: "alice", At: f.at()}); err != nil {
		t.Fatal(err)
	}
	cl := dpoptest.NewClient(t, "EdDSA")
	ctx := WithDPoPProofs(context.Background(), []string{cl.Proof(t, "POST", tokenURL, "", testNow, nil)})
	resp, err := f.svc.Token(ctx, form("grant_type", GrantTypeCIBA, "auth_req_id", bc.AuthReqID), creds("careful"))
	if err != nil || resp.TokenType != "DPoP" {
		t.Fatalf("poll with a proof: %+v, %v", resp, err)
	}
	if c, err := f.verifier.Verify(context.Background(), resp.AccessToken); err != nil || c.JKT != cl.JKT || c.AuthorizationDetails[0].Approval == nil {
		t.Errorf("the CIBA token: %+v, %v", c, err)
	}
}
