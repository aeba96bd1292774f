package oauth

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"net/url"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/typeward/typeward/internal/grant"
)

const (
	testVerifier = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"
	pubRedirect  = "http://127.0.0.1/cb"
)

func challengeOf(verifier string) string {
	sum := sha256.Sum256([]byte(verifier))
	return base64.RawURLEncoding.EncodeToString(sum[:])
}

// codeFixture is the Service with a clock the test moves.
type codeFixture struct {
	*fixture
	offset atomic.Int64
}

func newCodeFixture(t testing.TB) *codeFixture {
	f := &codeFixture{fixture: newFixture(t)}
	ticks := auditClock()
	f.svc.Now = func() time.Time { return ticks().Add(time.Duration(f.offset.Load())) }
	return f
}

func (f *codeFixture) advance(d time.Duration) { f.offset.Add(int64(d)) }

// authQuery is a valid authorization request of pub, with kv replacing or
// adding parameters ("" deletes one).
func authQuery(kv ...string) url.Values {
	q := url.Values{"response_type": {"code"}, "client_id": {"pub"}, "redirect_uri": {pubRedirect},
		"code_challenge": {challengeOf(testVerifier)}, "code_challenge_method": {"S256"}, "state": {"st-1"},
		"scope": {"mcp:composition:stored offline_access"}}
	for i := 0; i < len(kv); i += 2 {
		if kv[i+1] == "" {
			q.Del(kv[i])
		} else {
			q.Set(kv[i], kv[i+1])
		}
	}
	return q
}

// consent runs Authorize and alice's Approve; it returns the redirect's
// query.
func (f *codeFixture) consent(t *testing.T, q url.Values) url.Values {
	t.Helper()
	a, err := f.svc.Authorize(context.Background(), q)
	if err != nil {
		t.Fatalf("authorize: %v", err)
	}
	to, err := f.svc.Consent(context.Background(), a, "alice", true, a.Digest)
	if err != nil {
		t.Fatalf("consent: %v", err)
	}
	u, err := url.Parse(to)
	if err != nil {
		t.Fatal(err)
	}
	return u.Query()
}

func (f *codeFixture) redeem(kv ...string) (*TokenResponse, error) {
	return f.svc.Token(context.Background(), form(append([]string{"grant_type", "authorization_code"}, kv...)...), "")
}

func (f *codeFixture) refresh(rt string, kv ...string) (*TokenResponse, error) {
	return f.svc.Token(context.Background(), form(append([]string{"grant_type", "refresh_token", "client_id", "pub", "refresh_token", rt}, kv...)...), "")
}

