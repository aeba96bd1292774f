package postgres_test

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/typeward/typeward/internal/registry"
	"github.com/typeward/typeward/internal/store/postgres"
	"github.com/typeward/typeward/internal/store/postgres/pgtest"
	"github.com/typeward/typeward/internal/store/storetest"
)

func BenchmarkRegisterCorpus(b *testing.B) {
	db, _ := pgtest.New(b)
	storetest.BenchmarkRegisterCorpus(b, postgres.NewRegistry(db))
}

func BenchmarkApproveCorpus(b *testing.B) {
	db, _ := pgtest.New(b)
	storetest.BenchmarkApproveCorpus(b, postgres.NewRegistry(db))
}

// BenchmarkResolveComposition resolves every tool of a 3-tool and a
// 100-tool composition: straight from Postgres (a query, then loading and
// compiling the schemas), and from a warm cache.
func BenchmarkResolveComposition(b *testing.B) {
	db, _ := pgtest.New(b)
	store := postgres.NewRegistry(db)
	names := storetest.DeclareCorpus(b, store)
	ctx := context.Background()
	for _, size := range []int{3, 100} {
		tools := names[:size]
		resolveAll := func(b *testing.B, r registry.Resolver) {
			for _, name := range tools {
				if _, err := r.ResolveTool(ctx, name, 0); err != nil {
					b.Fatal(err)
				}
			}
		}
		b.Run(fmt.Sprintf("tools=%d/postgres", size), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				resolveAll(b, store)
			}
		})
		b.Run(fmt.Sprintf("tools=%d/cache", size), func(b *testing.B) {
			cache := registry.NewCache(store)
			resolveAll(b, cache)
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				resolveAll(b, cache)
			}
			if st := cache.Stats(); st.Misses != uint64(size) {
				b.Fatalf("cache stats %+v: the warm cache missed", st)
			}
		})
	}
}

// signalling forwards to a cache and says when an invalidation arrived.
type signalling struct {
	*registry.Cache
	invalidated chan struct{}
}

func (s *signalling) Invalidate(c registry.Change) {
	s.Cache.Invalidate(c)
	s.invalidated <- struct{}{}
}

// BenchmarkNotifyInvalidation measures how long replica A's committed
// change takes to invalidate replica B's cache: ns/op is declare, commit
// and delivery; notify-ns/op is from DeclareTool's return to B's drop.
func BenchmarkNotifyInvalidation(b *testing.B) {
	db, schemaName := pgtest.New(b)
	a := postgres.NewRegistry(db)
	dbB := pgtest.Open(b, schemaName)
	b2 := &signalling{Cache: registry.NewCache(postgres.NewRegistry(dbB)), invalidated: make(chan struct{}, 1)}
	listener := postgres.NewListener(dbB, b2, nil)
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { defer wg.Done(); _ = listener.Run(ctx) }()
	defer func() { cancel(); wg.Wait() }()
	for listener.Connects() == 0 {
		time.Sleep(time.Millisecond)
	}

	var notify time.Duration
	for i := 0; b.Loop(); i++ {
		input := fmt.Sprintf(`{"type":"object","properties":{"p%d":{"type":"string"}}}`, i)
		if _, err := a.DeclareTool(context.Background(), "srv", registry.Tool{Name: "t", InputSchema: json.RawMessage(input)}); err != nil {
			b.Fatal(err)
		}
		committed := time.Now()
		<-b2.invalidated
		notify += time.Since(committed)
	}
	b.ReportMetric(float64(notify.Nanoseconds())/float64(b.N), "notify-ns/op")
}
