package postgres_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/typeward/typeward/internal/clients"
	"github.com/typeward/typeward/internal/nonce"
	"github.com/typeward/typeward/internal/store/postgres"
	"github.com/typeward/typeward/internal/store/postgres/pgtest"
	"github.com/typeward/typeward/internal/store/storetest"
	"github.com/typeward/typeward/verify/dpop"
)

func TestClientsConformance(t *testing.T) {
	t.Parallel()
	storetest.RunClients(t, func(t *testing.T) clients.Store {
		db, _ := pgtest.New(t)
		return postgres.NewClients(db)
	})
}

func TestAssertionReplayConformance(t *testing.T) {
	t.Parallel()
	storetest.RunAssertionReplay(t, func(t *testing.T) clients.ReplayStore {
		db, _ := pgtest.New(t)
		return postgres.NewAssertionReplay(db)
	})
}

// Two replicas sharing the database accept an assertion once between them.
func TestAssertionReplayAcrossReplicas(t *testing.T) {
	t.Parallel()
	db, schemaName := pgtest.New(t)
	replicas := []*postgres.AssertionReplay{postgres.NewAssertionReplay(db), postgres.NewAssertionReplay(pgtest.Open(t, schemaName))}
	now := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	errs := make([]error, 2)
	var wg sync.WaitGroup
	for i, r := range replicas {
		wg.Go(func() { errs[i] = r.Claim(context.Background(), "c", "shared-jti", now.Add(time.Minute), now) })
	}
	wg.Wait()
	if (errs[0] == nil) == (errs[1] == nil) {
		t.Fatalf("errs = %v; want exactly one claim to win", errs)
	}
	for _, err := range errs {
		if err != nil && !errors.Is(err, clients.ErrReplayed) {
			t.Errorf("loser err = %v, want ErrReplayed", err)
		}
	}
}

// BenchmarkClientsGet is the store's share of authenticating a token
// request on Postgres.
func BenchmarkClientsGet(b *testing.B) {
	db, _ := pgtest.New(b)
	s := postgres.NewClients(db)
	ctx := context.Background()
	c := &clients.Client{ID: "bench", Name: "bench", TokenEndpointAuthMethod: clients.SecretBasic,
		SecretHash: make([]byte, 32), AllowedTools: []string{"*"}, CreatedAt: time.Now()}
	if err := s.Create(ctx, c); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, err := s.Get(ctx, "bench"); err != nil {
			b.Fatal(err)
		}
	}
}

func TestProofReplayConformance(t *testing.T) {
	t.Parallel()
	storetest.RunProofReplay(t, func(t *testing.T, now func() time.Time) (dpop.Replay, clients.ReplayStore) {
		db, _ := pgtest.New(t)
		return postgres.NewProofReplay(db, now), postgres.NewAssertionReplay(db)
	})
}

func TestDPoPNoncesConformance(t *testing.T) {
	t.Parallel()
	storetest.RunDPoPNonces(t, func(t *testing.T) nonce.Store {
		db, _ := pgtest.New(t)
		return postgres.NewDPoPNonces(db)
	})
}