// Every bad authorization request: a bad client or redirect URI is shown
// on a page (no redirect at all), the rest go back to the registered
// redirect URI with the RFC 6749 §4.1.2.1 code, state and iss.
func TestAuthorizeRefusals(t *testing.T) {
	f := newCodeFixture(t)
	repeated := authQuery()
	repeated.Add("scope", "offline_access")
	twoClients := authQuery()
	twoClients.Add("client_id", "pub")
	twoStates := authQuery()
	twoStates.Add("state", "other")
	for _, tc := range []struct {
		name  string
		q     url.Values
		page  bool
		code  string
		state string
	}{
		{"no client_id", authQuery("client_id", ""), true, CodeInvalidRequest, ""},
		{"unknown client", authQuery("client_id", "ghost"), true, CodeInvalidClient, ""},
		{"disabled client", authQuery("client_id", "off"), true, CodeInvalidClient, ""},
		{"a machine client without redirect URIs", authQuery("client_id", "app"), true, CodeUnauthorizedClient, ""},
		{"repeated client_id", twoClients, true, CodeInvalidRequest, ""},
		{"unregistered redirect", authQuery("redirect_uri", "https://evil.example/cb"), true, CodeInvalidRequest, ""},
		{"redirect with a fragment", authQuery("redirect_uri", "http://127.0.0.1/cb#x"), true, CodeInvalidRequest, ""},
		{"redirect on another path", authQuery("redirect_uri", "http://127.0.0.1:4000/other"), true, CodeInvalidRequest, ""},
		{"http redirect that is not loopback", authQuery("redirect_uri", "http://host.example/cb?x=1"), true, CodeInvalidRequest, ""},
		{"redirect with an extra query", authQuery("redirect_uri", "https://host.example/cb?x=1&y=2"), true, CodeInvalidRequest, ""},
		{"no redirect_uri with several registered", authQuery("redirect_uri", ""), true, CodeInvalidRequest, ""},
		{"implicit grant", authQuery("response_type", "token"), false, CodeUnsupportedResponseType, "st-1"},
		{"no response_type", authQuery("response_type", ""), false, CodeInvalidRequest, "st-1"},
		{"no PKCE", authQuery("code_challenge", "", "code_challenge_method", ""), false, CodeInvalidRequest, "st-1"},
		{"PKCE plain", authQuery("code_challenge_method", "plain"), false, CodeInvalidRequest, "st-1"},
		{"PKCE without a method", authQuery("code_challenge_method", ""), false, CodeInvalidRequest, "st-1"},
		{"a challenge that is no S256 digest", authQuery("code_challenge", "short"), false, CodeInvalidRequest, "st-1"},
		{"repeated scope", repeated, false, CodeInvalidRequest, "st-1"},
		{"repeated state", twoStates, false, CodeInvalidRequest, ""},
		{"resource not the client's", authQuery("resource", "https://evil.example/mcp"), false, CodeInvalidTarget, "st-1"},
		{"the issuer as resource", authQuery("resource", issuer), false, CodeInvalidTarget, "st-1"},
		{"a scope the client may not have", authQuery("scope", "typeward:admin"), false, CodeInvalidScope, "st-1"},
		{"an unknown stored composition", authQuery("scope", "mcp:composition:nope"), false, CodeInvalidScope, "st-1"},
		{"details and a composition scope", authQuery("authorization_details", `[{"type":"mcp_composition","composition_id":"stored"}]`),
			false, CodeInvalidRequest, "st-1"},
		{"malformed details", authQuery("scope", "", "authorization_details", `{"type":1}`), false, CodeInvalidAuthorizationDetails, "st-1"},
		{"oversized state", authQuery("state", strings.Repeat("s", 2000)), false, CodeInvalidRequest, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a, err := f.svc.Authorize(context.Background(), tc.q)
			var ae *grant.RequestError
			if !errors.As(err, &ae) {
				t.Fatalf("Authorize = %+v, %v; want a *grant.RequestError", a, err)
			}
			if ae.Code != tc.code {
				t.Errorf("code %q (%s), want %q", ae.Code, ae.Description, tc.code)
			}
			to := ae.Redirect
			if tc.page {
				if to != "" {
					t.Errorf("a bad client or redirect URI redirects to %s", to)
				}
				return
			}
			u, err := url.Parse(to)
			if err != nil || !strings.HasPrefix(to, pubRedirect+"?") {
				t.Fatalf("redirect %q", to)
			}
			got := u.Query()
			if got.Get("error") != tc.code || got.Get("iss") != issuer || got.Get("state") != tc.state || got.Has("code") {
				t.Errorf("redirect query %v", got)
			}
		})
	}
	// Nothing was stored: no code exists for any of them.
	if n, _ := f.svc.Grants.Store.Purge(context.Background(), testNow.Add(time.Hour)); n != 0 {
		t.Errorf("refused requests stored %d codes", n)
	}
}

