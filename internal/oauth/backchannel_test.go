package oauth

import (
	"context"
	"encoding/json"
	"errors"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/typeward/typeward/internal/approval"
	"github.com/typeward/typeward/internal/audit"
	"github.com/typeward/typeward/internal/registry"
	"github.com/typeward/typeward/internal/store/memory"
)

// cibaFixture is the fixture with a backchannel store and a clock the
// test moves.
type cibaFixture struct {
	*fixture
	store *memory.Approvals
	now   atomic.Int64 // microseconds after testNow
}

func newCIBAFixture(t *testing.T) *cibaFixture {
	f := &cibaFixture{fixture: newFixture(t), store: memory.NewApprovals()}
	f.svc.Now = func() time.Time { return testNow.Add(time.Duration(f.now.Add(1)) * time.Microsecond) }
	f.svc.Backchannel = Backchannel{Store: f.store, Interval: 2 * time.Second}
	return f
}

func (f *cibaFixture) advance(d time.Duration) { f.now.Add(d.Microseconds()) }
func (f *cibaFixture) at() time.Time {
	return testNow.Add(time.Duration(f.now.Load()) * time.Microsecond)
}

func (f *cibaFixture) request(t *testing.T, client string, kv ...string) *BackchannelResponse {
	t.Helper()
	resp, err := f.svc.BackchannelAuthorize(context.Background(),
		form(append([]string{"authorization_details", details(exampleDoc(t, "pipeline-valid.json"))}, kv...)...), creds(client))
	if err != nil {
		t.Fatalf("bc-authorize: %v", err)
	}
	return resp
}

func (f *cibaFixture) poll(id, client string) (*TokenResponse, error) {
	return f.svc.Token(context.Background(), form("grant_type", GrantTypeCIBA, "auth_req_id", id), creds(client))
}

func code(err error) string {
	if err == nil {
		return ""
	}
	return AsError(err).Code
}

func TestBackchannelFlow(t *testing.T) {
	f := newCIBAFixture(t)
	ctx := context.Background()
	bc := f.request(t, "careful", "binding_message", "nightly report 42", "requested_expiry", "120")
	if len(bc.AuthReqID) < 40 || bc.ExpiresIn != 120 || bc.Interval != 2 {
		t.Fatalf("answer %+v", bc)
	}
	stored, err := f.store.Get(ctx, bc.AuthReqID)
	if err != nil || stored.BindingMessage != "nightly report 42" || stored.ClientID != "careful" || stored.Audience != routerAud ||
		strings.Join(stored.Tools, " ") != "aggregate_stats db_query email_send" {
		t.Fatalf("stored %+v, %v", stored, err)
	}

	if _, err := f.poll(bc.AuthReqID, "careful"); code(err) != CodeAuthorizationPending {
		t.Fatalf("first poll: %v", err)
	}
	if _, err := f.poll(bc.AuthReqID, "careful"); code(err) != CodeSlowDown {
		t.Fatalf("immediate second poll: %v, want slow_down", err)
	}
	f.advance(2 * time.Second)
	if _, err := f.poll(bc.AuthReqID, "careful"); code(err) != CodeAuthorizationPending {
		t.Fatalf("poll after the interval: %v", err)
	}
	if _, err := f.poll(bc.AuthReqID, "app"); code(err) != CodeInvalidGrant {
		t.Fatalf("another client's poll: %v, want invalid_grant", err)
	}
	if err := approval.Decide(ctx, f.store, f.svc, bc.AuthReqID, approval.Decision{Approve: true, By: "alice", At: f.at()}); err != nil {
		t.Fatal(err)
	}
	approvedAt := f.at()
	f.advance(2 * time.Second)
	resp, err := f.poll(bc.AuthReqID, "careful")
	if err != nil {
		t.Fatalf("poll after approval: %v", err)
	}
	claims, err := f.verifier.Verify(ctx, resp.AccessToken)
	if err != nil {
		t.Fatal(err)
	}
	a := claims.AuthorizationDetails[0].Approval
	if a == nil || a.ApprovedBy != "alice" || a.ApprovedAt != approvedAt.Unix() || claims.Subject != "careful" ||
		strings.Join(claims.Tools, " ") != "aggregate_stats db_query email_send" {
		t.Errorf("token claims %+v approval %+v", claims, a)
	}
	f.advance(2 * time.Second)
	if _, err := f.poll(bc.AuthReqID, "careful"); code(err) != CodeInvalidGrant {
		t.Errorf("second redemption: %v, want invalid_grant", err)
	}

	// The audit log holds the issuance with its approval, and the refused
	// polls, but no record per pending poll.
	var issued []audit.Issuance
	for _, d := range f.decisions(t) {
		if d.Reason == CodeAuthorizationPending || d.Reason == CodeSlowDown {
			t.Errorf("a poll that decided nothing was audited: %+v", d)
		}
		if d.Outcome == audit.Issued {
			issued = append(issued, d)
		}
	}
	if len(issued) != 1 || issued[0].AuthReqID != bc.AuthReqID || issued[0].ApprovedBy != "alice" ||
		!issued[0].ApprovedAt.Equal(approvedAt.Truncate(time.Microsecond)) || issued[0].JTI != claims.ID {
		t.Errorf("audit issuances %+v", issued)
	}
}

