package storetest

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/typeward/typeward/internal/resources"
)

// RunResources is the conformance suite of resources.Store.
func RunResources(t *testing.T, newStore func(t *testing.T) resources.Store) {
	ctx := context.Background()
	at := time.Date(2026, 12, 1, 10, 0, 0, 123456000, time.UTC)

	t.Run("AddListDelete", func(t *testing.T) {
		t.Parallel()
		s := newStore(t)
		if got, err := s.List(ctx); err != nil || len(got) != 0 {
			t.Fatalf("empty list = %v, %v", got, err)
		}
		b := resources.Resource{URI: "https://b.example/mcp", Name: "B", CreatedAt: at}
		a := resources.Resource{URI: "https://a.example/mcp", Name: "A", CreatedAt: at}
		c := resources.Resource{URI: "https://c.example/mcp", Name: "C", CreatedAt: at.Add(-time.Hour)}
		for _, r := range []resources.Resource{b, a, c} {
			if err := s.Add(ctx, r); err != nil {
				t.Fatal(err)
			}
		}
		got, err := s.List(ctx)
		if err != nil {
			t.Fatal(err)
		}
		want := []resources.Resource{c, a, b} // oldest first, ties by URI
		if len(got) != len(want) {
			t.Fatalf("list = %+v", got)
		}
		for i := range want {
			if got[i].URI != want[i].URI || got[i].Name != want[i].Name || !got[i].CreatedAt.Equal(want[i].CreatedAt) {
				t.Errorf("list[%d] = %+v, want %+v", i, got[i], want[i])
			}
		}
		if err := s.Delete(ctx, a.URI); err != nil {
			t.Fatal(err)
		}
		if got, _ := s.List(ctx); len(got) != 2 || got[0].URI != c.URI || got[1].URI != b.URI {
			t.Errorf("after delete: %+v", got)
		}
	})

	t.Run("Sentinels", func(t *testing.T) {
		t.Parallel()
		s := newStore(t)
		r := resources.Resource{URI: "https://a.example/mcp", Name: "A", CreatedAt: at}
		if err := s.Add(ctx, r); err != nil {
			t.Fatal(err)
		}
		if err := s.Add(ctx, r); !errors.Is(err, resources.ErrConflict) {
			t.Errorf("second add: %v, want ErrConflict", err)
		}
		if err := s.Delete(ctx, "https://other.example/mcp"); !errors.Is(err, resources.ErrNotFound) {
			t.Errorf("delete unknown: %v, want ErrNotFound", err)
		}
		// Resources compare as exact strings: a trailing slash is another.
		if err := s.Delete(ctx, r.URI+"/"); !errors.Is(err, resources.ErrNotFound) {
			t.Errorf("delete with a trailing slash: %v, want ErrNotFound", err)
		}
	})
}
