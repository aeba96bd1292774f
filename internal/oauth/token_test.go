package oauth

import (
	"context"
	"errors"
	"net/url"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/typeward/typeward/internal/audit"
	"github.com/typeward/typeward/internal/clients"
	"github.com/typeward/typeward/internal/verdict"
	"github.com/typeward/typeward/verify"
)

func TestTokenRefusals(t *testing.T) {
	valid := details(exampleDoc(t, "pipeline-valid.json"))
	grant := func(kv ...string) url.Values {
		return form(append([]string{"grant_type", "client_credentials"}, kv...)...)
	}
	notAllowed := func(tool string) issueKey {
		return issueKey{Severity: verdict.SeverityError, Code: verdict.CodeToolNotAllowed, Source: tool}
	}
	tests := []struct {
		name   string
		creds  string
		form   url.Values
		kind   Kind
		code   string
		reason string // the audit record's; the code when empty
		issues []issueKey
		basic  bool
	}{
		{name: "wrong secret", creds: basicAuth("app", "nope"), form: grant("authorization_details", valid),
			kind: KindUnauthorized, code: CodeInvalidClient, reason: string(clients.ReasonBadSecret), basic: true},
		{name: "unknown client by post", form: grant("client_id", "ghost", "client_secret", secret),
			kind: KindUnauthorized, code: CodeInvalidClient, reason: string(clients.ReasonUnknownClient)},
		{name: "disabled client", creds: creds("off"), form: grant("authorization_details", valid),
			kind: KindUnauthorized, code: CodeInvalidClient, reason: string(clients.ReasonDisabled), basic: true},
		{name: "two authentication methods", creds: creds("app"), form: grant("client_id", "app", "client_secret", secret),
			kind: KindBadRequest, code: CodeInvalidRequest, reason: string(clients.ReasonMultipleMethods)},
		{name: "no grant type", creds: creds("app"), form: form("authorization_details", valid), kind: KindBadRequest, code: CodeInvalidRequest},
		{name: "a grant the client is not registered for", creds: creds("host"), form: grant("authorization_details", valid),
			kind: KindBadRequest, code: CodeUnauthorizedClient},
		{name: "password grant", creds: creds("app"), form: form("grant_type", "password"), kind: KindBadRequest, code: CodeUnsupportedGrantType},
		{name: "repeated grant type", creds: creds("app"), form: grant("grant_type", "client_credentials"), kind: KindBadRequest, code: CodeInvalidRequest},
		{name: "nothing asked", creds: creds("app"), form: grant(), kind: KindBadRequest, code: CodeInvalidRequest},
		{name: "audience not allowed", creds: creds("app"), form: grant("resource", "https://evil.example.com", "authorization_details", valid), kind: KindBadRequest, code: CodeInvalidTarget},
		{name: "relative resource", creds: creds("app"), form: grant("resource", "/mcp", "authorization_details", valid), kind: KindBadRequest, code: CodeInvalidTarget},
		{name: "two resources", creds: creds("app"), form: grant("resource", routerAud, "resource", routerAud, "authorization_details", valid), kind: KindBadRequest, code: CodeInvalidTarget},
		{name: "resource needed with several audiences", creds: creds("multi"), form: grant("authorization_details", valid), kind: KindBadRequest, code: CodeInvalidTarget},
		{name: "tool scope requested directly", creds: creds("app"), form: grant("scope", "mcp:tool:db_query"), kind: KindBadRequest, code: CodeInvalidScope},
		{name: "admin scope not allowed", creds: creds("app"), form: grant("scope", clients.AdminScope), kind: KindBadRequest, code: CodeInvalidScope},
		{name: "malformed details", creds: creds("app"), form: grant("authorization_details", `{"type":"mcp_composition"}`), kind: KindBadRequest, code: CodeInvalidAuthorizationDetails},
		{name: "malformed composition", creds: creds("app"), form: grant("authorization_details", details(`{"nodes":[{"id":"n"}]}`)), kind: KindBadRequest, code: CodeInvalidAuthorizationDetails},
		{name: "unknown stored composition", creds: creds("app"), form: grant("authorization_details", `[{"type":"mcp_composition","composition_id":"nope"}]`), kind: KindBadRequest, code: CodeInvalidAuthorizationDetails},
		{name: "type mismatch", creds: creds("app"), form: grant("authorization_details", details(exampleDoc(t, "pipeline-invalid.json"))),
			kind: KindForbidden, code: CodeInvalidAuthorizationDetails, issues: []issueKey{csvRows, unboundTo}},
		{name: "unknown tool", creds: creds("app"), form: grant("authorization_details", details(`{"nodes":[{"id":"x","tool":"ghost_tool"}]}`)),
			kind: KindForbidden, code: CodeInvalidAuthorizationDetails, issues: []issueKey{{Severity: verdict.SeverityError, Code: "unknown_tool", Target: "ghost_tool"}}},
		{name: "tools outside the allow-list", creds: creds("narrow"), form: grant("authorization_details", valid),
			kind: KindForbidden, code: CodeInvalidAuthorizationDetails, issues: []issueKey{unboundTo, notAllowed("aggregate_stats"), notAllowed("email_send")}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t)
			resp, err := f.svc.Token(context.Background(), tt.form, tt.creds)
			var oe *Error
			if !errors.As(err, &oe) || resp != nil {
				t.Fatalf("got %+v, %v; want an *Error", resp, err)
			}
			if oe.Kind != tt.kind || oe.Code != tt.code {
				t.Fatalf("got kind %d code %s (%s), want kind %d code %s", oe.Kind, oe.Code, oe.Description, tt.kind, tt.code)
			}
			if got := issueKeys(oe.Issues); !reflect.DeepEqual(got, tt.issues) {
				t.Errorf("issues = %+v\nwant     %+v", got, tt.issues)
			}
			if oe.BasicChallenge != tt.basic {
				t.Errorf("BasicChallenge = %v, want %v", oe.BasicChallenge, tt.basic)
			}
			if ASCII(oe.Description) != oe.Description || oe.Description == "" {
				t.Errorf("error_description %q is not non-empty ASCII", oe.Description)
			}
			wantReason := tt.reason
			if wantReason == "" {
				wantReason = tt.code
			}
			d := f.decisions(t)
			if len(d) != 1 || d[0].Outcome != audit.Denied || d[0].Reason != wantReason || d[0].JTI != "" {
				t.Errorf("audit = %+v, want one denial with reason %s and no jti", d, wantReason)
			}
			// The record keeps the issues the client was shown, witnesses
			// included (the type mismatch has one).
			if kept, dropped := audit.Issues(oe.Issues); len(d) == 1 && (!reflect.DeepEqual(d[0].Issues, kept) || d[0].IssuesDropped != dropped) {
				t.Errorf("audited issues %+v, want %+v", d[0].Issues, kept)
			}
			if tt.name == "type mismatch" && (len(d) != 1 || len(d[0].Issues) == 0 || d[0].Issues[0].Witness == nil || d[0].Issues[0].WitnessError == nil) {
				t.Errorf("the refusal's record has no witness: %+v", d)
			}
		})
	}
}

