package storetest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/typeward/typeward/internal/keys"
)

// RunKeys is the conformance suite of keys.Store: every backend's tests
// call it with a constructor of empty stores.
func RunKeys(t *testing.T, newStore func(t *testing.T) keys.Store) {
	t.Run("InsertFirst", func(t *testing.T) { t.Parallel(); keysInsertFirst(t, newStore(t)) })
	t.Run("InsertFirstConcurrent", func(t *testing.T) { t.Parallel(); keysInsertFirstConcurrent(t, newStore(t)) })
	t.Run("RotateRetiresOthers", func(t *testing.T) { t.Parallel(); keysRotate(t, newStore(t)) })
	t.Run("RotateConflict", func(t *testing.T) { t.Parallel(); keysRotateConflict(t, newStore(t)) })
	t.Run("RotateConcurrent", func(t *testing.T) { t.Parallel(); keysRotateConcurrent(t, newStore(t)) })
	t.Run("RotateConditional", func(t *testing.T) { t.Parallel(); keysRotateConditional(t, newStore(t)) })
	t.Run("InvalidRecord", func(t *testing.T) { t.Parallel(); keysInvalid(t, newStore(t)) })
	t.Run("ListOrderAndCopies", func(t *testing.T) { t.Parallel(); keysListOrder(t, newStore(t)) })
	t.Run("Prune", func(t *testing.T) { t.Parallel(); keysPrune(t, newStore(t)) })
}

// keysBase is a time at Postgres precision.
var keysBase = time.Date(2026, 3, 1, 12, 0, 0, 123456000, time.UTC)

// keyRecord is a well-formed record activating `activate` after keysBase.
// The key material is opaque to a store, so it need not be real.
func keyRecord(kid string, activate time.Duration) keys.Record {
	return keys.Record{
		KID: kid, Alg: keys.ES256,
		PublicJWK:  []byte(fmt.Sprintf(`{"kty":"EC","kid":%q}`, kid)),
		Sealed:     []byte("sealed:" + kid),
		KEKID:      "kek-test",
		CreatedAt:  keysBase,
		PublishAt:  keysBase,
		ActivateAt: keysBase.Add(activate),
	}
}

func mustList(t *testing.T, s keys.Store) []keys.Record {
	t.Helper()
	got, err := s.List(context.Background())
	if err != nil {
		t.Fatalf("List: %v", err)
	}
	return got
}

// sameRecords fails unless got and want hold the same records in order.
func sameRecords(t *testing.T, got, want []keys.Record) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("got %d keys %v, want %d %v", len(got), kids(got), len(want), kids(want))
	}
	for i := range want {
		g, w := got[i], want[i]
		if g.KID != w.KID || g.Alg != w.Alg || g.KEKID != w.KEKID ||
			!bytes.Equal(g.PublicJWK, w.PublicJWK) || !bytes.Equal(g.Sealed, w.Sealed) ||
			!g.CreatedAt.Equal(w.CreatedAt) || !g.PublishAt.Equal(w.PublishAt) || !g.ActivateAt.Equal(w.ActivateAt) ||
			!g.RetireAt.Equal(w.RetireAt) || !g.ExpiresAt.Equal(w.ExpiresAt) {
			t.Errorf("key %d:\n got %+v\nwant %+v", i, g, w)
		}
	}
}

func kids(rs []keys.Record) []string {
	out := make([]string, len(rs))
	for i, r := range rs {
		out[i] = r.KID
	}
	return out
}

func keysInsertFirst(t *testing.T, s keys.Store) {
	ctx := context.Background()
	if got := mustList(t, s); len(got) != 0 {
		t.Fatalf("new store lists %v", kids(got))
	}
	first := keyRecord("k1", 0)
	ok, err := s.InsertFirst(ctx, first)
	if err != nil || !ok {
		t.Fatalf("InsertFirst on an empty store = %v, %v; want true, nil", ok, err)
	}
	ok, err = s.InsertFirst(ctx, keyRecord("k2", 0))
	if err != nil || ok {
		t.Fatalf("InsertFirst on a non-empty store = %v, %v; want false, nil", ok, err)
	}
	sameRecords(t, mustList(t, s), []keys.Record{first})
}

// together runs f(0..n-1) on n goroutines released at once, after warming
// the store up (a pool opening connections would stagger them).
func together(s keys.Store, n int, f func(i int)) {
	var wg sync.WaitGroup
	for range n {
		wg.Go(func() { s.List(context.Background()) })
	}
	wg.Wait()
	start := make(chan struct{})
	for i := range n {
		wg.Go(func() { <-start; f(i) })
	}
	close(start)
	wg.Wait()
}

func keysInsertFirstConcurrent(t *testing.T, s keys.Store) {
	const n = 16
	inserted := make([]bool, n)
	errs := make([]error, n)
	together(s, n, func(i int) {
		inserted[i], errs[i] = s.InsertFirst(context.Background(), keyRecord(fmt.Sprintf("k%d", i), 0))
	})
	count := 0
	for i := range n {
		if errs[i] != nil {
			t.Fatalf("InsertFirst %d: %v", i, errs[i])
		}
		if inserted[i] {
			count++
		}
	}
	if got := mustList(t, s); count != 1 || len(got) != 1 {
		t.Fatalf("%d replicas inserting first: %d inserted, store holds %v; want exactly one", n, count, kids(got))
	}
}

