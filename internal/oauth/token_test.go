package oauth

import (
	"context"
	"encoding/base64"
	"errors"
	"net/url"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/typeward/typeward/internal/audit"
	"github.com/typeward/typeward/internal/clients"
	"github.com/typeward/typeward/internal/compat"
	"github.com/typeward/typeward/verify"
)

// creds is the Authorization header of a client with the right secret.
func creds(id string) string { return basicAuth(id, "s3cret") }

func basicAuth(id, secret string) string {
	return "Basic " + base64.StdEncoding.EncodeToString([]byte(id+":"+secret))
}

func details(composition string) string {
	return `[{"type":"mcp_composition","composition":` + composition + `}]`
}

func form(kv ...string) url.Values {
	v := url.Values{}
	for i := 0; i < len(kv); i += 2 {
		v.Add(kv[i], kv[i+1])
	}
	return v
}

func TestTokenRefusals(t *testing.T) {
	valid := details(caseDoc("valid"))
	tests := []struct {
		name   string
		creds  string
		form   url.Values
		kind   Kind
		code   string
		issues []compat.Issue
		basic  bool
	}{
		{"wrong secret", basicAuth("app", "nope"),
			form("grant_type", "client_credentials", "authorization_details", valid), KindUnauthorized, CodeInvalidClient, nil, true},
		{"unknown client by post", "",
			form("client_id", "ghost", "client_secret", "s3cret", "grant_type", "client_credentials"), KindUnauthorized, CodeInvalidClient, nil, false},
		{"no grant type", creds("app"), form("authorization_details", valid), KindBadRequest, CodeInvalidRequest, nil, false},
		{"password grant", creds("app"), form("grant_type", "password"), KindBadRequest, CodeUnsupportedGrantType, nil, false},
		{"repeated grant type", creds("app"), form("grant_type", "client_credentials", "grant_type", "client_credentials"), KindBadRequest, CodeInvalidRequest, nil, false},
		{"nothing asked", creds("app"), form("grant_type", "client_credentials"), KindBadRequest, CodeInvalidRequest, nil, false},
		{"audience not allowed", creds("app"), form("grant_type", "client_credentials", "resource", "https://evil.example.com", "authorization_details", valid), KindBadRequest, CodeInvalidTarget, nil, false},
		{"relative resource", creds("app"), form("grant_type", "client_credentials", "resource", "/mcp", "authorization_details", valid), KindBadRequest, CodeInvalidTarget, nil, false},
		{"two resources", creds("app"), form("grant_type", "client_credentials", "resource", routerAud, "resource", routerAud, "authorization_details", valid), KindBadRequest, CodeInvalidTarget, nil, false},
		{"resource needed with several audiences", creds("multi"), form("grant_type", "client_credentials", "authorization_details", valid), KindBadRequest, CodeInvalidTarget, nil, false},
		{"tool scope requested directly", creds("app"), form("grant_type", "client_credentials", "scope", "mcp:tool:db_query"), KindBadRequest, CodeInvalidScope, nil, false},
		{"admin scope not allowed", creds("app"), form("grant_type", "client_credentials", "scope", AdminScope), KindBadRequest, CodeInvalidScope, nil, false},
		{"malformed details", creds("app"), form("grant_type", "client_credentials", "authorization_details", `{"type":"mcp_composition"}`), KindBadRequest, CodeInvalidAuthorizationDetails, nil, false},
		{"malformed composition", creds("app"), form("grant_type", "client_credentials", "authorization_details", details(`{"nodes":[{"id":"n"}]}`)), KindBadRequest, CodeInvalidAuthorizationDetails, nil, false},
		{"unknown stored composition", creds("app"), form("grant_type", "client_credentials", "authorization_details", `[{"type":"mcp_composition","composition_id":"nope"}]`), KindBadRequest, CodeInvalidAuthorizationDetails, nil, false},
		{"type mismatch", creds("app"), form("grant_type", "client_credentials", "authorization_details", details(caseDoc("bad"))), KindForbidden, CodeInvalidAuthorizationDetails, []compat.Issue{warning, mismatch}, false},
		{"tool outside allow-list", creds("narrow"), form("grant_type", "client_credentials", "authorization_details", valid), KindForbidden, CodeInvalidAuthorizationDetails, []compat.Issue{{
			Severity: compat.SeverityError, Code: CodeToolNotAllowed, SourceTool: "aggregate_stats",
			Message: "tool aggregate_stats is not in the allow-list of client narrow"}}, false},
		{"rate limited", creds("limited"), form("grant_type", "client_credentials", "authorization_details", valid), KindRateLimited, CodeRateLimited, nil, false},
		{"validator failure is not echoed", creds("app"), form("grant_type", "client_credentials", "authorization_details", details(caseDoc("boom"))), KindServer, CodeServerError, nil, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture()
			_, err := f.svc.Token(context.Background(), tt.form, tt.creds)
			var oe *Error
			if !errors.As(err, &oe) {
				t.Fatalf("error = %v, want *Error", err)
			}
			if oe.Kind != tt.kind || oe.Code != tt.code {
				t.Fatalf("got kind %d code %s (%s), want kind %d code %s", oe.Kind, oe.Code, oe.Description, tt.kind, tt.code)
			}
			if !reflect.DeepEqual(oe.Issues, tt.issues) {
				t.Errorf("issues = %+v\nwant     %+v", oe.Issues, tt.issues)
			}
			if oe.BasicChallenge != tt.basic {
				t.Errorf("BasicChallenge = %v, want %v", oe.BasicChallenge, tt.basic)
			}
			if strings.Contains(oe.Description, "secret detail") {
				t.Errorf("description leaks the cause: %q", oe.Description)
			}
			if len(f.minter.grants) != 0 {
				t.Errorf("a token was minted: %+v", f.minter.grants)
			}
			wantOutcome, wantReason := audit.Denied, tt.code
			switch tt.kind {
			case KindServer:
				wantOutcome = audit.Error
			case KindUnauthorized:
				wantReason = string(clients.ReasonBadSecret) // the authenticator's precise reason
			}
			if len(f.audit.decisions) != 1 || f.audit.decisions[0].Outcome != wantOutcome || f.audit.decisions[0].Reason != wantReason {
				t.Errorf("audit = %+v, want one %s with reason %s", f.audit.decisions, wantOutcome, wantReason)
			}
		})
	}
}