// What a host may ask for, and what the page learns of it.
func TestAuthorizeWhatAHostAsksFor(t *testing.T) {
	f := newCodeFixture(t)
	ctx := context.Background()
	a, err := f.svc.Authorize(ctx, authQuery("redirect_uri", "http://127.0.0.1:53124/cb"))
	if err != nil {
		t.Fatal(err)
	}
	if a.Audience != routerAud || a.Digest == "" || len(a.Tools) != 3 || !a.Refresh || a.Refusal != nil || a.Request().RedirectURI != "http://127.0.0.1:53124/cb" {
		t.Errorf("stored composition by scope: %+v", a)
	}
	// mcp:tool scopes: those tools, without edges.
	a, err = f.svc.Authorize(ctx, authQuery("scope", "mcp:tool:db_query mcp:tool:aggregate_stats"))
	if err != nil || len(a.Tools) != 2 || a.Refresh != true || a.Refusal != nil {
		t.Fatalf("tool scopes: %+v, %v", a, err)
	}
	// A router's whole scopes_supported: the stored composition and a
	// tool beside it.
	a, err = f.svc.Authorize(ctx, authQuery("scope", "mcp:composition:stored mcp:tool:transform_csv mcp:tool:db_query"))
	if err != nil || len(a.Tools) != 4 || a.Refusal != nil {
		t.Fatalf("a composition and tools by scope: %+v, %v", a, err)
	}
	// A composition among several that does not exist: the page says so.
	a, err = f.svc.Authorize(ctx, authQuery("scope", "mcp:composition:stored mcp:composition:other"))
	if err != nil || a.Refusal == nil {
		t.Fatalf("an unknown composition beside another: %+v, %v", a, err)
	}
	// Nothing asked: a token naming no tool, for the client's one audience.
	a, err = f.svc.Authorize(ctx, authQuery("scope", ""))
	if err != nil || a.Details != "" || len(a.Tools) != 0 || a.Audience != routerAud {
		t.Fatalf("nothing asked: %+v, %v", a, err)
	}
	// A composition that does not validate is never offered: the refusal
	// with its issues is what the page shows.
	a, err = f.svc.Authorize(ctx, authQuery("scope", "", "authorization_details", details(exampleDoc(t, "pipeline-invalid.json"))))
	if err != nil || a.Refusal == nil || len(a.Refusal.Issues) == 0 {
		t.Fatalf("invalid composition: %+v, %v", a, err)
	}
	if _, err := f.svc.Consent(ctx, a, "alice", true, a.Digest); !errors.Is(err, grant.ErrNotConsentable) {
		t.Errorf("consent to an invalid composition: %v", err)
	}
}

// A request naming neither scope nor authorization_details asks for the
// client's registered scope: the consent is for its composition and the
// token names its tools. A request that names something asks for that.
func TestAuthorizeUsesTheRegisteredScope(t *testing.T) {
	f := newCodeFixture(t)
	ctx := context.Background()
	q := authQuery("client_id", "scoped-pub", "scope", "")
	a, err := f.svc.Authorize(ctx, q)
	if err != nil || a.Details != compositionIDDetails("stored") || len(a.Tools) != 3 || !a.Refresh || a.Refusal != nil {
		t.Fatalf("nothing asked of a client with a registered scope: %+v, %v", a, err)
	}
	if r := a.Request(); r.Consent.Digest == "" || len(r.Consent.Tools) != 3 {
		t.Errorf("the consent page's request: %+v", r)
	}
	back := f.consent(t, q)
	resp, err := f.redeem("client_id", "scoped-pub", "code", back.Get("code"), "code_verifier", testVerifier, "redirect_uri", pubRedirect)
	if err != nil {
		t.Fatalf("redeem: %v", err)
	}
	claims, err := f.verifier.Verify(ctx, resp.AccessToken)
	if err != nil || len(claims.Tools) != 3 || resp.RefreshToken == "" || len(resp.AuthorizationDetails) != 1 {
		t.Errorf("token: %+v, claims %+v, %v", resp, claims, err)
	}
	a, err = f.svc.Authorize(ctx, authQuery("client_id", "scoped-pub", "scope", "mcp:tool:db_query"))
	if err != nil || len(a.Tools) != 1 || a.Refresh {
		t.Errorf("a scope asked replaces the registered one: %+v, %v", a, err)
	}
	a, err = f.svc.Authorize(ctx, authQuery("client_id", "scoped-pub", "scope", "", "authorization_details", details(exampleDoc(t, "pipeline-valid.json"))))
	if err != nil || a.Refresh || a.Details == compositionIDDetails("stored") {
		t.Errorf("authorization_details asked replaces the registered scope: %+v, %v", a, err)
	}
	// An allowed mcp:resources admits its narrowings here as at the token endpoint.
	a, err = f.svc.Authorize(ctx, authQuery("client_id", "scoped-pub", "scope", "mcp:resources:docs:// mcp:tool:db_query"))
	if err != nil || !slices.Equal(a.Scopes, []string{"mcp:resources:docs://"}) || len(a.Tools) != 1 {
		t.Errorf("a narrowing of an allowed mcp:resources: %+v, %v", a, err)
	}
	// Without a registered scope, nothing asked is still a token naming no tool.
	if a, err := f.svc.Authorize(ctx, authQuery("scope", "")); err != nil || a.Details != "" || len(a.Tools) != 0 {
		t.Errorf("no registered scope: %+v, %v", a, err)
	}
}

