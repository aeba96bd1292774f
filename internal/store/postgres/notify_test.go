package postgres_test

import (
	"context"
	"encoding/json"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/typeward/typeward/internal/registry"
	"github.com/typeward/typeward/internal/store/postgres"
	"github.com/typeward/typeward/internal/store/postgres/pgtest"
)

// replica is one typeward replica's registry: its own pool, store, cache
// and listener, over a shared schema.
type replica struct {
	store    *postgres.Registry
	cache    *registry.Cache
	listener *postgres.Listener
	db       *postgres.DB
}

func startReplica(t *testing.T, schemaName string, tune ...func(*postgres.Listener)) *replica {
	t.Helper()
	db := pgtest.Open(t, schemaName)
	r := &replica{store: postgres.NewRegistry(db), db: db}
	r.cache = registry.NewCache(r.store)
	r.store.Watch(r.cache.Invalidate)
	r.listener = postgres.NewListener(db, r.cache, nil)
	r.listener.MinBackoff = 10 * time.Millisecond
	for _, f := range tune {
		f(r.listener)
	}
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		if err := r.listener.Run(ctx); !errors.Is(err, context.Canceled) {
			t.Errorf("listener stopped: %v", err)
		}
	}()
	t.Cleanup(func() { cancel(); wg.Wait() })
	eventually(t, "listener connected", func() bool { return r.listener.Connects() >= 1 })
	return r
}

// eventually waits for something another connection does; the limit is
// a hang guard, not a performance assertion (see the benchmarks).
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for: %s", what)
		}
		time.Sleep(2 * time.Millisecond)
	}
}

func declare(t *testing.T, s registry.Store, server, name, input string) registry.Declared {
	t.Helper()
	d, err := s.DeclareTool(context.Background(), server, registry.Tool{Name: name, InputSchema: json.RawMessage(input)})
	if err != nil {
		t.Fatal(err)
	}
	return d
}

const (
	inputV1 = `{"type":"object","properties":{"q":{"type":"string"}}}`
	inputV2 = `{"type":"object","properties":{"q":{"type":"string"},"n":{"type":"integer"}}}`
)

func TestReplicaCacheSeesAnotherReplicasUpdate(t *testing.T) {
	t.Parallel()
	db, schemaName := pgtest.New(t)
	a := postgres.NewRegistry(db)
	b := startReplica(t, schemaName)
	ctx := context.Background()

	heard := b.cache.Stats().Invalidations
	declare(t, a, "srv", "search", inputV1)
	eventually(t, "B hears the first declaration", func() bool { return b.cache.Stats().Invalidations > heard })
	for range 2 {
		rt, err := b.cache.ResolveTool(ctx, "search", 0)
		if err != nil || rt.Version != 1 {
			t.Fatalf("B resolves %+v, %v; want version 1", rt, err)
		}
	}
	if st := b.cache.Stats(); st.Hits != 1 || st.Misses != 1 {
		t.Fatalf("B's cache stats %+v, want 1 hit and 1 miss", st)
	}

	before := b.cache.Stats().Invalidations
	declare(t, a, "srv", "search", inputV2)
	eventually(t, "B's cache invalidated", func() bool { return b.cache.Stats().Invalidations > before })
	rt, err := b.cache.ResolveTool(ctx, "search", 0)
	if err != nil || rt.Version != 2 {
		t.Fatalf("after A's update B resolves %+v, %v; want version 2", rt, err)
	}

	// A second server's "search" makes the bare name ambiguous on B.
	before = b.cache.Stats().Invalidations
	declare(t, a, "other", "search", inputV1)
	eventually(t, "B's cache invalidated", func() bool { return b.cache.Stats().Invalidations > before })
	if _, err := b.cache.ResolveTool(ctx, "search", 0); !errors.Is(err, registry.ErrAmbiguous) {
		t.Fatalf("B resolves the bare name with %v, want ErrAmbiguous", err)
	}

	// A removal by snapshot approval reaches B too.
	if _, err := b.cache.ResolveTool(ctx, "srv/search", 1); err != nil {
		t.Fatal(err)
	}
	snap, err := a.ImportSnapshot(ctx, "srv", "", []registry.Tool{})
	if err != nil {
		t.Fatal(err)
	}
	before = b.cache.Stats().Invalidations
	if _, err := a.ApproveSnapshot(ctx, "srv", snap.ID); err != nil {
		t.Fatal(err)
	}
	eventually(t, "B's cache invalidated", func() bool { return b.cache.Stats().Invalidations > before })
	if _, err := b.cache.ResolveTool(ctx, "srv/search", 1); !errors.Is(err, registry.ErrNotFound) {
		t.Fatalf("B resolves a removed tool with %v, want ErrNotFound", err)
	}
}

// A heartbeat after every silence leaves the connection listening.
func TestListenerHeartbeatKeepsListening(t *testing.T) {
	t.Parallel()
	db, schemaName := pgtest.New(t)
	a := postgres.NewRegistry(db)
	b := startReplica(t, schemaName, func(l *postgres.Listener) { l.Heartbeat = time.Millisecond })
	time.Sleep(20 * time.Millisecond) // many heartbeats
	before := b.cache.Stats().Invalidations
	declare(t, a, "srv", "search", inputV1)
	eventually(t, "B hears the declaration after heartbeats", func() bool { return b.cache.Stats().Invalidations > before })
	if n := b.listener.Connects(); n != 1 {
		t.Errorf("listener connected %d times, want once: a heartbeat must not cost the connection", n)
	}
}