// spendTokenBurst makes the admin client's burst of token requests, each
// issued; it returns the request.
func spendTokenBurst(t *testing.T, f *fixture) url.Values {
	t.Helper()
	ask := form("grant_type", "client_credentials", "scope", clients.AdminScope)
	for range testBurst {
		if _, err := f.svc.Token(context.Background(), ask, creds("admin")); err != nil {
			t.Fatal(err)
		}
	}
	return ask
}

func TestTokenRateLimited(t *testing.T) {
	f := newFixture(t)
	ask := spendTokenBurst(t, f)
	_, err := f.svc.Token(context.Background(), ask, creds("admin"))
	if e := AsError(err); e.Kind != KindRateLimited || e.Code != CodeRateLimited || e.RetryAfter != time.Second {
		t.Fatalf("request beyond the burst: %+v, want rate_limited with a wait of 1s", e)
	}
	if d := f.decisions(t); len(d) != testBurst+1 || d[testBurst].Outcome != audit.Denied || d[testBurst].Reason != CodeRateLimited || d[testBurst].ClientID != "admin" {
		t.Errorf("audit = %+v", d)
	}
}

// TestBackchannelSharesTheTokenBucket: a client's backchannel requests
// and token requests spend one bucket, so neither endpoint is a way round
// the other's limit.
func TestBackchannelSharesTheTokenBucket(t *testing.T) {
	f := newCIBAFixture(t)
	spendTokenBurst(t, f.fixture)
	_, err := f.svc.BackchannelAuthorize(context.Background(), form("authorization_details", details(exampleDoc(t, "pipeline-valid.json"))), creds("admin"))
	if e := AsError(err); e.Kind != KindRateLimited || e.Description != "too many requests; retry later" || e.RetryAfter <= 0 {
		t.Fatalf("backchannel request after the token burst: %+v, want rate_limited with a wait", e)
	}
}

// TestTokenServerFailures: a failing dependency is a server error whose
// cause is kept for the log and never put in the answer, and a token is
// never handed out unless its audit record is written.
func TestTokenServerFailures(t *testing.T) {
	valid := form("grant_type", "client_credentials", "authorization_details", details(exampleDoc(t, "pipeline-valid.json")))

	f := newFixture(t)
	f.svc.Validator = failingValidator{}
	_, err := f.svc.Token(context.Background(), valid, creds("app"))
	if e := AsError(err); e.Kind != KindServer || e.Code != CodeServerError || strings.Contains(e.Description, "secret detail") ||
		!strings.Contains(err.Error(), "secret detail") {
		t.Errorf("validator failure: description %q, error %v", e.Description, err)
	}
	if d := f.decisions(t); len(d) != 1 || d[0].Outcome != audit.Error || d[0].Reason != CodeServerError {
		t.Errorf("audit = %+v, want one error", d)
	}

	f = newFixture(t)
	f.svc.Audit = failingAudit{}
	resp, err := f.svc.Token(context.Background(), valid, creds("app"))
	if e := AsError(err); resp != nil || e.Kind != KindServer || strings.Contains(e.Description, "disk full") {
		t.Errorf("unaudited issuance answered %+v, %v; want a server error and no token", resp, err)
	}
}