func keysRotate(t *testing.T, s keys.Store) {
	ctx := context.Background()
	k1 := keyRecord("k1", 0)
	if _, err := s.InsertFirst(ctx, k1); err != nil {
		t.Fatal(err)
	}
	// k2 signs after 15m: k1 stops then and leaves the JWKS an hour later.
	k2 := keyRecord("k2", 15*time.Minute)
	r2 := keys.Retirement{At: k2.ActivateAt, ExpiresAt: k2.ActivateAt.Add(time.Hour)}
	if err := s.Rotate(ctx, k2, r2); err != nil {
		t.Fatalf("Rotate: %v", err)
	}
	k1.RetireAt, k1.ExpiresAt = r2.At, r2.ExpiresAt
	sameRecords(t, mustList(t, s), []keys.Record{k1, k2})

	// A later rotation never pushes k1's times back, and closes k2's window.
	k3 := keyRecord("k3", 30*time.Minute)
	r3 := keys.Retirement{At: k3.ActivateAt, ExpiresAt: k3.ActivateAt.Add(time.Hour)}
	if err := s.Rotate(ctx, k3, r3); err != nil {
		t.Fatalf("Rotate: %v", err)
	}
	k2.RetireAt, k2.ExpiresAt = r3.At, r3.ExpiresAt
	sameRecords(t, mustList(t, s), []keys.Record{k1, k2, k3})

	// An emergency rotation brings every earlier time forward to now.
	k4 := keyRecord("k4", time.Minute)
	r4 := keys.Retirement{At: k4.ActivateAt, ExpiresAt: k4.ActivateAt}
	if err := s.Rotate(ctx, k4, r4); err != nil {
		t.Fatalf("Rotate: %v", err)
	}
	k1.RetireAt, k1.ExpiresAt = r4.At, r4.ExpiresAt
	k2.RetireAt, k2.ExpiresAt = r4.At, r4.ExpiresAt
	k3.RetireAt, k3.ExpiresAt = r4.At, r4.ExpiresAt
	sameRecords(t, mustList(t, s), []keys.Record{k1, k4, k2, k3})
}

func keysRotateConflict(t *testing.T, s keys.Store) {
	ctx := context.Background()
	k1 := keyRecord("k1", 0)
	if _, err := s.InsertFirst(ctx, k1); err != nil {
		t.Fatal(err)
	}
	dup := keyRecord("k1", time.Minute)
	err := s.Rotate(ctx, dup, keys.Retirement{At: keysBase, ExpiresAt: keysBase})
	if !errors.Is(err, keys.ErrConflict) {
		t.Fatalf("Rotate with a stored kid = %v, want ErrConflict", err)
	}
	sameRecords(t, mustList(t, s), []keys.Record{k1}) // nothing retired
}

func keysRotateConcurrent(t *testing.T, s keys.Store) {
	ctx := context.Background()
	if _, err := s.InsertFirst(ctx, keyRecord("k0", 0)); err != nil {
		t.Fatal(err)
	}
	const n = 16
	errs := make([]error, n)
	together(s, n, func(i int) {
		rec := keyRecord(fmt.Sprintf("k%d", i+1), 15*time.Minute)
		errs[i] = s.Rotate(ctx, rec, keys.Retirement{At: rec.ActivateAt, ExpiresAt: rec.ActivateAt.Add(time.Hour)})
	})
	for i, err := range errs {
		if err != nil {
			t.Fatalf("Rotate %d: %v", i, err)
		}
	}
	// Serialised rotations leave exactly one key unretired: the last one.
	var open []string
	got := mustList(t, s)
	for _, r := range got {
		if r.RetireAt.IsZero() {
			open = append(open, r.KID)
		}
	}
	if len(got) != n+1 || len(open) != 1 {
		t.Fatalf("after %d concurrent rotations: %d keys, unretired %v; want %d keys, one unretired", n, len(got), open, n+1)
	}
}

// A conditional rotation happens only while the newest key is the one the
// caller saw; two callers that saw the same key make one rotation.
func keysRotateConditional(t *testing.T, s keys.Store) {
	ctx := context.Background()
	k0 := keyRecord("k0", 0)
	if _, err := s.InsertFirst(ctx, k0); err != nil {
		t.Fatal(err)
	}
	exactlyOneWins(t, 8, keys.ErrRotatedMeanwhile, func(i int) error {
		rec := keyRecord(fmt.Sprintf("k%d", i+1), 15*time.Minute)
		rec.CreatedAt = keysBase.Add(time.Second)
		return s.Rotate(ctx, rec, keys.Retirement{At: rec.ActivateAt, ExpiresAt: rec.ActivateAt.Add(time.Hour), IfNewestCreated: k0.CreatedAt})
	})
	got := mustList(t, s)
	if len(got) != 2 {
		t.Fatalf("%d keys are stored (%v), want 2: one rotation", len(got), kids(got))
	}
	if got[0].KID != "k0" || got[0].RetireAt.IsZero() {
		t.Errorf("first key %+v, want k0 retired by the winning rotation", got[0])
	}
	// A condition that still holds rotates.
	next := keyRecord("k99", 30*time.Minute)
	if err := s.Rotate(ctx, next, keys.Retirement{At: next.ActivateAt, ExpiresAt: next.ActivateAt, IfNewestCreated: keysBase.Add(time.Second)}); err != nil {
		t.Errorf("Rotate conditional on the newest key: %v", err)
	}
}

