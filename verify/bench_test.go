package verify_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

	"github.com/typeward/typeward/verify"
	"github.com/typeward/typeward/verify/dpop/dpoptest"
)

// BenchmarkVerify: the router's cost per request with a warm JWKS cache.
func BenchmarkVerify(b *testing.B) {
	for _, alg := range []string{"ES256", "EdDSA"} {
		b.Run(alg, func(b *testing.B) {
			a := newAuthServer(b, alg)
			tok := a.mint(b, grant)
			v := a.verifier(b, nil)
			ctx := context.Background()
			b.ReportAllocs()
			for b.Loop() {
				if _, err := v.Verify(ctx, tok); err != nil {
					b.Fatal(err)
				}
			}
			if n := a.fetches.Load(); n != 1 {
				b.Fatalf("%d JWKS fetches, want 1", n)
			}
		})
	}
}

// BenchmarkToolNameNested: a 1 MiB [[[…]]] body is refused in time linear
// in its size (compare ns/op with the 20 KB case: about 50×, not 2500×).
func BenchmarkToolNameNested(b *testing.B) {
	for _, n := range []int{10_000, 1 << 19} {
		body := nestedBody(n)
		b.Run(strconv.Itoa(len(body)), func(b *testing.B) {
			b.SetBytes(int64(len(body)))
			for b.Loop() {
				r := httptest.NewRequest(http.MethodPost, "/mcp", strings.NewReader(body))
				if _, err := verify.ToolName(r, 2<<20); err == nil {
					b.Fatal("nested body accepted")
				}
			}
		})
	}
}

// BenchmarkVerifyRequest: a request's credentials checked, a bearer token
// beside a DPoP-bound one with its proof (ES256 token, ES256 and EdDSA
// proofs); issue 19 asks DPoP for at most twice bearer's time.
func BenchmarkVerifyRequest(b *testing.B) {
	a := newAuthServer(b, "ES256")
	v := a.verifier(b, nil)
	request := func(scheme, token, proof string) *http.Request {
		r := httptest.NewRequest(http.MethodPost, "/mcp", nil)
		r.Header.Set("Authorization", scheme+" "+token)
		if proof != "" {
			r.Header.Set("DPoP", proof)
		}
		return r
	}
	b.Run("bearer", func(b *testing.B) {
		r := request("Bearer", a.mint(b, grant), "")
		b.ReportAllocs()
		for b.Loop() {
			if _, _, err := v.VerifyRequest(r); err != nil {
				b.Fatal(err)
			}
		}
	})
	for _, alg := range []string{"ES256", "EdDSA"} {
		b.Run("dpop-"+alg, func(b *testing.B) {
			cl := dpoptest.NewClient(b, alg)
			tok := a.mintBound(b, grant, cl.JKT)
			// Each proof is accepted once: one per iteration, signed first.
			reqs := make([]*http.Request, b.N)
			for i := range reqs {
				reqs[i] = request("DPoP", tok, cl.Proof(b, "POST", resource, tok, a.clock.Now(), nil))
			}
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if _, _, err := v.VerifyRequest(reqs[i]); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
