package oauth

import (
	"context"
	"reflect"
	"testing"
	"time"

	"github.com/typeward/typeward/internal/token"
)

func TestIntrospectAndRevoke(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	mint := func(ring token.Signers, at time.Time) string {
		t.Helper()
		m, err := token.NewMinter(token.Config{Issuer: issuer, TTL: 5 * time.Minute, Signers: ring, Now: func() time.Time { return at }})
		if err != nil {
			t.Fatal(err)
		}
		g, err := m.Mint(token.Grant{ClientID: "app", Audience: routerAud, Tools: []string{"db_query"}})
		if err != nil {
			t.Fatal(err)
		}
		return g.Token
	}
	live := mint(f.keyring, testNow.Add(-time.Minute))
	expired := mint(f.keyring, testNow.Add(-10*time.Minute))
	foreign := mint(newKeyring(t, func() time.Time { return testNow }), testNow) // another server's key
	liveClaims, err := f.verifier.Verify(ctx, live)
	if err != nil {
		t.Fatal(err)
	}

	tests := []struct {
		caller string
		token  string
		active bool
	}{
		{"app", live, true},
		{"admin", live, true},
		{"multi", live, true},  // the token's audience is one of multi's
		{"narrow", live, true}, // same audience
		{"app", expired, false},
		{"app", foreign, false},
		{"app", live[:len(live)-4] + "AAAA", false}, // signature altered
		{"app", "not-a-jwt", false},
	}
	for _, tt := range tests {
		got, err := f.svc.Introspect(ctx, form("token", tt.token), creds(tt.caller))
		if err != nil {
			t.Fatalf("%s/%.20s: %v", tt.caller, tt.token, err)
		}
		if got.Active != tt.active {
			t.Errorf("%s introspecting %.20s: active = %v, want %v", tt.caller, tt.token, got.Active, tt.active)
		}
		want := &Introspection{} // an inactive answer says active=false and nothing else
		if tt.active {
			want = &Introspection{Active: true, Scope: "mcp:tool:db_query", ClientID: "app", TokenType: "Bearer",
				Exp: testNow.Add(4 * time.Minute).Unix(), Iat: testNow.Add(-time.Minute).Unix(), Nbf: testNow.Add(-time.Minute).Unix(),
				Sub: "app", Aud: []string{routerAud}, Iss: issuer, JTI: liveClaims.ID, MCPTools: []string{"db_query"}}
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s introspecting %.20s:\n got %+v\nwant %+v", tt.caller, tt.token, got, want)
		}
	}

	if _, err := f.svc.Introspect(ctx, form("token", live), basicAuth("app", "x")); AsError(err).Code != CodeInvalidClient {
		t.Errorf("unauthenticated introspection: %v", err)
	}
	if _, err := f.svc.Introspect(ctx, form("token", live), ""); AsError(err).Code != CodeInvalidClient {
		t.Errorf("introspection without credentials: %v", err)
	}
	if _, err := f.svc.Introspect(ctx, form(), creds("app")); AsError(err).Code != CodeInvalidRequest {
		t.Errorf("introspection without token: %v", err)
	}

	// Unknown tokens revoke fine and change nothing.
	if err := f.svc.Revoke(ctx, form("token", "garbage"), creds("app")); err != nil {
		t.Errorf("revoke unknown: %v", err)
	}
	if err := f.svc.Revoke(ctx, form("token", live), basicAuth("app", "x")); AsError(err).Code != CodeInvalidClient {
		t.Errorf("unauthenticated revocation: %v", err)
	}
	// Another (non-admin) client's token is left alone.
	if err := f.svc.Revoke(ctx, form("token", live), creds("narrow")); err != nil || f.isRevoked(t, liveClaims.ID) {
		t.Errorf("foreign revoke: err %v, revoked %v", err, f.isRevoked(t, liveClaims.ID))
	}
	if err := f.svc.Revoke(ctx, form("token", live, "token_type_hint", "access_token"), creds("app")); err != nil {
		t.Fatal(err)
	}
	if !f.isRevoked(t, liveClaims.ID) {
		t.Errorf("revocation not recorded")
	}
	// Recorded until the token expires, then purged.
	if n, err := f.revoked.Purge(ctx, liveClaims.ExpiresAt.Add(-time.Second)); err != nil || n != 0 {
		t.Errorf("purge before expiry removed %d (%v)", n, err)
	}
	got, err := f.svc.Introspect(ctx, form("token", live), creds("app"))
	if err != nil || !reflect.DeepEqual(got, &Introspection{}) {
		t.Errorf("revoked token introspects as %+v, %v", got, err)
	}
	if _, err := f.svc.Active(ctx, live); err != nil {
		t.Errorf("Active: %v", err)
	}
	if tok, _ := f.svc.Active(ctx, live); tok != nil {
		t.Errorf("Active returned a revoked token")
	}
}

// TestDisabledClientsTokensAreInactive: disabling a client makes the
// tokens it already holds inactive at once, for introspection and for
// every other use (Active, which the admin API authenticates with).
func TestDisabledClientsTokensAreInactive(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	resp, err := f.svc.Token(ctx, form("grant_type", "client_credentials", "resource", routerAud,
		"authorization_details", details(exampleDoc(t, "pipeline-valid.json"))), creds("app"))
	if err != nil {
		t.Fatal(err)
	}
	active := func() bool {
		t.Helper()
		got, err := f.svc.Introspect(ctx, form("token", resp.AccessToken), creds("admin"))
		if err != nil {
			t.Fatal(err)
		}
		tok, err := f.svc.Active(ctx, resp.AccessToken)
		if err != nil {
			t.Fatal(err)
		}
		if got.Active != (tok != nil) {
			t.Fatalf("introspection says active=%v, Active says %v", got.Active, tok != nil)
		}
		return got.Active
	}
	if !active() {
		t.Fatal("a fresh token is inactive")
	}
	if err := f.clients.Disable(ctx, "app"); err != nil {
		t.Fatal(err)
	}
	if active() {
		t.Error("the token of a disabled client is still active")
	}
}
