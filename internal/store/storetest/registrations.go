package storetest

import (
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"testing"
	"time"

	"github.com/typeward/typeward/internal/clients"
	"github.com/typeward/typeward/internal/registration"
)

// RunRegistrations is the conformance suite of registration.Store; the
// factory returns it with the clients.Store it registers into.
func RunRegistrations(t *testing.T, newStore func(t *testing.T) (registration.Store, clients.Store)) {
	ctx := context.Background()
	at := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	host := func(id string) *clients.Client {
		return &clients.Client{ID: id, Name: "host " + id, TokenEndpointAuthMethod: clients.None, AllowedTools: []string{"*"},
			RedirectURIs: []string{"http://127.0.0.1/cb"}, GrantTypes: []string{clients.GrantAuthorizationCode}, CreatedAt: at}
	}
	record := func(id string, d time.Duration) registration.Record {
		return registration.Record{ClientID: id, Address: "192.0.2.1", RegisteredAt: at.Add(d)}
	}
	ids := func(rs []registration.Record) (out []string) {
		for _, r := range rs {
			out = append(out, r.ClientID)
		}
		return out
	}

	t.Run("CapCountsOnlyUnused", func(t *testing.T) {
		t.Parallel()
		s, cs := newStore(t)
		for i, id := range []string{"b", "a"} {
			if err := s.Create(ctx, host(id), record(id, time.Duration(-i)*time.Minute), 2); err != nil {
				t.Fatal(err)
			}
		}
		if err := s.Create(ctx, host("c"), record("c", 0), 2); !errors.Is(err, registration.ErrTooMany) {
			t.Fatalf("third of two: %v, want ErrTooMany", err)
		}
		if _, err := cs.Get(ctx, "c"); !errors.Is(err, clients.ErrNotFound) {
			t.Errorf("a refused registration stored its client: %v", err)
		}
		if got, err := s.Unused(ctx, 10); err != nil || len(got) != 2 || got[0].ClientID != "a" || got[0].Address != "192.0.2.1" {
			t.Fatalf("unused = %v, %v; want a then b", ids(got), err)
		}
		if got, _ := s.Unused(ctx, 1); len(got) != 1 {
			t.Errorf("limit 1 gave %v", ids(got))
		}
		if err := s.MarkUsed(ctx, "a", at.Add(time.Hour)); err != nil {
			t.Fatal(err)
		}
		if err := s.MarkUsed(ctx, "a", at.Add(2*time.Hour)); err != nil {
			t.Fatal(err)
		}
		if err := s.Create(ctx, host("c"), record("c", 0), 2); err != nil {
			t.Fatalf("a used registration still counts against the cap: %v", err)
		}
		if got, _ := s.Unused(ctx, 10); len(got) != 2 || got[0].ClientID != "b" || got[1].ClientID != "c" {
			t.Errorf("unused after use = %v, want b, c", ids(got))
		}
		if err := s.MarkUsed(ctx, "nobody", at); !errors.Is(err, registration.ErrNotFound) {
			t.Errorf("mark unknown: %v", err)
		}
	})

	t.Run("DeleteTakesTheClient", func(t *testing.T) {
		t.Parallel()
		s, cs := newStore(t)
		for _, id := range []string{"old", "kept"} {
			if err := s.Create(ctx, host(id), record(id, 0), 10); err != nil {
				t.Fatal(err)
			}
		}
		if err := s.MarkUsed(ctx, "kept", at); err != nil {
			t.Fatal(err)
		}
		if err := s.Delete(ctx, "old"); err != nil {
			t.Fatal(err)
		}
		if _, err := cs.Get(ctx, "old"); !errors.Is(err, clients.ErrNotFound) {
			t.Errorf("the deleted registration's client remains: %v", err)
		}
		if err := s.Delete(ctx, "kept"); !errors.Is(err, registration.ErrNotFound) {
			t.Errorf("deleting a used registration: %v, want ErrNotFound", err)
		}
		if _, err := cs.Get(ctx, "kept"); err != nil {
			t.Errorf("a used client went: %v", err)
		}
		if err := s.Delete(ctx, "old"); !errors.Is(err, registration.ErrNotFound) {
			t.Errorf("second delete: %v", err)
		}
	})

	t.Run("AConflictingClientStoresNoRecord", func(t *testing.T) {
		t.Parallel()
		s, cs := newStore(t)
		if err := cs.Create(ctx, host("x")); err != nil {
			t.Fatal(err)
		}
		if err := s.Create(ctx, host("x"), record("x", 0), 10); !errors.Is(err, clients.ErrConflict) {
			t.Fatalf("create over an existing client: %v, want ErrConflict", err)
		}
		if got, _ := s.Unused(ctx, 10); len(got) != 0 {
			t.Errorf("a failed create left a record: %v", ids(got))
		}
	})

	t.Run("TokensAreSpentOnce", func(t *testing.T) {
		t.Parallel()
		s, _ := newStore(t)
		h := sha256.Sum256([]byte("token"))
		expired := sha256.Sum256([]byte("expired"))
		for _, tok := range []registration.AccessToken{
			{Hash: h[:], CreatedAt: at, ExpiresAt: at.Add(time.Hour)},
			{Hash: expired[:], CreatedAt: at, ExpiresAt: at.Add(time.Minute)},
		} {
			if err := s.AddToken(ctx, tok); err != nil {
				t.Fatal(err)
			}
		}
		if err := s.UseToken(ctx, expired[:], at.Add(time.Minute)); !errors.Is(err, registration.ErrNotFound) {
			t.Errorf("an expired token: %v", err)
		}
		other := bytes.Repeat([]byte{1}, 32)
		if err := s.UseToken(ctx, other, at); !errors.Is(err, registration.ErrNotFound) {
			t.Errorf("an unknown token: %v", err)
		}
		if err := s.UseToken(ctx, h[:], at.Add(time.Minute)); err != nil {
			t.Fatalf("first use: %v", err)
		}
		if err := s.UseToken(ctx, h[:], at.Add(time.Minute)); !errors.Is(err, registration.ErrNotFound) {
			t.Errorf("second use: %v, want ErrNotFound", err)
		}
	})
}