// Postgres refuses channel names over 63 bytes in pg_notify and truncates
// them in LISTEN: a long schema name must still carry changes.
func TestReplicaHearsChangesInALongNamedSchema(t *testing.T) {
	t.Parallel()
	db, schemaName := pgtest.NewNamed(t, "tw_test_long_schema_name_past_the_limit_")
	if len(postgres.NotifyChannel+":"+schemaName) <= 63 {
		t.Fatalf("schema %q is too short to test the limit", schemaName)
	}
	a := postgres.NewRegistry(db)
	b := startReplica(t, schemaName)
	before := b.cache.Stats().Invalidations
	declare(t, a, "srv", "search", inputV1)
	eventually(t, "B hears the declaration", func() bool { return b.cache.Stats().Invalidations > before })
}

func TestListenerReconnectsAndDropsTheCache(t *testing.T) {
	t.Parallel()
	db, schemaName := pgtest.New(t)
	a := postgres.NewRegistry(db)
	b := startReplica(t, schemaName)
	ctx := context.Background()

	declare(t, a, "srv", "search", inputV1)
	if _, err := b.cache.ResolveTool(ctx, "srv/search", 0); err != nil {
		t.Fatal(err)
	}
	resets := b.cache.Stats().Resets

	// Kill the listener's backend, as a failover or an idle timeout would.
	tag, err := db.Pool.Exec(ctx, `
		SELECT pg_terminate_backend(pid) FROM pg_stat_activity
		WHERE query LIKE 'LISTEN %' AND query LIKE '%' || $1 || '%' AND pid <> pg_backend_pid()`, schemaName)
	if err != nil || tag.RowsAffected() != 1 {
		t.Fatalf("terminate the listener: %v (%d rows)", err, tag.RowsAffected())
	}
	eventually(t, "listener reconnected", func() bool { return b.listener.Connects() >= 2 })
	if st := b.cache.Stats(); st.Resets <= resets || st.Entries != 0 {
		t.Fatalf("after reconnecting the cache %+v, want it reset and empty", st)
	}

	// And it still hears changes.
	if _, err := b.cache.ResolveTool(ctx, "srv/search", 0); err != nil {
		t.Fatal(err)
	}
	before := b.cache.Stats().Invalidations
	declare(t, a, "srv", "search", inputV2)
	eventually(t, "B's cache invalidated after reconnecting", func() bool { return b.cache.Stats().Invalidations > before })
	if rt, err := b.cache.ResolveTool(ctx, "srv/search", 0); err != nil || rt.Version != 2 {
		t.Fatalf("B resolves %+v, %v; want version 2", rt, err)
	}
}

func TestChangePayloadRoundTrips(t *testing.T) {
	for _, c := range []registry.Change{
		{Server: "github", Name: "search", Version: 3},
		{Name: "bare.tool-1", Version: 1},
		{Server: "modelcontextprotocol/servers:everything", Name: "echo"},
		{Server: "npm:@scope/pkg@1.2", Name: "x", Version: 12},
		{Server: "github", Name: "search", Version: 4, Generation: 1 << 40},
	} {
		got, err := postgres.ParseChangePayload(postgres.ChangePayload(c))
		if err != nil || got != c {
			t.Errorf("round trip of %+v = %+v, %v", c, got, err)
		}
	}
	// A replica from before generations sends none: read as unknown.
	if c, err := postgres.ParseChangePayload("github/search@3"); err != nil || c != (registry.Change{Server: "github", Name: "search", Version: 3}) {
		t.Errorf("payload without a generation = %+v, %v", c, err)
	}
	for _, bad := range []string{"", "search", "search@", "search@-1", "search@x", "srv/@1", "srv/has space@1", "@1", "x@1#", "x@1#-2", "x@1#y"} {
		if c, err := postgres.ParseChangePayload(bad); err == nil {
			t.Errorf("ParseChangePayload(%q) = %+v, want an error", bad, c)
		}
	}
}

func FuzzParseChangePayload(f *testing.F) {
	for _, seed := range []string{"srv/search@2", "x@0", "a/b/c@1", "@", "/@1", "srv/to ol@3", "x@99999999999999999999"} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, payload string) {
		c, err := postgres.ParseChangePayload(payload)
		if err != nil {
			return
		}
		again, err := postgres.ParseChangePayload(postgres.ChangePayload(c))
		if err != nil || again != c {
			t.Fatalf("%q parsed to %+v, which re-encodes to %+v, %v", payload, c, again, err)
		}
	})
}

// countingInvalidator counts resets.
type countingInvalidator struct{ resets atomic.Int64 }

func (c *countingInvalidator) Invalidate(registry.Change) {}
func (c *countingInvalidator) Reset()                     { c.resets.Add(1) }

// While the listener cannot connect, it drops the cache after every failed
// attempt: what the cache serves is never older than the backoff.
func TestListenerDropsTheCacheWhileDisconnected(t *testing.T) {
	t.Parallel()
	cfg, err := pgxpool.ParseConfig("postgres://nobody@127.0.0.1:1/none?connect_timeout=1")
	if err != nil {
		t.Fatal(err)
	}
	pool, err := pgxpool.NewWithConfig(context.Background(), cfg) // connects lazily
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	target := &countingInvalidator{}
	l := postgres.NewListener(&postgres.DB{Pool: pool}, target, nil)
	l.MinBackoff, l.MaxBackoff = time.Millisecond, 5*time.Millisecond
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- l.Run(ctx) }()
	eventually(t, "three resets without a connection", func() bool { return target.resets.Load() >= 3 })
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Errorf("Run = %v, want context.Canceled", err)
	}
	if l.Connects() != 0 {
		t.Errorf("connected %d times to a closed port", l.Connects())
	}
}
