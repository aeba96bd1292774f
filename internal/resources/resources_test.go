package resources_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/typeward/typeward/internal/resources"
	"github.com/typeward/typeward/internal/store/memory"
)

const issuer = "https://auth.example"

func TestCheck(t *testing.T) {
	for _, tc := range []struct {
		r  resources.Resource
		ok bool
	}{
		{resources.Resource{URI: "https://router.example/mcp"}, true},
		{resources.Resource{URI: "http://127.0.0.1:8181/mcp", Name: "local"}, true},
		{resources.Resource{URI: "router.example/mcp"}, false},
		{resources.Resource{URI: "ftp://router.example/mcp"}, false},
		{resources.Resource{URI: "https://router.example/mcp#x"}, false},
		{resources.Resource{URI: "https://auth.example/"}, false},
		{resources.Resource{URI: "https://auth.example"}, false},
		{resources.Resource{URI: "https://r.example/" + strings.Repeat("a", resources.MaxURILen)}, false},
		{resources.Resource{URI: "https://r.example/mcp", Name: strings.Repeat("n", resources.MaxNameLen+1)}, false},
		{resources.Resource{URI: "https://r.example/mcp", Name: "a\nb"}, false},
		{resources.Resource{URI: "https://r.example/mcp", Name: "\xff"}, false},
	} {
		r := tc.r
		err := resources.Check(&r, issuer)
		if (err == nil) != tc.ok {
			t.Errorf("Check(%+v) = %v, want ok %v", tc.r, err, tc.ok)
		}
		if err != nil && !errors.Is(err, resources.ErrInvalid) {
			t.Errorf("Check(%+v) = %v, not ErrInvalid", tc.r, err)
		}
		if err == nil && r.Name == "" {
			t.Errorf("no name given, none defaulted: %+v", r)
		}
	}
}

func TestListJoinsStaticAndStored(t *testing.T) {
	ctx := context.Background()
	static, err := resources.ParseStatic([]string{"https://a.example/mcp"}, issuer)
	if err != nil {
		t.Fatal(err)
	}
	l := &resources.List{Static: static, Store: memory.NewResources(), Issuer: issuer}
	if _, err := l.Add(ctx, resources.Resource{URI: "https://b.example/mcp", Name: "B"}, time.Now()); err != nil {
		t.Fatal(err)
	}
	if _, err := l.Add(ctx, resources.Resource{URI: "https://a.example/mcp"}, time.Now()); !errors.Is(err, resources.ErrConflict) {
		t.Errorf("adding a static resource: %v, want ErrConflict", err)
	}
	if _, err := l.Add(ctx, resources.Resource{URI: issuer}, time.Now()); !errors.Is(err, resources.ErrInvalid) {
		t.Errorf("adding the issuer: %v, want ErrInvalid", err)
	}
	all, err := l.All(ctx)
	if err != nil || len(all) != 2 || all[0].URI != "https://a.example/mcp" || !all[0].Static || all[1].Name != "B" {
		t.Fatalf("All = %+v, %v", all, err)
	}
	for uri, want := range map[string]bool{"https://a.example/mcp": true, "https://b.example/mcp": true, "https://b.example/mcp/": false} {
		if got, err := l.Has(ctx, uri); err != nil || got != want {
			t.Errorf("Has(%s) = %v, %v; want %v", uri, got, err, want)
		}
	}
	if err := l.Delete(ctx, "https://a.example/mcp"); !errors.Is(err, resources.ErrInvalid) {
		t.Errorf("deleting a static resource: %v, want ErrInvalid", err)
	}
	if err := l.Delete(ctx, "https://b.example/mcp"); err != nil {
		t.Fatal(err)
	}
	if _, err := resources.ParseStatic([]string{"https://a.example/mcp", "https://a.example/mcp"}, issuer); err == nil {
		t.Error("a resource listed twice in --resources was accepted")
	}
}

// TestListTTL: with a TTL the store's list is read once per TTL; changes
// through the List apply at once, another writer's within the TTL.
func TestListTTL(t *testing.T) {
	ctx := context.Background()
	store := memory.NewResources()
	now := time.Now()
	l := &resources.List{Store: store, Issuer: issuer, TTL: 10 * time.Second, Now: func() time.Time { return now }}
	if all, _ := l.All(ctx); len(all) != 0 {
		t.Fatal(all)
	}
	if _, err := l.Add(ctx, resources.Resource{URI: "https://a.example/mcp"}, now); err != nil {
		t.Fatal(err)
	}
	if all, _ := l.All(ctx); len(all) != 1 {
		t.Fatalf("a resource added through the list is not seen at once: %v", all)
	}
	// Another replica's change.
	if err := store.Add(ctx, resources.Resource{URI: "https://b.example/mcp", Name: "b", CreatedAt: now}); err != nil {
		t.Fatal(err)
	}
	if all, _ := l.All(ctx); len(all) != 1 {
		t.Fatalf("the list was read again within its TTL: %v", all)
	}
	now = now.Add(11 * time.Second)
	if all, _ := l.All(ctx); len(all) != 2 {
		t.Fatalf("another writer's resource is not seen after the TTL: %v", all)
	}
}