func TestTokenForValidComposition(t *testing.T) {
	tests := []struct {
		name     string
		client   string
		form     url.Values
		wantAud  string
		wantWarn []compat.Issue
	}{
		{"inline, resource given", "app", form("grant_type", "client_credentials", "resource", routerAud, "authorization_details", details(caseDoc("valid"))), routerAud, nil},
		{"inline, sole audience implied", "app", form("grant_type", "client_credentials", "authorization_details", details(caseDoc("warn"))), routerAud, []compat.Issue{warning}},
		{"stored composition", "multi", form("grant_type", "client_credentials", "resource", routerAud, "authorization_details", `[{"type":"mcp_composition","composition_id":"stored"}]`), routerAud, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture()
			resp, err := f.svc.Token(context.Background(), tt.form, creds(tt.client))
			if err != nil {
				t.Fatal(err)
			}
			if resp.TokenType != "Bearer" || resp.ExpiresIn != 300 || resp.AccessToken != "h.tok1.s" {
				t.Errorf("response = %+v", resp)
			}
			if resp.Scope != "mcp:tool:db_query mcp:tool:aggregate_stats" {
				t.Errorf("scope = %q", resp.Scope)
			}
			if !reflect.DeepEqual(resp.Warnings, tt.wantWarn) {
				t.Errorf("warnings = %+v, want %+v", resp.Warnings, tt.wantWarn)
			}
			g := f.minter.grants[0]
			if g.Audience != tt.wantAud || g.ClientID != tt.client {
				t.Errorf("grant = %+v", g)
			}
			if !reflect.DeepEqual(g.Tools, []string{"db_query", "aggregate_stats"}) {
				t.Errorf("mcp_tools = %v", g.Tools)
			}
			wantTools := []verify.ToolRef{{Name: "db_query", Version: 1, Digest: "sha256:aa"}, {Name: "aggregate_stats", Version: 1, Digest: "sha256:bb"}}
			if len(g.Details) != 1 || g.Details[0].Type != DetailTypeComposition || g.Details[0].Digest != "sha256:cc" && g.Details[0].Digest != "sha256:dd" ||
				!reflect.DeepEqual(g.Details[0].Tools, wantTools) {
				t.Errorf("details = %+v", g.Details)
			}
			if !reflect.DeepEqual(resp.AuthorizationDetails, g.Details) {
				t.Errorf("answer details %+v differ from the token's %+v", resp.AuthorizationDetails, g.Details)
			}
			d := f.audit.decisions
			if len(d) != 1 || d[0].Outcome != audit.Issued || d[0].JTI != "jti-1" || d[0].ClientID != tt.client ||
				d[0].CompositionDigest == "" || len(d[0].Tools) != 2 {
				t.Errorf("audit = %+v", d)
			}
		})
	}
}