// The authorization requests of one client are limited (the composition
// each may validate costs the server, and anyone may send them), in a
// bucket of their own: past it they go back as temporarily_unavailable,
// and the client's token requests are untouched.
func TestAuthorizeRateLimited(t *testing.T) {
	f := newCodeFixture(t)
	ctx := context.Background()
	code := f.consent(t, authQuery()).Get("code") // the burst's first request
	for i := 1; i < testBurst; i++ {
		if _, err := f.svc.Authorize(ctx, authQuery()); err != nil {
			t.Fatalf("request %d within the burst: %v", i, err)
		}
	}
	_, err := f.svc.Authorize(ctx, authQuery())
	var re *grant.RequestError
	if !errors.As(err, &re) || re.Code != CodeTemporarilyUnavailable || !strings.Contains(re.Redirect, "error=temporarily_unavailable") {
		t.Fatalf("past the burst: %v", err)
	}
	if _, err := f.redeem("client_id", "pub", "code", code, "code_verifier", testVerifier, "redirect_uri", pubRedirect); err != nil {
		t.Errorf("the spent authorization bucket refused the client's token request: %v", err)
	}
}

func TestConsentRefusals(t *testing.T) {
	f := newCodeFixture(t)
	ctx := context.Background()
	a, err := f.svc.Authorize(ctx, authQuery())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.svc.Consent(ctx, a, "alice", true, "sha256:what-the-page-showed-before"); !errors.Is(err, grant.ErrConsentStale) {
		t.Errorf("consent to a composition that changed meanwhile: %v", err)
	}
	// careful-pub's policy sends the mutating pipeline to an approver.
	a, err = f.svc.Authorize(ctx, authQuery("client_id", "careful-pub"))
	if err != nil || !a.NeedsApprover {
		t.Fatalf("careful-pub: %+v, %v", a, err)
	}
	if _, err := f.svc.Consent(ctx, a, "olga", false, a.Digest); !errors.Is(err, grant.ErrNeedsApprover) {
		t.Errorf("an operator's consent to what needs an approver: %v", err)
	}
	if _, err := f.svc.Consent(ctx, a, "alice", true, a.Digest); err != nil {
		t.Errorf("an approver's consent: %v", err)
	}
}