func TestBackchannelDenyAndExpiry(t *testing.T) {
	f := newCIBAFixture(t)
	ctx := context.Background()
	denied := f.request(t, "careful")
	if err := approval.Decide(ctx, f.store, f.svc, denied.AuthReqID, approval.Decision{By: "bob", At: f.at(), Reason: "not on a Friday"}); err != nil {
		t.Fatal(err)
	}
	_, err := f.poll(denied.AuthReqID, "careful")
	if code(err) != CodeAccessDenied || !strings.Contains(AsError(err).Description, "not on a Friday") {
		t.Errorf("denied: %v", err)
	}
	expiring := f.request(t, "careful", "requested_expiry", "30")
	f.advance(31 * time.Second)
	if _, err := f.poll(expiring.AuthReqID, "careful"); code(err) != CodeExpiredToken {
		t.Errorf("after expiry: %v, want expired_token", err)
	}
	if err := approval.Decide(ctx, f.store, f.svc, expiring.AuthReqID, approval.Decision{Approve: true, By: "alice", At: f.at()}); !errors.Is(err, approval.ErrNotPending) {
		t.Errorf("approving an expired request: %v", err)
	}
}

// TestBackchannelRevalidation: a tool changed between the request and its
// redemption invalidates the approval.
func TestBackchannelRevalidation(t *testing.T) {
	f := newCIBAFixture(t)
	ctx := context.Background()
	f.registry.Watch(func(registry.Change) { f.svc.RegistryChanged() })
	bc := f.request(t, "careful")
	if err := approval.Decide(ctx, f.store, f.svc, bc.AuthReqID, approval.Decision{Approve: true, By: "alice", At: f.at()}); err != nil {
		t.Fatal(err)
	}
	f.addEmailInput(t, false)
	_, err := f.poll(bc.AuthReqID, "careful")
	if code(err) != CodeAccessDenied || !strings.Contains(AsError(err).Description, "registry changed") {
		t.Errorf("after a tool changed: %v, want access_denied naming the change", err)
	}
	if r, _ := f.store.Get(ctx, bc.AuthReqID); r.Status != approval.Approved || r.JTI != "" {
		t.Errorf("the request was redeemed: %+v", r)
	}
}

// addEmailInput declares a new email_send version: with one more optional
// input, cc (the composition still validates, with another digest), or
// with a body that must be an integer (the summary string fed to it
// breaks it: the composition no longer validates).
func (f *cibaFixture) addEmailInput(t *testing.T, breaking bool) {
	t.Helper()
	ctx := context.Background()
	rec, err := f.registry.Tool(ctx, "email_send")
	if err != nil {
		t.Fatal(err)
	}
	tool := rec.Declaration
	var in map[string]any
	_ = json.Unmarshal(tool.InputSchema, &in)
	in["properties"].(map[string]any)["cc"] = map[string]any{"type": "string"}
	if breaking {
		in["properties"].(map[string]any)["body"] = map[string]any{"type": "integer"}
	}
	tool.InputSchema, _ = json.Marshal(in)
	if d, err := f.registry.DeclareTool(ctx, "", tool); err != nil || !d.Created {
		t.Fatalf("new email_send version: %+v, %v", d, err)
	}
}

// TestBackchannelApproveRevalidates: clicking Approve validates the
// composition against the registry of that moment, as redemption would;
// a request that can no longer be issued is not approved, and stays
// pending for a person to deny.
func TestBackchannelApproveRevalidates(t *testing.T) {
	for _, tc := range []struct {
		name     string
		breaking bool
		want     string
	}{
		{"digest changed", false, "registry changed"},
		{"no longer valid", true, "summary"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newCIBAFixture(t)
			ctx := context.Background()
			f.registry.Watch(func(registry.Change) { f.svc.RegistryChanged() })
			bc := f.request(t, "careful")
			f.addEmailInput(t, tc.breaking)
			err := approval.Decide(ctx, f.store, f.svc, bc.AuthReqID, approval.Decision{Approve: true, By: "alice", At: f.at()})
			if !errors.Is(err, approval.ErrNoLongerValid) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("approve after the change: %v, want ErrNoLongerValid naming %q", err, tc.want)
			}
			if r, _ := f.store.Get(ctx, bc.AuthReqID); r.Status != approval.Pending {
				t.Errorf("the refused approval changed the request: %+v", r)
			}
			if err := approval.Decide(ctx, f.store, f.svc, bc.AuthReqID, approval.Decision{By: "alice", At: f.at(), Reason: "stale"}); err != nil {
				t.Errorf("deny after a refused approval: %v", err)
			}
		})
	}
	t.Run("valid still approves", func(t *testing.T) {
		f := newCIBAFixture(t)
		bc := f.request(t, "careful")
		if err := approval.Decide(context.Background(), f.store, f.svc, bc.AuthReqID, approval.Decision{Approve: true, By: "alice", At: f.at()}); err != nil {
			t.Fatal(err)
		}
		if _, err := f.poll(bc.AuthReqID, "careful"); err != nil {
			t.Errorf("redeem: %v", err)
		}
	})
}

