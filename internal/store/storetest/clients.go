package storetest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/typeward/typeward/internal/clients"
	"github.com/typeward/typeward/internal/grading"
)

// clientsEpoch is the fixtures' clock: microsecond precision, as Postgres.
var clientsEpoch = time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)

func secretClient(id string, at time.Duration) *clients.Client {
	return &clients.Client{
		ID:                      id,
		Name:                    "client " + id,
		TokenEndpointAuthMethod: clients.SecretBasic,
		SecretHash:              bytes.Repeat([]byte{0xab}, 32),
		AllowedTools:            []string{"github/*", "db_query"},
		AllowedAudiences:        []string{"https://router.example.com/mcp"},
		CreatedAt:               clientsEpoch.Add(at),
	}
}

func jwtClient(id string, at time.Duration) *clients.Client {
	return &clients.Client{
		ID:                      id,
		Name:                    "jwt client " + id,
		TokenEndpointAuthMethod: clients.PrivateKeyJWT,
		JWKS:                    json.RawMessage(`{"keys":[{"kty":"OKP","crv":"Ed25519","x":"11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo","kid":"k1"}]}`),
		AllowedTools:            []string{"*"},
		AllowedAudiences:        []string{"https://a.example/mcp", "https://b.example/mcp"},
		AllowedScopes:           []string{clients.AdminScope},
		Approval:                clients.ApprovalDestructive,
		Validation:              grading.Strict,
		CreatedAt:               clientsEpoch.Add(at),
	}
}

// publicClient is an MCP host of the authorization code flow: no secret,
// no keys, its redirect URIs and grant types.
func publicClient(id string, at time.Duration) *clients.Client {
	return &clients.Client{
		ID:                      id,
		Name:                    "host " + id,
		TokenEndpointAuthMethod: clients.None,
		AllowedTools:            []string{"*"},
		AllowedAudiences:        []string{"https://router.example.com/mcp"},
		RedirectURIs:            []string{"http://127.0.0.1/callback", "https://host.example/cb?x=1"},
		GrantTypes:              []string{clients.GrantAuthorizationCode, clients.GrantRefreshToken},
		Scope:                   []string{"mcp:composition:nightly", "mcp:tool:github/search", "offline_access"},
		CreatedAt:               clientsEpoch.Add(at),
	}
}

// sameClient compares every field; JWKS as JSON values (jsonb reorders),
// and nil and empty lists alike.
func sameClient(t *testing.T, got, want *clients.Client) {
	t.Helper()
	if got.ID != want.ID || got.Name != want.Name || got.TokenEndpointAuthMethod != want.TokenEndpointAuthMethod ||
		!bytes.Equal(got.SecretHash, want.SecretHash) || got.Disabled != want.Disabled ||
		got.Approval != want.Approval.OrNever() || got.Validation != want.Validation.OrLenient() || got.DPoPBound != want.DPoPBound ||
		!got.CreatedAt.Equal(want.CreatedAt) ||
		!slices.Equal(got.AllowedTools, want.AllowedTools) ||
		!slices.Equal(got.AllowedAudiences, want.AllowedAudiences) ||
		!slices.Equal(got.AllowedScopes, want.AllowedScopes) ||
		!slices.Equal(got.RedirectURIs, want.RedirectURIs) || !slices.Equal(got.GrantTypes, want.GrantTypes) ||
		!slices.Equal(got.Scope, want.Scope) {
		t.Errorf("client differs:\n got  %+v\n want %+v", got, want)
	}
	if (len(got.JWKS) == 0) != (len(want.JWKS) == 0) {
		t.Fatalf("jwks = %s, want %s", got.JWKS, want.JWKS)
	}
	if len(want.JWKS) > 0 {
		var g, w any
		if err := json.Unmarshal(got.JWKS, &g); err != nil {
			t.Fatalf("stored jwks is not JSON: %v", err)
		}
		_ = json.Unmarshal(want.JWKS, &w)
		if !reflect.DeepEqual(g, w) {
			t.Errorf("jwks = %s, want %s", got.JWKS, want.JWKS)
		}
	}
}

