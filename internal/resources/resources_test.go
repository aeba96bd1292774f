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
