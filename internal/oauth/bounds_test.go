package oauth

import (
	"context"
	"fmt"
	"net/url"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/typeward/typeward/internal/clients"
)

// TestEveryParameterIsBounded: each known parameter one byte over its
// bound is refused by every endpoint, naming it, before the client is
// authenticated; at its bound it passes the check.
func TestEveryParameterIsBounded(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	for name, limit := range paramBounds {
		over := form(name, strings.Repeat("a", limit+1))
		want := fmt.Sprintf("%s is %d bytes, at most %d", name, limit+1, limit)
		calls := map[string]func() error{
			"token":       func() error { _, err := f.svc.Token(ctx, over, ""); return err },
			"backchannel": func() error { _, err := f.svc.BackchannelAuthorize(ctx, over, ""); return err },
			"introspect":  func() error { _, err := f.svc.Introspect(ctx, over, ""); return err },
			"revoke":      func() error { return f.svc.Revoke(ctx, over, "") },
		}
		for endpoint, call := range calls {
			e := AsError(call())
			if e.Kind != KindBadRequest || e.Description != want {
				t.Errorf("%s with %s over its bound: %v, want 400 %q", endpoint, name, e, want)
			}
		}
		if err := checkForm(form(name, strings.Repeat("a", limit))); err != nil {
			t.Errorf("%s at its bound: %v", name, err)
		}
	}
	// A redirect URI as long as a client may register passes the check
	// (the authorization and token endpoints read it): before, one over
	// 1 KiB was registered and then refused at every use.
	if err := checkForm(form("redirect_uri", strings.Repeat("a", clients.MaxRedirectURILen))); err != nil {
		t.Errorf("a redirect URI of the length a client may register: %v", err)
	}
	if err := checkForm(form("x-extension", strings.Repeat("a", maxOtherParamSize+1))); err == nil {
		t.Error("an unknown parameter over its bound passed")
	}
	many := form()
	for i := range maxFormParams + 1 {
		many.Set(fmt.Sprint("p", i), "v")
	}
	if err := checkForm(many); err == nil {
		t.Error("a form of too many parameters passed")
	}
}

// TestAuditedRefusalsAreBounded: the token and backchannel endpoints
// audit a refusal the same way: an oversized parameter under its reason
// with the claimed client, and a claimed client id longer than any client's
// clipped, so that no record carries a megabyte id.
func TestAuditedRefusalsAreBounded(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	long := strings.Repeat("x", 100_000)
	calls := map[string]func(form url.Values, authorization string) error{
		"token":       func(v url.Values, a string) error { _, err := f.svc.Token(ctx, v, a); return err },
		"backchannel": func(v url.Values, a string) error { _, err := f.svc.BackchannelAuthorize(ctx, v, a); return err },
	}
	for endpoint, call := range calls {
		for _, tc := range []struct {
			name       string
			form       url.Values
			wantClient string
			wantReason string
		}{
			{"oversized parameter", form("client_id", "app", "scope", strings.Repeat("s", paramBounds["scope"]+1)), "app", ReasonOversizedParameter},
			{"long client id", form("client_id", long, "client_secret", "x"), Clip(long, auditedValueBytes), ""},
		} {
			if err := call(tc.form, ""); err == nil {
				t.Fatalf("%s, %s: no error", endpoint, tc.name)
			}
			recs := f.decisions(t)
			rec := recs[len(recs)-1]
			if rec.ClientID != tc.wantClient || (tc.wantReason != "" && rec.Reason != tc.wantReason) {
				t.Errorf("%s, %s: audited client %.80q reason %q; want %.80q %q", endpoint, tc.name, rec.ClientID, rec.Reason, tc.wantClient, tc.wantReason)
			}
		}
	}
}

func TestClip(t *testing.T) {
	if got := Clip("short", 64); got != "short" {
		t.Errorf("Clip kept %q", got)
	}
	got := Clip(strings.Repeat("é", 100), 5) // two-byte runes: cut on a boundary
	if got != "éé...[truncated, 200 bytes]" || !utf8.ValidString(got) {
		t.Errorf("Clip = %q", got)
	}
}

// TestIssuerIsNeverAnAudience: even a client whose record lists the issuer
// gets no token for it.
func TestIssuerIsNeverAnAudience(t *testing.T) {
	f := newFixture(t)
	for _, res := range []string{issuer, issuer + "/"} {
		_, err := f.svc.Token(context.Background(), form("grant_type", "client_credentials", "resource", res,
			"authorization_details", details(exampleDoc(t, "pipeline-valid.json"))), creds("legacy"))
		if e := AsError(err); e.Code != CodeInvalidTarget {
			t.Errorf("resource %s: %v, want invalid_target", res, err)
		}
	}
}