// RunClients is the conformance suite of clients.Store.
func RunClients(t *testing.T, newStore func(t *testing.T) clients.Store) {
	ctx := context.Background()

	t.Run("CreateGetRoundTrip", func(t *testing.T) {
		t.Parallel()
		s := newStore(t)
		for _, c := range []*clients.Client{
			secretClient("c1", 0),
			jwtClient("c2", time.Second),
			// Ids are opaque: an operator's admin id may hold any visible ASCII.
			secretClient("admin:ops%2F#1", 2*time.Second),
			publicClient("host", 3*time.Second),
		} {
			if err := s.Create(ctx, c); err != nil {
				t.Fatalf("create %s: %v", c.ID, err)
			}
			got, err := s.Get(ctx, c.ID)
			if err != nil {
				t.Fatalf("get %s: %v", c.ID, err)
			}
			sameClient(t, got, c)
		}
	})

	t.Run("CreateDuplicateConflictsAndKeepsOriginal", func(t *testing.T) {
		t.Parallel()
		s := newStore(t)
		orig := secretClient("dup", 0)
		if err := s.Create(ctx, orig); err != nil {
			t.Fatal(err)
		}
		other := jwtClient("dup", time.Minute)
		if err := s.Create(ctx, other); !errors.Is(err, clients.ErrConflict) {
			t.Fatalf("second create: err = %v, want ErrConflict", err)
		}
		got, err := s.Get(ctx, "dup")
		if err != nil {
			t.Fatal(err)
		}
		sameClient(t, got, orig)
	})

	t.Run("IDsNoStoreCanHoldAreNotFound", func(t *testing.T) {
		t.Parallel()
		s := newStore(t)
		ctx := context.Background()
		for _, id := range []string{"a\x00b", "\xff"} {
			if _, err := s.Get(ctx, id); !errors.Is(err, clients.ErrNotFound) {
				t.Errorf("Get(%q) = %v, want ErrNotFound", id, err)
			}
			if err := s.Disable(ctx, id); !errors.Is(err, clients.ErrNotFound) {
				t.Errorf("Disable(%q) = %v, want ErrNotFound", id, err)
			}
			if err := s.Update(ctx, secretClient(id, 0)); !errors.Is(err, clients.ErrNotFound) {
				t.Errorf("Update(%q) = %v, want ErrNotFound", id, err)
			}
			if err := s.SetValidation(ctx, id, grading.Strict); !errors.Is(err, clients.ErrNotFound) {
				t.Errorf("SetValidation(%q) = %v, want ErrNotFound", id, err)
			}
		}
	})

	t.Run("UnknownIsNotFound", func(t *testing.T) {
		t.Parallel()
		s := newStore(t)
		if _, err := s.Get(ctx, "nobody"); !errors.Is(err, clients.ErrNotFound) {
			t.Errorf("get: err = %v, want ErrNotFound", err)
		}
		if err := s.Disable(ctx, "nobody"); !errors.Is(err, clients.ErrNotFound) {
			t.Errorf("disable: err = %v, want ErrNotFound", err)
		}
		if err := s.Update(ctx, secretClient("nobody", 0)); !errors.Is(err, clients.ErrNotFound) {
			t.Errorf("update: err = %v, want ErrNotFound", err)
		}
		if _, err := s.Get(ctx, "nobody"); !errors.Is(err, clients.ErrNotFound) {
			t.Errorf("update of an unknown client created it: err = %v", err)
		}
	})

	t.Run("ListOldestFirstThenByID", func(t *testing.T) {
		t.Parallel()
		s := newStore(t)
		got, err := s.List(ctx)
		if err != nil || len(got) != 0 {
			t.Fatalf("empty store lists %v, %v", got, err)
		}
		for _, c := range []*clients.Client{
			secretClient("b", time.Second), secretClient("z", 0), jwtClient("a", time.Second), secretClient("m", 2*time.Second),
		} {
			if err := s.Create(ctx, c); err != nil {
				t.Fatal(err)
			}
		}
		got, err = s.List(ctx)
		if err != nil {
			t.Fatal(err)
		}
		var ids []string
		for _, c := range got {
			ids = append(ids, c.ID)
		}
		if want := []string{"z", "a", "b", "m"}; !slices.Equal(ids, want) {
			t.Errorf("list order = %v, want %v", ids, want)
		}
		sameClient(t, got[1], jwtClient("a", time.Second))
	})

	t.Run("DisableIsIdempotentAndOnlyThatClient", func(t *testing.T) {
		t.Parallel()
		s := newStore(t)
		for _, id := range []string{"on", "off"} {
			if err := s.Create(ctx, secretClient(id, 0)); err != nil {
				t.Fatal(err)
			}
		}
		for range 2 {
			if err := s.Disable(ctx, "off"); err != nil {
				t.Fatalf("disable: %v", err)
			}
		}
		want := secretClient("off", 0)
		want.Disabled = true
		got, err := s.Get(ctx, "off")
		if err != nil {
			t.Fatal(err)
		}
		sameClient(t, got, want)
		if on, _ := s.Get(ctx, "on"); on == nil || on.Disabled {
			t.Errorf("disabling one client touched another: %+v", on)
		}
	})

	t.Run("UpdateReplacesAllButIDAndCreatedAt", func(t *testing.T) {
		t.Parallel()
		s := newStore(t)
		if err := s.Create(ctx, secretClient("u", 0)); err != nil {
			t.Fatal(err)
		}
		next := jwtClient("u", time.Hour) // a different CreatedAt, which must not stick
		next.Name = "renamed"
		next.Disabled = true
		next.RedirectURIs = []string{"https://host.example/cb"}
		next.GrantTypes = []string{clients.GrantAuthorizationCode, clients.GrantClientCredentials}
		next.DPoPBound = true
		next.Scope = []string{"offline_access", "mcp:tool:db_query"}
		if err := s.Update(ctx, next); err != nil {
			t.Fatalf("update: %v", err)
		}
		want := next.Clone()
		want.CreatedAt = clientsEpoch
		got, err := s.Get(ctx, "u")
		if err != nil {
			t.Fatal(err)
		}
		sameClient(t, got, want)
	})

	t.Run("ApprovalDefaultsToNeverAndChangesAlone", func(t *testing.T) {
		t.Parallel()
		s := newStore(t)
		if err := s.Create(ctx, secretClient("ap", 0)); err != nil { // no approval given
			t.Fatal(err)
		}
		got, err := s.Get(ctx, "ap")
		if err != nil || got.Approval != clients.ApprovalNever {
			t.Fatalf("approval of a new client = %q, %v; want never", got.Approval, err)
		}
		if err := s.Disable(ctx, "ap"); err != nil {
			t.Fatal(err)
		}
		for _, a := range clients.Approvals() {
			if err := s.SetApproval(ctx, "ap", a); err != nil {
				t.Fatalf("set approval %s: %v", a, err)
			}
			got, err := s.Get(ctx, "ap")
			if err != nil || got.Approval != a || !got.Disabled || got.Name != "client ap" {
				t.Fatalf("after set approval %s: %+v, %v", a, got, err)
			}
		}
		if err := s.SetApproval(ctx, "nobody", clients.ApprovalAlways); !errors.Is(err, clients.ErrNotFound) {
			t.Errorf("set approval of an unknown client: %v, want ErrNotFound", err)
		}
	})

	t.Run("ValidationDefaultsToLenientAndChangesAlone", func(t *testing.T) {
		t.Parallel()
		s := newStore(t)
		if err := s.Create(ctx, secretClient("va", 0)); err != nil { // no mode given
			t.Fatal(err)
		}
		got, err := s.Get(ctx, "va")
		if err != nil || got.Validation != grading.Lenient {
			t.Fatalf("validation of a new client = %q, %v; want lenient", got.Validation, err)
		}
		if err := s.Disable(ctx, "va"); err != nil {
			t.Fatal(err)
		}
		if err := s.SetApproval(ctx, "va", clients.ApprovalAlways); err != nil {
			t.Fatal(err)
		}
		for _, m := range []grading.Mode{grading.Strict, grading.Lenient, grading.Strict} {
			if err := s.SetValidation(ctx, "va", m); err != nil {
				t.Fatalf("set validation %s: %v", m, err)
			}
			got, err := s.Get(ctx, "va")
			if err != nil || got.Validation != m || !got.Disabled || got.Approval != clients.ApprovalAlways || got.Name != "client va" {
				t.Fatalf("after set validation %s: %+v, %v", m, got, err)
			}
		}
		// Update writes the mode as given, and an unset one as lenient.
		got.Validation = ""
		if err := s.Update(ctx, got); err != nil {
			t.Fatal(err)
		}
		if got, err = s.Get(ctx, "va"); err != nil || got.Validation != grading.Lenient {
			t.Fatalf("after an update without a mode: %q, %v; want lenient", got.Validation, err)
		}
		if err := s.SetValidation(ctx, "nobody", grading.Strict); !errors.Is(err, clients.ErrNotFound) {
			t.Errorf("set validation of an unknown client: %v, want ErrNotFound", err)
		}
	})

	t.Run("DPoPBoundDefaultsToFalseAndChangesAlone", func(t *testing.T) {
		t.Parallel()
		s := newStore(t)
		bound := secretClient("dp", 0)
		bound.DPoPBound = true
		for _, c := range []*clients.Client{secretClient("db", 0), bound} {
			if err := s.Create(ctx, c); err != nil {
				t.Fatal(err)
			}
		}
		if got, err := s.Get(ctx, "db"); err != nil || got.DPoPBound {
			t.Fatalf("a new client: dpop bound %v, %v; want false", got.DPoPBound, err)
		}
		if got, err := s.Get(ctx, "dp"); err != nil || !got.DPoPBound {
			t.Fatalf("a new DPoP-bound client: dpop bound %v, %v; want true", got.DPoPBound, err)
		}
		if err := s.SetApproval(ctx, "db", clients.ApprovalAlways); err != nil {
			t.Fatal(err)
		}
		for _, b := range []bool{true, false, true} {
			if err := s.SetDPoPBound(ctx, "db", b); err != nil {
				t.Fatalf("set dpop bound %v: %v", b, err)
			}
			got, err := s.Get(ctx, "db")
			if err != nil || got.DPoPBound != b || got.Approval != clients.ApprovalAlways || got.Name != "client db" {
				t.Fatalf("after set dpop bound %v: %+v, %v", b, got, err)
			}
		}
		if got, _ := s.Get(ctx, "dp"); !got.DPoPBound {
			t.Error("another client changed")
		}
		if err := s.SetDPoPBound(ctx, "nobody", true); !errors.Is(err, clients.ErrNotFound) {
			t.Errorf("set dpop bound of an unknown client: %v, want ErrNotFound", err)
		}
	})

	t.Run("CallersCannotReachStoredState", func(t *testing.T) {
		t.Parallel()
		s := newStore(t)
		in := secretClient("iso", 0)
		if err := s.Create(ctx, in); err != nil {
			t.Fatal(err)
		}
		in.AllowedTools[0] = "*"
		in.SecretHash[0] = 0
		got, err := s.Get(ctx, "iso")
		if err != nil {
			t.Fatal(err)
		}
		got.AllowedAudiences[0] = "https://evil.example"
		listed, _ := s.List(ctx)
		listed[0].AllowedScopes = append(listed[0].AllowedScopes, clients.AdminScope)
		again, err := s.Get(ctx, "iso")
		if err != nil {
			t.Fatal(err)
		}
		sameClient(t, again, secretClient("iso", 0))

		host := publicClient("iso-host", 0)
		if err := s.Create(ctx, host); err != nil {
			t.Fatal(err)
		}
		host.RedirectURIs[0], host.GrantTypes[0], host.Scope[0] = "https://evil.example/cb", clients.GrantClientCredentials, "mcp:tool:evil"
		got, err = s.Get(ctx, "iso-host")
		if err != nil {
			t.Fatal(err)
		}
		got.RedirectURIs[1], got.Scope[1] = "https://evil.example/cb", "mcp:tool:evil"
		again, err = s.Get(ctx, "iso-host")
		if err != nil {
			t.Fatal(err)
		}
		sameClient(t, again, publicClient("iso-host", 0))
	})

	t.Run("ConcurrentCreateOfOneIDHasOneWinner", func(t *testing.T) {
		t.Parallel()
		s := newStore(t)
		exactlyOneWins(t, 8, clients.ErrConflict, func(int) error { return s.Create(ctx, secretClient("race", 0)) })
	})
}