// failingAudit is an audit log that cannot write: the memory log never
// fails, and the test needs a failed write.
type failingAudit struct{}

func (failingAudit) Append(context.Context, *audit.Issuance) error { return errors.New("disk full") }

func TestTokenForValidComposition(t *testing.T) {
	stored := `[{"type":"mcp_composition","composition_id":"stored"}]`
	tests := []struct {
		name    string
		client  string
		form    url.Values
		wantAud string
	}{
		{"inline, resource given", "app", form("grant_type", "client_credentials", "resource", routerAud, "authorization_details", details(exampleDoc(t, "pipeline-valid.json"))), routerAud},
		{"inline, sole audience implied", "app", form("grant_type", "client_credentials", "authorization_details", details(exampleDoc(t, "pipeline-valid.json"))), routerAud},
		{"stored composition", "multi", form("grant_type", "client_credentials", "resource", "https://other.example.com", "authorization_details", stored), "https://other.example.com"},
	}
	wantTools := []string{"aggregate_stats", "db_query", "email_send"}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t)
			resp, err := f.svc.Token(context.Background(), tt.form, creds(tt.client))
			if err != nil {
				t.Fatal(err)
			}
			if resp.TokenType != "Bearer" || resp.ExpiresIn != 300 {
				t.Errorf("response = %+v", resp)
			}
			if resp.Scope != "mcp:tool:aggregate_stats mcp:tool:db_query mcp:tool:email_send" {
				t.Errorf("scope = %q", resp.Scope)
			}
			if got := issueKeys(resp.Warnings); !reflect.DeepEqual(got, []issueKey{unboundTo}) {
				t.Errorf("warnings = %+v", got)
			}
			tok, err := f.verifier.Verify(context.Background(), resp.AccessToken)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(tok.Audience, []string{tt.wantAud}) || tok.ClientID != tt.client || tok.Subject != tt.client ||
				!tok.ExpiresAt.Equal(testNow.Add(5*time.Minute)) {
				t.Errorf("token claims = %+v", tok)
			}
			if !reflect.DeepEqual(tok.Tools, wantTools) {
				t.Errorf("mcp_tools = %v, want %v", tok.Tools, wantTools)
			}
			if len(tok.AuthorizationDetails) != 1 {
				t.Fatalf("authorization_details = %+v", tok.AuthorizationDetails)
			}
			detail := tok.AuthorizationDetails[0]
			if detail.Type != verify.DetailType || !strings.HasPrefix(detail.Digest, "sha256:") || len(detail.Tools) != 3 ||
				!reflect.DeepEqual(detail.Edges, []verify.Edge{{From: "aggregate_stats", To: "email_send"}, {From: "db_query", To: "aggregate_stats"}}) {
				t.Errorf("authorization_details = %+v", detail)
			}
			for i, ref := range detail.Tools {
				rec, err := f.registry.Tool(context.Background(), wantTools[i])
				if err != nil || ref.Name != wantTools[i] || ref.Version != rec.Version || ref.Digest != rec.Digest {
					t.Errorf("tool %d = %+v, registry has %+v (%v)", i, ref, rec, err)
				}
			}
			if !reflect.DeepEqual(resp.AuthorizationDetails, tok.AuthorizationDetails) {
				t.Errorf("answer details %+v differ from the token's %+v", resp.AuthorizationDetails, tok.AuthorizationDetails)
			}
			d := f.decisions(t)
			if len(d) != 1 || d[0].Outcome != audit.Issued || d[0].JTI != tok.ID || d[0].ClientID != tt.client ||
				d[0].CompositionDigest != detail.Digest || !reflect.DeepEqual(d[0].Tools, wantTools) ||
				!reflect.DeepEqual(d[0].IssueCodes, []string{"unbound_required_input"}) || d[0].Audience != tt.wantAud {
				t.Errorf("audit = %+v", d)
			}
		})
	}
}

func TestAdminScopeToken(t *testing.T) {
	f := newFixture(t)
	resp, err := f.svc.Token(context.Background(), form("grant_type", "client_credentials", "scope", clients.AdminScope), creds("admin"))
	if err != nil {
		t.Fatal(err)
	}
	tok, err := f.verifier.Verify(context.Background(), resp.AccessToken)
	if err != nil {
		t.Fatal(err)
	}
	if resp.Scope != clients.AdminScope || !reflect.DeepEqual(tok.Audience, []string{issuer}) || len(tok.Tools) != 0 ||
		tok.AuthorizationDetails != nil || resp.AuthorizationDetails != nil || resp.Warnings != nil {
		t.Errorf("resp %+v token %+v: want an admin token for the issuer and no tools", resp, tok)
	}
}
