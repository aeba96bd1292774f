package postgres_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/typeward/typeward/internal/keys"
	"github.com/typeward/typeward/internal/store/postgres"
	"github.com/typeward/typeward/internal/store/postgres/pgtest"
	"github.com/typeward/typeward/internal/store/storetest"
)

func TestKeysConformance(t *testing.T) {
	t.Parallel()
	storetest.RunKeys(t, func(t *testing.T) keys.Store {
		db, _ := pgtest.New(t)
		return postgres.NewKeys(db)
	})
}

// Keyrings of several replicas on one database agree on the signer, and a
// rotation on one replica reaches the others on refresh.
func TestKeysReplicasAgree(t *testing.T) {
	t.Parallel()
	db, schemaName := pgtest.New(t)
	kek, err := keys.GenerateKEK()
	if err != nil {
		t.Fatal(err)
	}
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	clock := func() time.Time { return now }
	ctx := context.Background()

	// Three replicas start together on an empty database.
	stores := []keys.Store{postgres.NewKeys(db), postgres.NewKeys(pgtest.Open(t, schemaName)), postgres.NewKeys(pgtest.Open(t, schemaName))}
	rings := make([]*keys.Keyring, len(stores))
	errs := make([]error, len(stores))
	var wg sync.WaitGroup
	for i, s := range stores {
		wg.Go(func() { rings[i], errs[i] = keys.New(ctx, keys.Config{Store: s, KEK: kek, Now: clock}) })
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("replica %d: %v", i, err)
		}
	}
	if got, _ := stores[0].List(ctx); len(got) != 1 {
		t.Fatalf("replicas starting together stored %d keys, want 1", len(got))
	}
	signers := func() []string {
		out := make([]string, len(rings))
		for i, r := range rings {
			s, err := r.Signer()
			if err != nil {
				t.Fatalf("replica %d: %v", i, err)
			}
			out[i] = s.KID
		}
		return out
	}
	first := signers()
	if first[0] != first[1] || first[1] != first[2] {
		t.Fatalf("replicas sign with %v", first)
	}

	next, err := rings[1].Rotate(ctx, keys.RotateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range rings {
		if err := r.Refresh(ctx); err != nil {
			t.Fatalf("replica %d refresh: %v", i, err)
		}
		if jwks := r.JWKS(); jwks.ETag != rings[0].JWKS().ETag {
			t.Errorf("replica %d serves another JWKS: %s", i, jwks.Body)
		}
	}
	if got := signers(); fmt.Sprint(got) != fmt.Sprint(first) {
		t.Errorf("before the new key activates, replicas sign with %v, want %v", got, first)
	}
	now = next.ActivateAt
	if got := signers(); got[0] != next.KID || got[1] != next.KID || got[2] != next.KID {
		t.Errorf("once %s activates, replicas sign with %v", next.KID, got)
	}
}