// RunAssertionReplay is the conformance suite of clients.ReplayStore.
func RunAssertionReplay(t *testing.T, newStore func(t *testing.T) clients.ReplayStore) {
	ctx := context.Background()
	now := clientsEpoch
	exp := now.Add(5 * time.Minute)

	t.Run("InvalidJTIIsRefused", func(t *testing.T) {
		t.Parallel()
		s := newStore(t)
		for _, jti := range []string{"", strings.Repeat("j", 257), "a\x00b", "\xff"} {
			if err := s.Claim(ctx, "c1", jti, exp, now); !errors.Is(err, clients.ErrInvalidJTI) {
				t.Errorf("Claim(%q) = %v, want ErrInvalidJTI", jti, err)
			}
		}
		if err := s.Claim(ctx, "c1", strings.Repeat("j", 256), exp, now); err != nil {
			t.Errorf("a 256-byte jti: %v", err)
		}
	})

	t.Run("SecondClaimIsReplay", func(t *testing.T) {
		t.Parallel()
		s := newStore(t)
		if err := s.Claim(ctx, "c1", "j1", exp, now); err != nil {
			t.Fatalf("first claim: %v", err)
		}
		if err := s.Claim(ctx, "c1", "j1", exp, now.Add(time.Minute)); !errors.Is(err, clients.ErrReplayed) {
			t.Fatalf("second claim: err = %v, want ErrReplayed", err)
		}
		// jtis are per client: another client's equal jti is not a replay.
		if err := s.Claim(ctx, "c2", "j1", exp, now); err != nil {
			t.Errorf("other client's claim: %v", err)
		}
		if err := s.Claim(ctx, "c1", "j2", exp, now); err != nil {
			t.Errorf("other jti: %v", err)
		}
	})

	t.Run("ExpiredRecordIsTakenOver", func(t *testing.T) {
		t.Parallel()
		s := newStore(t)
		if err := s.Claim(ctx, "c1", "j1", exp, now); err != nil {
			t.Fatal(err)
		}
		later := exp.Add(time.Second)
		if err := s.Claim(ctx, "c1", "j1", later.Add(5*time.Minute), later); err != nil {
			t.Fatalf("claim after expiry: %v", err)
		}
		if err := s.Claim(ctx, "c1", "j1", later.Add(5*time.Minute), later.Add(time.Minute)); !errors.Is(err, clients.ErrReplayed) {
			t.Fatalf("the take-over did not record the new expiry: err = %v", err)
		}
	})

	t.Run("PurgeRemovesOnlyExpired", func(t *testing.T) {
		t.Parallel()
		s := newStore(t)
		for i, e := range []time.Time{now.Add(time.Minute), now.Add(2 * time.Minute), now.Add(3 * time.Minute)} {
			if err := s.Claim(ctx, "c", string(rune('a'+i)), e, now); err != nil {
				t.Fatal(err)
			}
		}
		n, err := s.Purge(ctx, now.Add(2*time.Minute))
		if err != nil || n != 2 {
			t.Fatalf("purge = %d, %v; want 2", n, err)
		}
		if err := s.Claim(ctx, "c", "c", exp, now); !errors.Is(err, clients.ErrReplayed) {
			t.Errorf("purge removed a live record: err = %v", err)
		}
	})

	t.Run("ConcurrentClaimsHaveOneWinner", func(t *testing.T) {
		t.Parallel()
		s := newStore(t)
		exactlyOneWins(t, 8, clients.ErrReplayed, func(int) error { return s.Claim(ctx, "c", "contended", exp, now) })
	})
}
