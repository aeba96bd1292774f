package storetest

import (
	"context"
	"errors"
	"reflect"
	"testing"
	"time"

	"github.com/typeward/typeward/internal/grant"
)

var grantsEpoch = time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)

func testConsent(client, subject string) grant.Consent {
	return grant.Consent{ClientID: client, Subject: subject, Audience: "https://router.example.com/mcp",
		Scopes: []string{"offline_access"}, Details: `[{"type":"mcp_composition","composition_id":"nightly"}]`,
		Digest: "sha256:abc", Tools: []string{"analytics/db_query", "analytics/email_send"}, ConsentedAt: grantsEpoch}
}

func testCode(secret string) *grant.Code {
	return &grant.Code{Hash: grant.Hash(secret), Consent: testConsent("host", "alice"), RedirectURI: "http://127.0.0.1:5000/cb",
		Challenge: "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM", Refresh: true,
		CreatedAt: grantsEpoch, ExpiresAt: grantsEpoch.Add(time.Minute)}
}

func testFamily(id, client, subject string, at time.Time) (*grant.Family, *grant.RefreshToken) {
	f := &grant.Family{ID: id, Consent: testConsent(client, subject), CreatedAt: at, ExpiresAt: at.Add(30 * 24 * time.Hour),
		LastUsedAt: at, JTI: "jti-" + id, JTIExpiresAt: at.Add(5 * time.Minute), JKT: "jkt-" + id}
	return f, &grant.RefreshToken{Hash: grant.Hash("rt-" + id), FamilyID: id, CreatedAt: at, ExpiresAt: at.Add(24 * time.Hour)}
}

