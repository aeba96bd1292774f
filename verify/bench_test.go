package verify_test

import (
	"context"
	"testing"

	"github.com/typeward/typeward/internal/keys"
)

// BenchmarkVerify: the router's cost per request with a warm JWKS cache.
func BenchmarkVerify(b *testing.B) {
	for _, alg := range []keys.Alg{keys.ES256, keys.EdDSA} {
		b.Run(string(alg), func(b *testing.B) {
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
