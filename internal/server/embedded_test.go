package server

import (
	"bytes"
	"context"
	"log/slog"
	"regexp"
	"testing"
	"time"

	"github.com/typeward/typeward/internal/clients"
	"github.com/typeward/typeward/internal/keys"
)

// TestEmbeddedDefault: examples loaded, a demo client for every tool and
// an admin client, printed once as shell assignments.
func TestEmbeddedDefault(t *testing.T) {
	cfg := &Config{Addr: "127.0.0.1:0", Issuer: "http://127.0.0.1:0", TokenTTL: 5 * time.Minute, SigningAlg: keys.ES256,
		JWKSMaxAge: time.Minute, RateLimit: 10, RateBurst: 10, Registry: "../../examples/registry.json"}
	srv, err := New(context.Background(), cfg, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	tools, err := srv.stores.registry.ListTools(context.Background())
	if err != nil || len(tools) != 4 {
		t.Errorf("registry: %d tools, %v", len(tools), err)
	}
	demo, err := srv.stores.clients.Get(context.Background(), srv.Demo.ID)
	if err != nil || !demo.AllowsTool("db_query") || !demo.AllowsAudience(DemoAudience) || len(srv.Demo.Secret) < 43 || demo.Approval != clients.ApprovalMutating {
		t.Errorf("demo client %+v, %v", demo, err)
	}
	admin, err := srv.stores.clients.Get(context.Background(), srv.Admin.ID)
	if err != nil || !admin.AllowsScope("typeward:admin") || admin.AllowsTool("db_query") {
		t.Errorf("admin client %+v, %v", admin, err)
	}
	var out bytes.Buffer
	srv.PrintEmbeddedCredentials(&out)
	for _, re := range []string{
		`(?m)^export TYPEWARD_DEMO_CLIENT_ID=` + srv.Demo.ID + `$`,
		`(?m)^export TYPEWARD_DEMO_CLIENT_SECRET=` + regexp.QuoteMeta(srv.Demo.Secret) + `$`,
		`(?m)^export TYPEWARD_ADMIN_CLIENT_SECRET=` + regexp.QuoteMeta(srv.Admin.Secret) + `$`,
	} {
		if !regexp.MustCompile(re).Match(out.Bytes()) {
			t.Errorf("printed credentials lack %s:\n%s", re, out.String())
		}
	}
	if srv.ready(context.Background()) != nil {
		t.Errorf("embedded server not ready")
	}
}

func TestEmbeddedRegistryFileErrors(t *testing.T) {
	cfg := &Config{Addr: "127.0.0.1:0", Issuer: "http://x", TokenTTL: 5 * time.Minute, SigningAlg: keys.ES256,
		JWKSMaxAge: time.Minute, RateLimit: 10, RateBurst: 10, Registry: "testdata/missing.json"}
	if _, err := New(context.Background(), cfg, slog.New(slog.DiscardHandler)); err == nil {
		t.Errorf("a missing registry file started a server")
	}
}