func TestAdminScopeToken(t *testing.T) {
	f := newFixture()
	resp, err := f.svc.Token(context.Background(), form("grant_type", "client_credentials", "scope", AdminScope), creds("admin"))
	if err != nil {
		t.Fatal(err)
	}
	g := f.minter.grants[0]
	if resp.Scope != AdminScope || g.Audience != f.svc.Issuer || len(g.Tools) != 0 || g.Details != nil {
		t.Errorf("resp %+v grant %+v: want an admin token for the issuer and no tools", resp, g)
	}
}

func TestIntrospectAndRevoke(t *testing.T) {
	f := newFixture()
	tok := &verify.Claims{ID: "j1", ClientID: "app", Audience: []string{routerAud}, Scope: []string{"mcp:tool:db_query"},
		IssuedAt: testNow.Add(-time.Minute), NotBefore: testNow.Add(-time.Minute), ExpiresAt: testNow.Add(4 * time.Minute),
		Issuer: f.svc.Issuer, Subject: "app", Tools: []string{"db_query"}}
	expired := *tok
	expired.ID, expired.ExpiresAt = "j2", testNow.Add(-time.Second)
	f.svc.Verifier = fakeVerifier{"a.live.t": tok, "a.expired.t": &expired}
	ctx := context.Background()

	tests := []struct {
		caller string
		token  string
		active bool
	}{
		{"app", "a.live.t", true},
		{"admin", "a.live.t", true},
		{"multi", "a.live.t", true},   // the token's audience is one of multi's
		{"narrow", "a.live.t", true},  // same audience
		{"app", "a.expired.t", false}, // expired
		{"app", "a.forged.t", false},  // signature fails
		{"app", "not-a-jwt", false},   // malformed
	}
	for _, tt := range tests {
		got, err := f.svc.Introspect(ctx, form("token", tt.token), creds(tt.caller))
		if err != nil {
			t.Fatalf("%s/%s: %v", tt.caller, tt.token, err)
		}
		if got.Active != tt.active {
			t.Errorf("%s introspecting %s: active = %v, want %v", tt.caller, tt.token, got.Active, tt.active)
		}
		if got.Active && (got.JTI != "j1" || got.ClientID != "app" || got.Exp != tok.ExpiresAt.Unix() || got.MCPTools[0] != "db_query") {
			t.Errorf("active answer = %+v", got)
		}
		if !got.Active && !reflect.DeepEqual(got, &Introspection{}) {
			t.Errorf("inactive answer says more than active=false: %+v", got)
		}
	}

	if _, err := f.svc.Introspect(ctx, form("token", "a.live.t"), basicAuth("app", "x")); AsError(err).Code != CodeInvalidClient {
		t.Errorf("unauthenticated introspection: %v", err)
	}
	if _, err := f.svc.Introspect(ctx, form(), creds("app")); AsError(err).Code != CodeInvalidRequest {
		t.Errorf("introspection without token: %v", err)
	}

	// Unknown tokens revoke fine and change nothing.
	if err := f.svc.Revoke(ctx, form("token", "garbage"), creds("app")); err != nil {
		t.Errorf("revoke unknown: %v", err)
	}
	// Another (non-admin) client's token is left alone.
	if err := f.svc.Revoke(ctx, form("token", "a.live.t"), creds("narrow")); err != nil || len(f.revoked.revoked) != 0 {
		t.Errorf("foreign revoke: err %v, revoked %v", err, f.revoked.revoked)
	}
	if err := f.svc.Revoke(ctx, form("token", "a.live.t", "token_type_hint", "access_token"), creds("app")); err != nil {
		t.Fatal(err)
	}
	if exp, ok := f.revoked.revoked["j1"]; !ok || !exp.Equal(tok.ExpiresAt) {
		t.Errorf("revocation not recorded until expiry: %v", f.revoked.revoked)
	}
	got, err := f.svc.Introspect(ctx, form("token", "a.live.t"), creds("app"))
	if err != nil || got.Active {
		t.Errorf("revoked token introspects as %+v, %v", got, err)
	}
}