// The whole flow: consent, redirect with code, state and iss, a
// redemption with PKCE whose token names the person, a refresh, and the
// audit record naming the person and the code.
func TestAuthorizationCodeFlow(t *testing.T) {
	f := newCodeFixture(t)
	back := f.consent(t, authQuery())
	if back.Get("state") != "st-1" || back.Get("iss") != issuer || back.Get("code") == "" {
		t.Fatalf("redirect query %v", back)
	}
	resp, err := f.redeem("client_id", "pub", "code", back.Get("code"), "code_verifier", testVerifier, "redirect_uri", pubRedirect)
	if err != nil {
		t.Fatalf("redeem: %v", err)
	}
	claims, err := f.verifier.Verify(context.Background(), resp.AccessToken)
	if err != nil {
		t.Fatal(err)
	}
	if claims.Subject != "alice" || claims.ClientID != "pub" || len(claims.Tools) != 3 || resp.RefreshToken == "" ||
		len(resp.AuthorizationDetails) != 1 || resp.AuthorizationDetails[0].Approval == nil || resp.AuthorizationDetails[0].Approval.ApprovedBy != "alice" {
		t.Errorf("token: %+v, claims %+v", resp, claims)
	}
	recs := f.decisions(t)
	last := recs[len(recs)-1]
	if last.Outcome != "issued" || last.ApprovedBy != "alice" || !strings.HasPrefix(last.AuthReqID, "code:") || last.JTI != claims.ID || last.CompositionDigest == "" {
		t.Errorf("audit record %+v", last)
	}

	again, err := f.refresh(resp.RefreshToken)
	if err != nil {
		t.Fatalf("refresh: %v", err)
	}
	if again.RefreshToken == "" || again.RefreshToken == resp.RefreshToken || again.AccessToken == resp.AccessToken {
		t.Errorf("refresh did not rotate: %+v", again)
	}
	recs = f.decisions(t)
	if last := recs[len(recs)-1]; last.Outcome != "issued" || last.ApprovedBy != "alice" || !strings.HasPrefix(last.AuthReqID, "refresh:") {
		t.Errorf("refresh audit record %+v", last)
	}
}

func wantGrantError(t *testing.T, what string, err error, code string) {
	t.Helper()
	if e := AsError(err); err == nil || e.Code != code {
		t.Errorf("%s: %v, want %s", what, err, code)
	}
}

// A code is bound to its client, redirect URI and verifier, lives 60 s,
// and a replay revokes what it issued.
func TestCodeRedemptionRefusals(t *testing.T) {
	f := newCodeFixture(t)
	code := f.consent(t, authQuery()).Get("code")
	good := []string{"client_id", "pub", "code", code, "code_verifier", testVerifier, "redirect_uri", pubRedirect}
	with := func(kv ...string) []string {
		out := append([]string(nil), good...)
		for i := 0; i < len(kv); i += 2 {
			for j := 0; j < len(out); j += 2 {
				if out[j] == kv[i] {
					out[j+1] = kv[i+1]
				}
			}
		}
		return out
	}
	for _, tc := range []struct {
		name string
		form []string
		code string
	}{
		{"wrong verifier", with("code_verifier", strings.Repeat("a", 43)), CodeInvalidGrant},
		{"malformed verifier", with("code_verifier", "short"), CodeInvalidRequest},
		{"no verifier", with("code_verifier", ""), CodeInvalidRequest},
		{"another redirect", with("redirect_uri", "http://127.0.0.1:9/cb"), CodeInvalidGrant},
		{"another client", with("client_id", "careful-pub"), CodeInvalidGrant},
		{"another resource", append(append([]string(nil), good...), "resource", "https://other.example.com"), CodeInvalidTarget},
		{"unknown code", with("code", "nope"), CodeInvalidGrant},
	} {
		_, err := f.redeem(tc.form...)
		wantGrantError(t, tc.name, err, tc.code)
	}
	// A confidential client's id alone authenticates nothing.
	_, err := f.redeem(with("client_id", "host")...)
	wantGrantError(t, "a confidential client without its secret", err, CodeInvalidClient)

	// None of those spent the code.
	resp, err := f.redeem(good...)
	if err != nil {
		t.Fatalf("redeem after the refusals: %v", err)
	}
	claims, _ := f.verifier.Verify(context.Background(), resp.AccessToken)
	_, err = f.redeem(good...)
	wantGrantError(t, "replay", err, CodeInvalidGrant)
	if !f.isRevoked(t, claims.ID) {
		t.Error("a replayed code left its access token unrevoked")
	}
	_, err = f.refresh(resp.RefreshToken)
	wantGrantError(t, "refresh after a code replay", err, CodeInvalidGrant)

	// Expired after 60 s.
	late := f.consent(t, authQuery()).Get("code")
	f.advance(61 * time.Second)
	_, err = f.redeem(with("code", late)...)
	wantGrantError(t, "expired code", err, CodeInvalidGrant)
}

