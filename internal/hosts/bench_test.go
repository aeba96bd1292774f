package hosts_test

import (
	"context"
	"testing"
	"time"

	"github.com/typeward/typeward/internal/clients"
	"github.com/typeward/typeward/internal/hosts"
)

// BenchmarkLookup: what a token request's client lookup costs for a host
// named by its metadata document's URL (the document cached, checked as
// a client again on each lookup) and for a registered host in the
// memory store (the protected resources filled in for both).
func BenchmarkLookup(b *testing.B) {
	f := newFixture(b)
	ctx := context.Background()
	doc := f.base + "/client.json"
	f.serve("/client.json", map[string]any{"client_id": doc, "client_name": "Desk host",
		"redirect_uris": []string{"http://127.0.0.1:3334/callback"}, "grant_types": []string{"authorization_code", "refresh_token"}})
	c, _, err := hosts.New(hosts.Metadata{Name: "Desk host", Method: clients.None, RedirectURIs: []string{"http://127.0.0.1:3334/callback"},
		GrantTypes: []string{clients.GrantAuthorizationCode, clients.GrantRefreshToken}}, nil, issuer, time.Now())
	if err != nil {
		b.Fatal(err)
	}
	if err := f.store.Create(ctx, c); err != nil {
		b.Fatal(err)
	}
	for name, id := range map[string]string{"document": doc, "registered": c.ID} {
		b.Run(name, func(b *testing.B) {
			if _, err := f.hosts.Get(ctx, id); err != nil { // warm the document cache
				b.Fatal(err)
			}
			b.ReportAllocs()
			for b.Loop() {
				if _, err := f.hosts.Get(ctx, id); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