// RunGrants is the conformance suite of grant.Store.
func RunGrants(t *testing.T, newStore func(t *testing.T) grant.Store) {
	ctx := context.Background()

	t.Run("CodeRoundTripAndOneRedemption", func(t *testing.T) {
		t.Parallel()
		s := newStore(t)
		c := testCode("code-1")
		if err := s.CreateCode(ctx, c); err != nil {
			t.Fatal(err)
		}
		got, err := s.Code(ctx, grant.Hash("code-1"))
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, c) {
			t.Errorf("code differs:\n got  %+v\n want %+v", got, c)
		}
		if _, err := s.Code(ctx, grant.Hash("code-2")); !errors.Is(err, grant.ErrNotFound) {
			t.Errorf("unknown code: %v, want ErrNotFound", err)
		}
		at := grantsEpoch.Add(10 * time.Second)
		f, first := testFamily("fam-1", "host", "alice", at)
		if err := s.RedeemCode(ctx, c.Hash, at, "jti-1", at.Add(5*time.Minute), f, first); err != nil {
			t.Fatalf("redeem: %v", err)
		}
		if err := s.RedeemCode(ctx, c.Hash, at.Add(time.Second), "jti-2", at.Add(5*time.Minute), nil, nil); !errors.Is(err, grant.ErrSpent) {
			t.Errorf("second redemption: %v, want ErrSpent", err)
		}
		got, err = s.Code(ctx, c.Hash)
		if err != nil || !got.RedeemedAt.Equal(at) || got.JTI != "jti-1" || got.FamilyID != "fam-1" || !got.JTIExpiresAt.Equal(at.Add(5*time.Minute)) {
			t.Errorf("after redemption: %+v, %v", got, err)
		}
		tok, fam, err := s.Refresh(ctx, first.Hash)
		first.JTI, first.JTIExpiresAt = "jti-1", at.Add(5*time.Minute) // the code's access token, issued with it
		if err != nil || !reflect.DeepEqual(fam, f) || !reflect.DeepEqual(tok, first) {
			t.Errorf("the family the code started:\n got  %+v %+v %v\n want %+v %+v", fam, tok, err, f, first)
		}
		if err := s.RedeemCode(ctx, grant.Hash("nope"), at, "j", at, nil, nil); !errors.Is(err, grant.ErrNotFound) {
			t.Errorf("redeem of an unknown code: %v", err)
		}
	})

	t.Run("ExpiredCodeIsSpent", func(t *testing.T) {
		t.Parallel()
		s := newStore(t)
		c := testCode("old")
		if err := s.CreateCode(ctx, c); err != nil {
			t.Fatal(err)
		}
		if err := s.RedeemCode(ctx, c.Hash, c.ExpiresAt, "j", c.ExpiresAt, nil, nil); !errors.Is(err, grant.ErrSpent) {
			t.Errorf("redeem at expiry: %v, want ErrSpent", err)
		}
		if got, _ := s.Code(ctx, c.Hash); !got.RedeemedAt.IsZero() {
			t.Errorf("a refused redemption changed the code: %+v", got)
		}
	})

	t.Run("ConcurrentRedemptionsHaveOneWinner", func(t *testing.T) {
		t.Parallel()
		s := newStore(t)
		c := testCode("race")
		if err := s.CreateCode(ctx, c); err != nil {
			t.Fatal(err)
		}
		exactlyOneWins(t, 8, grant.ErrSpent, func(i int) error {
			f, first := testFamily("race-"+string(rune('a'+i)), "host", "alice", grantsEpoch)
			return s.RedeemCode(ctx, c.Hash, grantsEpoch.Add(time.Second), "j", grantsEpoch.Add(time.Minute), f, first)
		})
		if fams, err := s.Families(ctx, grant.Filter{ClientID: "host"}, 100); err != nil || len(fams) != 1 {
			t.Errorf("the losers started families: %d, %v", len(fams), err)
		}
	})

	t.Run("RotateOnceThenSpent", func(t *testing.T) {
		t.Parallel()
		s := newStore(t)
		c := testCode("rot")
		if err := s.CreateCode(ctx, c); err != nil {
			t.Fatal(err)
		}
		f, first := testFamily("rot", "host", "alice", grantsEpoch)
		if err := s.RedeemCode(ctx, c.Hash, grantsEpoch, "j0", grantsEpoch.Add(time.Minute), f, first); err != nil {
			t.Fatal(err)
		}
		at := grantsEpoch.Add(time.Hour)
		next := &grant.RefreshToken{Hash: grant.Hash("rot-2"), FamilyID: "rot", CreatedAt: at, ExpiresAt: at.Add(24 * time.Hour)}
		if err := s.Rotate(ctx, first.Hash, at, next, "j1", at.Add(5*time.Minute)); err != nil {
			t.Fatalf("rotate: %v", err)
		}
		other := &grant.RefreshToken{Hash: grant.Hash("rot-3"), FamilyID: "rot", CreatedAt: at, ExpiresAt: at.Add(24 * time.Hour)}
		if err := s.Rotate(ctx, first.Hash, at.Add(time.Second), other, "j2", at); !errors.Is(err, grant.ErrSpent) {
			t.Errorf("second use of a refresh token: %v, want ErrSpent", err)
		}
		if _, _, err := s.Refresh(ctx, other.Hash); !errors.Is(err, grant.ErrNotFound) {
			t.Errorf("a refused rotation stored its next token: %v", err)
		}
		used, fam, err := s.Refresh(ctx, first.Hash)
		if err != nil || !used.UsedAt.Equal(at) || fam.JTI != "j1" || !fam.LastUsedAt.Equal(at) || !fam.JTIExpiresAt.Equal(at.Add(5*time.Minute)) {
			t.Errorf("after rotation: %+v %+v %v", used, fam, err)
		}
		got, _, err := s.Refresh(ctx, next.Hash)
		want := *next
		want.JTI, want.JTIExpiresAt = "j1", at.Add(5*time.Minute) // the access token issued with it
		if err != nil || !reflect.DeepEqual(got, &want) {
			t.Errorf("the next token: %+v, %v", got, err)
		}
		// Idle expiry, then a revoked family, spend a token too.
		if err := s.Rotate(ctx, next.Hash, next.ExpiresAt, other, "j3", at); !errors.Is(err, grant.ErrSpent) {
			t.Errorf("rotation at the idle expiry: %v, want ErrSpent", err)
		}
		if err := s.RevokeFamily(ctx, "rot", "reused", at.Add(time.Minute)); err != nil {
			t.Fatal(err)
		}
		if err := s.RevokeFamily(ctx, "rot", "again", at.Add(2*time.Minute)); err != nil {
			t.Fatal(err)
		}
		if err := s.Rotate(ctx, next.Hash, at.Add(2*time.Minute), other, "j4", at); !errors.Is(err, grant.ErrSpent) {
			t.Errorf("rotation in a revoked family: %v, want ErrSpent", err)
		}
		fam, err = s.Family(ctx, "rot")
		if err != nil || !fam.RevokedAt.Equal(at.Add(time.Minute)) || fam.RevokedReason != "reused" || fam.Live(at.Add(time.Hour)) {
			t.Errorf("revoked family: %+v, %v (the first revocation stays)", fam, err)
		}
		if err := s.RevokeFamily(ctx, "nobody", "x", at); !errors.Is(err, grant.ErrNotFound) {
			t.Errorf("revoke unknown family: %v", err)
		}
		if err := s.Rotate(ctx, grant.Hash("unknown"), at, other, "j", at); !errors.Is(err, grant.ErrNotFound) {
			t.Errorf("rotate unknown token: %v", err)
		}
	})

	t.Run("IssuedListsTheFamilysUnexpiredAccessTokens", func(t *testing.T) {
		t.Parallel()
		s := newStore(t)
		c := testCode("iss")
		if err := s.CreateCode(ctx, c); err != nil {
			t.Fatal(err)
		}
		f, first := testFamily("iss", "host", "alice", grantsEpoch)
		if err := s.RedeemCode(ctx, c.Hash, grantsEpoch, "a0", grantsEpoch.Add(5*time.Minute), f, first); err != nil {
			t.Fatal(err)
		}
		prev := first
		for i, jti := range []string{"a1", "a2", "a3"} {
			at := grantsEpoch.Add(time.Duration(i+1) * 2 * time.Minute)
			next := &grant.RefreshToken{Hash: grant.Hash("iss-" + jti), FamilyID: "iss", CreatedAt: at, ExpiresAt: at.Add(24 * time.Hour)}
			if err := s.Rotate(ctx, prev.Hash, at, next, jti, at.Add(5*time.Minute)); err != nil {
				t.Fatal(err)
			}
			prev = next
		}
		// At 6 min: a0 (expired at 5 min) is gone; a1 (to 7), a2 (to 9), a3 (to 11) live.
		got, err := s.Issued(ctx, "iss", grantsEpoch.Add(6*time.Minute))
		jtis := map[string]time.Time{}
		for _, i := range got {
			jtis[i.JTI] = i.ExpiresAt
		}
		want := map[string]time.Time{"a1": grantsEpoch.Add(7 * time.Minute), "a2": grantsEpoch.Add(9 * time.Minute), "a3": grantsEpoch.Add(11 * time.Minute)}
		if err != nil || !reflect.DeepEqual(jtis, want) {
			t.Errorf("issued at 6 min: %v %v, want %v", got, err, want)
		}
		if got, err := s.Issued(ctx, "iss", grantsEpoch); err != nil || len(got) != 4 {
			t.Errorf("issued at the redemption: %v %v, want a0 to a3", got, err)
		}
		if got, err := s.Issued(ctx, "nobody", grantsEpoch); err != nil || len(got) != 0 {
			t.Errorf("issued of an unknown family: %v %v", got, err)
		}
	})

	t.Run("ConcurrentRotationsHaveOneWinner", func(t *testing.T) {
		t.Parallel()
		s := newStore(t)
		c := testCode("crot")
		if err := s.CreateCode(ctx, c); err != nil {
			t.Fatal(err)
		}
		f, first := testFamily("crot", "host", "alice", grantsEpoch)
		if err := s.RedeemCode(ctx, c.Hash, grantsEpoch, "j0", grantsEpoch.Add(time.Minute), f, first); err != nil {
			t.Fatal(err)
		}
		exactlyOneWins(t, 8, grant.ErrSpent, func(i int) error {
			next := &grant.RefreshToken{Hash: grant.Hash("crot-" + string(rune('a'+i))), FamilyID: "crot",
				CreatedAt: grantsEpoch, ExpiresAt: grantsEpoch.Add(time.Hour)}
			return s.Rotate(ctx, first.Hash, grantsEpoch.Add(time.Second), next, "j", grantsEpoch.Add(time.Minute))
		})
	})

	t.Run("FamiliesListedPerClientAndPerson", func(t *testing.T) {
		t.Parallel()
		s := newStore(t)
		for i, who := range [][2]string{{"host", "alice"}, {"host", "bob"}, {"ide", "alice"}} {
			c := testCode("list-" + who[0] + who[1])
			c.ClientID, c.Subject = who[0], who[1]
			if err := s.CreateCode(ctx, c); err != nil {
				t.Fatal(err)
			}
			f, first := testFamily(who[0]+"-"+who[1], who[0], who[1], grantsEpoch.Add(time.Duration(i)*time.Second))
			if err := s.RedeemCode(ctx, c.Hash, grantsEpoch, "j", grantsEpoch, f, first); err != nil {
				t.Fatal(err)
			}
		}
		ids := func(f grant.Filter, limit int) []string {
			list, err := s.Families(ctx, f, limit)
			if err != nil {
				t.Fatal(err)
			}
			var out []string
			for _, f := range list {
				out = append(out, f.ID)
			}
			return out
		}
		for _, tc := range []struct {
			f     grant.Filter
			limit int
			want  []string
		}{
			{grant.Filter{}, 10, []string{"ide-alice", "host-bob", "host-alice"}},
			{grant.Filter{ClientID: "host"}, 10, []string{"host-bob", "host-alice"}},
			{grant.Filter{Subject: "alice"}, 10, []string{"ide-alice", "host-alice"}},
			{grant.Filter{ClientID: "host", Subject: "alice"}, 10, []string{"host-alice"}},
			{grant.Filter{}, 1, []string{"ide-alice"}},
			{grant.Filter{ClientID: "nobody"}, 10, nil},
		} {
			if got := ids(tc.f, tc.limit); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("Families(%+v, %d) = %v, want %v", tc.f, tc.limit, got, tc.want)
			}
		}
	})

	t.Run("PurgeRemovesOnlyWhatEnded", func(t *testing.T) {
		t.Parallel()
		s := newStore(t)
		live, old := testCode("live"), testCode("gone")
		live.ExpiresAt = grantsEpoch.Add(time.Hour)
		for _, c := range []*grant.Code{live, old} {
			if err := s.CreateCode(ctx, c); err != nil {
				t.Fatal(err)
			}
		}
		f, first := testFamily("keep", "host", "alice", grantsEpoch)
		if err := s.RedeemCode(ctx, live.Hash, grantsEpoch, "j", grantsEpoch, f, first); err != nil {
			t.Fatal(err)
		}
		n, err := s.Purge(ctx, grantsEpoch.Add(2*time.Minute))
		if err != nil || n != 1 {
			t.Fatalf("purge = %d, %v; want the one expired code", n, err)
		}
		if _, err := s.Code(ctx, old.Hash); !errors.Is(err, grant.ErrNotFound) {
			t.Errorf("expired code kept: %v", err)
		}
		if err := s.RevokeFamily(ctx, "keep", "done", grantsEpoch.Add(3*time.Minute)); err != nil {
			t.Fatal(err)
		}
		if n, err := s.Purge(ctx, grantsEpoch.Add(4*time.Minute)); err != nil || n != 1 {
			t.Fatalf("purge after revocation = %d, %v; want the family", n, err)
		}
		if _, _, err := s.Refresh(ctx, first.Hash); !errors.Is(err, grant.ErrNotFound) {
			t.Errorf("a purged family's token remains: %v", err)
		}
	})
}
