package verify_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

	"github.com/typeward/typeward/verify"
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