// TestBackchannelOneToken: concurrent polls of one approved request get
// one token between them.
func TestBackchannelOneToken(t *testing.T) {
	f := newCIBAFixture(t)
	ctx := context.Background()
	bc := f.request(t, "careful")
	if err := approval.Decide(ctx, f.store, f.svc, bc.AuthReqID, approval.Decision{Approve: true, By: "alice", At: f.at()}); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	var tokens, redeemed atomic.Int32
	for range 8 {
		wg.Go(func() {
			_, err := f.poll(bc.AuthReqID, "careful")
			switch code(err) {
			case "":
				tokens.Add(1)
			case CodeInvalidGrant:
				redeemed.Add(1)
			default:
				t.Errorf("poll: %v", err)
			}
		})
	}
	wg.Wait()
	if tokens.Load() != 1 || redeemed.Load() != 7 {
		t.Errorf("%d tokens and %d refusals, want 1 and 7", tokens.Load(), redeemed.Load())
	}
}

func TestBackchannelRefusals(t *testing.T) {
	valid := details(exampleDoc(t, "pipeline-valid.json"))
	long := strings.Repeat("x", approval.MaxBindingMessage+1)
	for _, tc := range []struct {
		name string
		form url.Values
		code string
	}{
		{"no composition", form(), CodeInvalidRequest},
		{"invalid composition", form("authorization_details", details(exampleDoc(t, "pipeline-invalid.json"))), CodeInvalidAuthorizationDetails},
		{"binding message too long", form("authorization_details", valid, "binding_message", long), "invalid_binding_message"},
		{"binding message with a control character", form("authorization_details", valid, "binding_message", "a\u202eb"), "invalid_binding_message"},
		{"expiry too short", form("authorization_details", valid, "requested_expiry", "5"), CodeInvalidRequest},
		{"expiry too long", form("authorization_details", valid, "requested_expiry", "86400"), CodeInvalidRequest},
		{"expiry not a number", form("authorization_details", valid, "requested_expiry", "1e3"), CodeInvalidRequest},
		{"tool scope", form("authorization_details", valid, "scope", "openid mcp:tool:db_query"), CodeInvalidScope},
		{"audience not allowed", form("authorization_details", valid, "resource", "https://evil.example.com"), CodeInvalidTarget},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newCIBAFixture(t)
			resp, err := f.svc.BackchannelAuthorize(context.Background(), tc.form, creds("careful"))
			if code(err) != tc.code || resp != nil {
				t.Fatalf("got %+v, %v; want %s", resp, err, tc.code)
			}
			d := f.decisions(t)
			if len(d) != 1 || d[0].Outcome != audit.Denied {
				t.Fatalf("audit %+v, want one denial", d)
			}
			if tc.code == CodeInvalidAuthorizationDetails && (len(d[0].Issues) == 0 || d[0].Issues[0].Witness == nil) {
				t.Errorf("the refusal's record keeps no witness: %+v", d[0].Issues)
			}
			if list, _ := f.store.Pending(context.Background(), f.at(), 10); len(list) != 0 {
				t.Errorf("a refused request was stored")
			}
		})
	}
	t.Run("pending requests per client are bounded", func(t *testing.T) {
		f := newCIBAFixture(t)
		f.svc.Backchannel.MaxPending = 2
		f.request(t, "careful")
		f.request(t, "careful")
		_, err := f.svc.BackchannelAuthorize(context.Background(), form("authorization_details", valid), creds("careful"))
		if e := AsError(err); e.Code != CodeRateLimited || e.RetryAfter <= 0 {
			t.Errorf("third pending request: %+v", e)
		}
		f.request(t, "app") // another client is not affected
	})
	t.Run("unknown and oversized ids", func(t *testing.T) {
		f := newCIBAFixture(t)
		for _, id := range []string{"nope", strings.Repeat("a", 500)} {
			if _, err := f.poll(id, "careful"); code(err) != CodeInvalidGrant {
				t.Errorf("poll of %.10q: %v", id, err)
			}
		}
		if _, err := f.poll("", "careful"); code(err) != CodeInvalidRequest {
			t.Errorf("poll without id: %v", err)
		}
	})
}
