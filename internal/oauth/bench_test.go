package oauth

import (
	"context"
	"encoding/json"
	"io"
	"testing"
)

// BenchmarkServiceToken is the token endpoint's own work for the valid
// example pipeline with warm caches, answer encoding included, without
// HTTP and with the memory audit log: what internal/server's
// BenchmarkTokenEndpoint adds to the signing its ceiling does too.
func BenchmarkServiceToken(b *testing.B) {
	f := newFixture(b)
	f.svc.Limiter = nil
	req := form("grant_type", "client_credentials", "resource", routerAud,
		"authorization_details", details(exampleDoc(b, "pipeline-valid.json")))
	ctx := context.Background()
	if _, err := f.svc.Token(ctx, req, creds("app")); err != nil {
		b.Fatal(err)
	}
	enc := json.NewEncoder(io.Discard)
	enc.SetEscapeHTML(false)
	b.ReportAllocs()
	for b.Loop() {
		resp, err := f.svc.Token(ctx, req, creds("app"))
		if err != nil {
			b.Fatal(err)
		}
		if err := enc.Encode(resp); err != nil {
			b.Fatal(err)
		}
	}
}