func TestRefreshReuseRevokesTheFamily(t *testing.T) {
	f := newCodeFixture(t)
	code := f.consent(t, authQuery()).Get("code")
	first, err := f.redeem("client_id", "pub", "code", code, "code_verifier", testVerifier, "redirect_uri", pubRedirect)
	if err != nil {
		t.Fatal(err)
	}
	second, err := f.refresh(first.RefreshToken)
	if err != nil {
		t.Fatal(err)
	}
	claims, _ := f.verifier.Verify(context.Background(), second.AccessToken)
	_, err = f.refresh(first.RefreshToken) // the used one, again
	wantGrantError(t, "reuse", err, CodeInvalidGrant)
	_, err = f.refresh(second.RefreshToken) // the family is gone
	wantGrantError(t, "the newest token of a revoked family", err, CodeInvalidGrant)
	if !f.isRevoked(t, claims.ID) {
		t.Error("reuse left the family's latest access token unrevoked")
	}
	_, err = f.svc.Token(context.Background(), form("grant_type", "refresh_token", "client_id", "careful-pub", "refresh_token", second.RefreshToken), "")
	wantGrantError(t, "another client's refresh token", err, CodeInvalidGrant)
}

// Each refresh proves the composition again: a tool whose schema changed
// ends the grant.
func TestRefreshReprovesTheComposition(t *testing.T) {
	f := newCodeFixture(t)
	ctx := context.Background()
	code := f.consent(t, authQuery()).Get("code")
	first, err := f.redeem("client_id", "pub", "code", code, "code_verifier", testVerifier, "redirect_uri", pubRedirect)
	if err != nil {
		t.Fatal(err)
	}
	tool, err := f.registry.Tool(ctx, "aggregate_stats")
	if err != nil {
		t.Fatal(err)
	}
	changed := tool.Declaration
	changed.InputSchema = []byte(`{"type":"object","properties":{"records":{"type":"array","items":{"type":"object"}},"top":{"type":"integer"}},"required":["records"]}`)
	if _, err := f.registry.DeclareTool(ctx, tool.Server, changed); err != nil {
		t.Fatal(err)
	}
	f.svc.RegistryChanged() // as the server's change fan-out does
	_, err = f.refresh(first.RefreshToken)
	wantGrantError(t, "refresh after a tool changed", err, CodeInvalidGrant)
	if err != nil && !strings.Contains(AsError(err).Description, "changed since the person consented") {
		t.Errorf("description %q does not say why", AsError(err).Description)
	}
}

func TestRefreshLifetimes(t *testing.T) {
	f := newCodeFixture(t)
	f.svc.Grants.IdleLifetime, f.svc.Grants.AbsoluteLifetime = time.Hour, 90*time.Minute
	code := f.consent(t, authQuery()).Get("code")
	resp, err := f.redeem("client_id", "pub", "code", code, "code_verifier", testVerifier, "redirect_uri", pubRedirect)
	if err != nil {
		t.Fatal(err)
	}
	f.advance(50 * time.Minute)
	if resp, err = f.refresh(resp.RefreshToken); err != nil {
		t.Fatalf("refresh within the idle lifetime: %v", err)
	}
	f.advance(61 * time.Minute) // 111 min: past both
	_, err = f.refresh(resp.RefreshToken)
	wantGrantError(t, "refresh past the absolute lifetime", err, CodeInvalidGrant)

	code = f.consent(t, authQuery()).Get("code")
	resp, err = f.redeem("client_id", "pub", "code", code, "code_verifier", testVerifier, "redirect_uri", pubRedirect)
	if err != nil {
		t.Fatal(err)
	}
	f.advance(61 * time.Minute)
	_, err = f.refresh(resp.RefreshToken)
	wantGrantError(t, "refresh past the idle lifetime", err, CodeInvalidGrant)
}

