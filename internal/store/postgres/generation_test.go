package postgres_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/typeward/typeward/internal/audit"
	"github.com/typeward/typeward/internal/store/postgres"
	"github.com/typeward/typeward/internal/store/postgres/pgtest"
)

// TestIssuanceNeedsTheCurrentRegistryGeneration: an issuance is recorded
// only while the registry is at the generation its validation read; a
// change committed since (heard or not) refuses it, recorded as
// registry_changed, and the listener learns the new generation.
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
	if !errors.Is(err, audit.ErrRegistryChanged) {
		t.Fatalf("issuance validated before a change: %v, want ErrRegistryChanged", err)
	}
	for _, g := range []int64{-1, b.listener.Generation() + 1} {
		if _, err := issue(g); !errors.Is(err, audit.ErrRegistryChanged) {
			t.Errorf("issuance at generation %d: %v, want ErrRegistryChanged", g, err)
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
