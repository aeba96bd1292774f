package postgres_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/typeward/typeward/internal/audit"
	"github.com/typeward/typeward/internal/registry"
	"github.com/typeward/typeward/internal/store/postgres"
	"github.com/typeward/typeward/internal/store/postgres/pgtest"
)

// TestIssuanceNeedsTheCurrentRegistryGeneration: an issuance is recorded
// only while the registry is at the generation its validation read (the
// registry's guard, in the record's transaction); a change committed
// since (heard or not) refuses it, recorded as registry_changed, and the
// listener learns the new generation.
func TestIssuanceNeedsTheCurrentRegistryGeneration(t *testing.T) {
	t.Parallel()
	db, schemaName := pgtest.New(t)
	a := postgres.NewRegistry(db)
	b := startReplica(t, schemaName)
	log := postgres.NewAudit(db)
	ctx := context.Background()

	gen := b.listener.Generation()
	if gen <= 0 {
		t.Fatalf("a listening listener's generation = %d", gen)
	}
	issue := func(g int64) (*audit.Issuance, error) {
		rec := &audit.Issuance{Time: time.Now(), ClientID: "c", Outcome: audit.Issued, JTI: audit.NewID(), RegistryGeneration: g}
		return rec, log.Append(ctx, rec)
	}
	if _, err := issue(gen); err != nil {
		t.Fatalf("issuance at the current generation: %v", err)
	}
	d := declare(t, a, "srv", "search", inputV1)
	eventually(t, "the listener hears the new generation", func() bool { return b.listener.Generation() > gen })
	if d.Version.Version != 1 {
		t.Fatalf("declared %+v", d)
	}
	// Validated before the change: refused, and recorded as such.
	stale, err := issue(gen)
	if !errors.Is(err, registry.ErrChanged) {
		t.Fatalf("issuance validated before a change: %v, want registry.ErrChanged", err)
	}
	for _, g := range []int64{-1, b.listener.Generation() + 1} {
		if _, err := issue(g); !errors.Is(err, registry.ErrChanged) {
			t.Errorf("issuance at generation %d: %v, want registry.ErrChanged", g, err)
		}
	}
	if _, err := issue(b.listener.Generation()); err != nil {
		t.Errorf("issuance at the new generation: %v", err)
	}
	// A refusal, or an issuance that names no generation, is not checked.
	if err := log.Append(ctx, &audit.Issuance{Time: time.Now(), ClientID: "c", Outcome: audit.Denied, Reason: "x", RegistryGeneration: gen}); err != nil {
		t.Errorf("refusal: %v", err)
	}
	if _, err := issue(0); err != nil {
		t.Errorf("issuance without a precondition: %v", err)
	}
	eventually(t, "the refused issuance recorded", func() bool {
		page, err := log.Query(ctx, audit.Query{ClientID: "c", Limit: 100})
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range page.Items {
			if r.ID == stale.ID {
				return r.Outcome == audit.Error && r.Reason == audit.ReasonRegistryChanged && r.JTI == stale.JTI
			}
		}
		return false
	})

	// A no-op declaration is no change; a metadata update is one.
	before := b.listener.Generation()
	declare(t, a, "srv", "search", inputV1)
	time.Sleep(50 * time.Millisecond)
	if g := b.listener.Generation(); g != before {
		t.Errorf("a no-op declaration moved the generation %d -> %d", before, g)
	}
}