// RFC 7009 with a refresh token: the public client revokes its family.
func TestRevokeARefreshToken(t *testing.T) {
	f := newCodeFixture(t)
	code := f.consent(t, authQuery()).Get("code")
	resp, err := f.redeem("client_id", "pub", "code", code, "code_verifier", testVerifier, "redirect_uri", pubRedirect)
	if err != nil {
		t.Fatal(err)
	}
	// Another client's revocation changes nothing.
	if err := f.svc.Revoke(context.Background(), form("client_id", "careful-pub", "token", resp.RefreshToken), ""); err != nil {
		t.Fatal(err)
	}
	if err := f.svc.Revoke(context.Background(), form("client_id", "pub", "token", resp.RefreshToken, "token_type_hint", "refresh_token"), ""); err != nil {
		t.Fatalf("revoke: %v", err)
	}
	_, err = f.refresh(resp.RefreshToken)
	wantGrantError(t, "refresh after revocation", err, CodeInvalidGrant)
	claims, _ := f.verifier.Verify(context.Background(), resp.AccessToken)
	if !f.isRevoked(t, claims.ID) {
		t.Error("revoking the refresh token left its access token")
	}
}

// Without offline_access nor refresh_token among the grant types, no
// refresh token.
func TestNoRefreshUnlessAsked(t *testing.T) {
	f := newCodeFixture(t)
	code := f.consent(t, authQuery("client_id", "careful-pub", "scope", "mcp:tool:db_query")).Get("code")
	resp, err := f.redeem("client_id", "careful-pub", "code", code, "code_verifier", testVerifier, "redirect_uri", pubRedirect)
	if err != nil || resp.RefreshToken != "" {
		t.Fatalf("redeem: %+v, %v", resp, err)
	}
}

// FuzzAuthorize feeds the authorization endpoint arbitrary queries: no
// panic; a refusal is a *grant.RequestError whose redirect, when it has
// one, is the client's registered redirect URI (plus a port, for
// loopback) with the error and iss; an accepted request names one too.
func FuzzAuthorize(f *testing.F) {
	for _, q := range []url.Values{authQuery(), authQuery("response_type", "token"), authQuery("redirect_uri", "http://127.0.0.1:1/cb#x"),
		authQuery("scope", "mcp:tool:db_query mcp:composition:stored offline_access"), authQuery("authorization_details", `[{"type":"mcp_composition","composition":{"nodes":[]}}]`, "scope", "")} {
		f.Add(q.Encode())
	}
	fx := newCodeFixture(f)
	fx.svc.Limiter = nil
	f.Fuzz(func(t *testing.T, raw string) {
		q, err := url.ParseQuery(raw)
		if err != nil {
			return
		}
		a, err := fx.svc.Authorize(context.Background(), q)
		var re *grant.RequestError
		switch {
		case err == nil:
			if to := a.Request().RedirectURI; !strings.HasPrefix(to, "http://127.0.0.1") && to != "https://host.example/cb?x=1" {
				t.Fatalf("accepted with redirect %q", to)
			}
		case errors.As(err, &re):
			if re.Redirect != "" && !strings.HasPrefix(re.Redirect, "http://127.0.0.1") && !strings.HasPrefix(re.Redirect, "https://host.example/cb?x=1&") {
				t.Fatalf("an error redirected to %q", re.Redirect)
			}
			if re.Redirect != "" && !strings.Contains(re.Redirect, "iss=") {
				t.Fatalf("an error redirect without iss: %q", re.Redirect)
			}
		}
	})
}
