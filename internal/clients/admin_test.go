package clients_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/typeward/typeward/internal/clients"
	"github.com/typeward/typeward/internal/store/memory"
)

func TestEnsureAdmin(t *testing.T) {
	ctx := context.Background()
	h := testHasher(t)
	now := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	store := memory.NewClients()
	secret := strings.Repeat("s", 32)

	steps := []struct {
		name    string
		before  func()
		secret  string
		want    clients.EnsureOutcome
		wantErr string
	}{
		{"first start creates", nil, secret, clients.AdminCreated, ""},
		{"restart changes nothing", nil, secret, clients.AdminUnchanged, ""},
		{"a new secret replaces the hash", nil, secret + "2", clients.AdminUpdated, ""},
		{"a lost admin scope comes back", func() {
			c, _ := store.Get(ctx, "admin")
			c.AllowedScopes = []string{"other"}
			_ = store.Update(ctx, c)
		}, secret + "2", clients.AdminUpdated, ""},
		{"a disabled admin stays disabled", func() { _ = store.Disable(ctx, "admin") }, secret + "2", clients.AdminDisabled, ""},
		{"short secret is refused", nil, "short", "", "TYPEWARD_ADMIN_CLIENT_SECRET has 5 characters, need at least 32 from a random generator (e.g. openssl rand -base64 32)"},
	}
	for _, s := range steps {
		if s.before != nil {
			s.before()
		}
		got, err := clients.EnsureAdmin(ctx, store, h, "admin", s.secret, now)
		msg := ""
		if err != nil {
			msg = err.Error()
		}
		if got != s.want || msg != s.wantErr {
			t.Fatalf("%s: EnsureAdmin = %q, %q; want %q, %q", s.name, got, msg, s.want, s.wantErr)
		}
	}
	c, err := store.Get(ctx, "admin")
	if err != nil {
		t.Fatal(err)
	}
	if !h.Verify("admin", secret+"2", c.SecretHash) || h.Verify("admin", secret, c.SecretHash) {
		t.Error("stored hash is not the latest secret's")
	}
	if !slices.Equal(c.AllowedScopes, []string{"other", clients.AdminScope}) || c.TokenEndpointAuthMethod != clients.SecretBasic ||
		c.Name != clients.AdminName || !c.CreatedAt.Equal(now) || !c.Disabled {
		t.Errorf("admin client = %+v", c)
	}
}

func TestEnsureAdminConcurrentReplicas(t *testing.T) {
	ctx := context.Background()
	store := memory.NewClients()
	h := testHasher(t)
	outcomes := make([]clients.EnsureOutcome, 6)
	var wg sync.WaitGroup
	for i := range outcomes {
		wg.Go(func() {
			var err error
			outcomes[i], err = clients.EnsureAdmin(ctx, store, h, "admin", strings.Repeat("x", 40), time.Now())
			if err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	slices.Sort(outcomes)
	want := []clients.EnsureOutcome{clients.AdminCreated, clients.AdminUnchanged, clients.AdminUnchanged, clients.AdminUnchanged, clients.AdminUnchanged, clients.AdminUnchanged}
	if !slices.Equal(outcomes, want) {
		t.Errorf("outcomes = %v, want one created and the rest unchanged", outcomes)
	}
}

func TestValidateAdminCredentials(t *testing.T) {
	for _, tc := range []struct {
		id, secret string
		want       string
	}{
		{"admin", strings.Repeat("x", 32), ""},
		{"", "", "TYPEWARD_ADMIN_CLIENT_ID is empty\nTYPEWARD_ADMIN_CLIENT_SECRET has 0 characters, need at least 32 from a random generator (e.g. openssl rand -base64 32)"},
		{"has space", strings.Repeat("x", 32), "TYPEWARD_ADMIN_CLIENT_ID must be visible ASCII"},
		{strings.Repeat("a", 257), strings.Repeat("x", 32), "TYPEWARD_ADMIN_CLIENT_ID is longer than 256 characters"},
	} {
		got := errors.Join(clients.ValidateAdminCredentials(tc.id, tc.secret)...)
		msg := ""
		if got != nil {
			msg = got.Error()
		}
		if msg != tc.want {
			t.Errorf("ValidateAdminCredentials(%.10q, %.10q) = %q, want %q", tc.id, tc.secret, msg, tc.want)
		}
	}
}