// TestRegistryGuardRunsOncePerBatch: the registry's guard is one
// statement per group-committed batch, not one check per row: 64
// concurrent issuances at the current generation are all recorded, with
// fewer guard statements than records.
func TestRegistryGuardRunsOncePerBatch(t *testing.T) {
	t.Parallel()
	db, _ := pgtest.New(t)
	log := postgres.NewAudit(db)
	var guards atomic.Int64
	db.Observe(func(_ context.Context, sql string) {
		if strings.Contains(sql, "registry_generation_is") {
			guards.Add(1)
		}
	})
	var wg sync.WaitGroup
	for range 64 {
		wg.Go(func() {
			rec := &audit.Issuance{Time: time.Now(), ClientID: "c", Outcome: audit.Issued, JTI: audit.NewID(), RegistryGeneration: 1}
			if err := log.Append(context.Background(), rec); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	if n := guards.Load(); n < 1 || n >= 64 {
		t.Errorf("%d guard statements for 64 concurrent issuances, want 1 to 63", n)
	}
}

// TestTheAuditLogDoesNotGate: the audit table records what it is given.
// A row of an issuance whose validation read a generation the registry
// has moved on from is stored as issued, with that generation: no trigger
// or constraint of the log refuses it (before migration 0016 one did).
func TestTheAuditLogDoesNotGate(t *testing.T) {
	t.Parallel()
	db, _ := pgtest.New(t)
	ctx := context.Background()
	if _, err := db.Pool.Exec(ctx, `UPDATE registry_generation SET gen = 7`); err != nil {
		t.Fatal(err)
	}
	for _, g := range []int64{6, -1, 8} {
		id := audit.NewID()
		if _, err := db.Pool.Exec(ctx, `INSERT INTO oauth_issuances (id, at, client_id, outcome, jti, registry_generation)
			VALUES ($1, now(), 'c', 'issued', $1, $2)`, id, g); err != nil {
			t.Fatalf("issued row naming generation %d while the registry is at 7: %v", g, err)
		}
		var recorded int64
		if err := db.Pool.QueryRow(ctx, `SELECT registry_generation FROM oauth_issuances WHERE id = $1 AND outcome = 'issued'`, id).Scan(&recorded); err != nil || recorded != g {
			t.Errorf("recorded at generation %d (%v), want issued at %d", recorded, err, g)
		}
	}
	var triggers int
	if err := db.Pool.QueryRow(ctx, `SELECT count(*) FROM pg_trigger WHERE tgrelid = 'oauth_issuances'::regclass AND NOT tgisinternal`).Scan(&triggers); err != nil {
		t.Fatal(err)
	}
	if triggers != 0 {
		t.Errorf("%d triggers on oauth_issuances, want none", triggers)
	}
}

// TestListenerBehindReconnects: told that the database is ahead of the
// generation it heard, the listener reconnects (resetting the cache and
// reading the generation anew), at most once a second; told about an
// older generation than it heard, it does nothing.
func TestListenerBehindReconnects(t *testing.T) {
	t.Parallel()
	_, schemaName := pgtest.New(t)
	b := startReplica(t, schemaName)
	resets := b.cache.Stats().Resets
	b.listener.Behind(b.listener.Generation() - 1) // an older validation: nothing to do
	time.Sleep(400 * time.Millisecond)
	if n := b.listener.Connects(); n != 1 {
		t.Fatalf("%d connects after Behind for a generation older than heard, want 1", n)
	}
	b.listener.Behind(b.listener.Generation())
	eventually(t, "reconnected", func() bool { return b.listener.Connects() >= 2 && b.listener.Generation() > 0 })
	if b.cache.Stats().Resets <= resets {
		t.Errorf("reconnected without resetting the cache")
	}
	b.listener.Behind(b.listener.Generation()) // within the second: ignored
	time.Sleep(300 * time.Millisecond)
	if n := b.listener.Connects(); n != 2 {
		t.Errorf("%d connects after a second Behind within a second, want 2", n)
	}
}

// TestRegistryGuardRefusesOnlyTheStaleRowsOfABatch: when the guard refuses
// a batch, its rows are retried one by one, so an issuance at the current
// generation that shared a batch with a stale one is still recorded as
// issued, and only the stale one is refused and recorded as
// registry_changed.
func TestRegistryGuardRefusesOnlyTheStaleRowsOfABatch(t *testing.T) {
	t.Parallel()
	db, _ := pgtest.New(t)
	log := postgres.NewAudit(db)
	ctx := context.Background()
	if _, err := db.Pool.Exec(ctx, `UPDATE registry_generation SET gen = 5`); err != nil {
		t.Fatal(err)
	}
	recs := make([]*audit.Issuance, 32)
	errs := make([]error, len(recs))
	var wg sync.WaitGroup
	for i := range recs {
		recs[i] = &audit.Issuance{Time: time.Now(), ClientID: "c", Outcome: audit.Issued, JTI: audit.NewID(), RegistryGeneration: int64(4 + i%2)}
		wg.Go(func() { errs[i] = log.Append(ctx, recs[i]) })
	}
	wg.Wait()
	for i, rec := range recs {
		stale := rec.RegistryGeneration != 5
		if stale != errors.Is(errs[i], registry.ErrChanged) || (!stale && errs[i] != nil) {
			t.Errorf("issuance at generation %d while the registry is at 5: %v", rec.RegistryGeneration, errs[i])
		}
	}
	eventually(t, "every row recorded", func() bool {
		page, err := log.Query(ctx, audit.Query{ClientID: "c", Limit: 100})
		if err != nil {
			t.Fatal(err)
		}
		if len(page.Items) != len(recs) {
			return false
		}
		for _, r := range page.Items {
			for _, rec := range recs {
				if r.ID != rec.ID {
					continue
				}
				want := audit.Issued
				if rec.RegistryGeneration != 5 {
					want = audit.Error
				}
				if r.Outcome != want || (want == audit.Error && r.Reason != audit.ReasonRegistryChanged) {
					t.Errorf("generation %d recorded %s %q", rec.RegistryGeneration, r.Outcome, r.Reason)
				}
			}
		}
		return true
	})
}