func keysInvalid(t *testing.T, s keys.Store) {
	ctx := context.Background()
	k1 := keyRecord("k1", 0)
	if _, err := s.InsertFirst(ctx, k1); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name   string
		mutate func(*keys.Record)
	}{
		{"empty kid", func(r *keys.Record) { r.KID = "" }},
		{"unknown alg", func(r *keys.Record) { r.Alg = "HS256" }},
		{"no public key", func(r *keys.Record) { r.PublicJWK = nil }},
		{"no sealed key", func(r *keys.Record) { r.Sealed = nil }},
		{"no kek id", func(r *keys.Record) { r.KEKID = "" }},
		{"no activation", func(r *keys.Record) { r.ActivateAt = time.Time{} }},
		{"activates before published", func(r *keys.Record) { r.ActivateAt = r.PublishAt.Add(-time.Second) }},
	}
	for _, tc := range cases {
		bad := keyRecord("bad", time.Minute)
		tc.mutate(&bad)
		if err := s.Rotate(ctx, bad, keys.Retirement{At: keysBase, ExpiresAt: keysBase}); !errors.Is(err, keys.ErrInvalidRecord) {
			t.Errorf("%s: Rotate = %v, want ErrInvalidRecord", tc.name, err)
		}
	}
	bad := keyRecord("", 0)
	if _, err := s.InsertFirst(ctx, bad); !errors.Is(err, keys.ErrInvalidRecord) {
		t.Errorf("InsertFirst of an invalid record = %v, want ErrInvalidRecord", err)
	}
	sameRecords(t, mustList(t, s), []keys.Record{k1}) // nothing changed
}

func keysListOrder(t *testing.T, s keys.Store) {
	ctx := context.Background()
	kb := keyRecord("b", 0)
	if _, err := s.InsertFirst(ctx, kb); err != nil {
		t.Fatal(err)
	}
	ka := keyRecord("B", 0) // same activation as b: ordered by kid, bytewise
	ka.Alg = keys.EdDSA
	kc := keyRecord("c", -time.Minute) // earlier activation: first
	kc.PublishAt = kc.ActivateAt
	never := keys.Retirement{At: keysBase.Add(time.Hour), ExpiresAt: keysBase.Add(2 * time.Hour)}
	for _, r := range []keys.Record{ka, kc} {
		if err := s.Rotate(ctx, r, never); err != nil {
			t.Fatal(err)
		}
	}
	got := mustList(t, s)
	if want := []string{"c", "B", "b"}; fmt.Sprint(kids(got)) != fmt.Sprint(want) {
		t.Fatalf("List order %v, want %v", kids(got), want)
	}
	if got[1].Alg != keys.EdDSA {
		t.Errorf("alg of B = %q, want EdDSA", got[1].Alg)
	}
	// Returned records are copies.
	got[0].Sealed[0] ^= 0xff
	got[0].PublicJWK[0] = 'X'
	again := mustList(t, s)
	if again[0].Sealed[0] != 's' || again[0].PublicJWK[0] != '{' {
		t.Errorf("changing a listed record changed the store")
	}
}

func keysPrune(t *testing.T, s keys.Store) {
	ctx := context.Background()
	k1 := keyRecord("k1", 0)
	if _, err := s.InsertFirst(ctx, k1); err != nil {
		t.Fatal(err)
	}
	k2 := keyRecord("k2", 10*time.Minute)
	if err := s.Rotate(ctx, k2, keys.Retirement{At: k2.ActivateAt, ExpiresAt: k2.ActivateAt.Add(time.Hour)}); err != nil {
		t.Fatal(err)
	}
	k1.RetireAt, k1.ExpiresAt = k2.ActivateAt, k2.ActivateAt.Add(time.Hour)

	tests := []struct {
		at   time.Time
		want int
		left []keys.Record
	}{
		{k1.ExpiresAt.Add(-time.Microsecond), 0, []keys.Record{k1, k2}}, // still published
		{k1.ExpiresAt, 1, []keys.Record{k2}},                            // expiry is inclusive
		{k1.ExpiresAt.Add(24 * time.Hour), 0, []keys.Record{k2}},        // k2 is unscheduled
	}
	for _, tc := range tests {
		n, err := s.Prune(ctx, tc.at)
		if err != nil || n != tc.want {
			t.Fatalf("Prune(%v) = %d, %v; want %d", tc.at, n, err, tc.want)
		}
		sameRecords(t, mustList(t, s), tc.left)
	}
}
