package registry_test

import (
	"context"
	"encoding/json"
	"slices"
	"testing"

	"github.com/typeward/typeward/internal/registry"
	"github.com/typeward/typeward/internal/store/memory"
)

func TestImportAndCompareAgainstTheApprovedSnapshot(t *testing.T) {
	ctx := context.Background()
	s := memory.NewRegistry()
	v1 := []registry.Tool{mk("search", inQ, outHits), mk("fetch", inQ, "")}
	snap, findings, err := registry.ImportAndCompare(ctx, s, "srv", "v1.json", v1)
	if err != nil {
		t.Fatal(err)
	}
	if got := codes(findings); !slices.Equal(got, []string{"search added", "fetch added"}) {
		t.Errorf("first import findings %v, want every tool added", got)
	}
	if _, err := s.ApproveSnapshot(ctx, "srv", snap.ID); err != nil {
		t.Fatal(err)
	}

	respelled := []registry.Tool{with(v1[0], func(t *registry.Tool) { t.InputSchema = json.RawMessage(inQRespelt) }), v1[1]}
	if _, findings, err = registry.ImportAndCompare(ctx, s, "srv", "v1-again.json", respelled); err != nil || len(findings) != 0 {
		t.Errorf("respelled import: %v, %v; want no drift", findings, err)
	}
	moved := []registry.Tool{v1[1], v1[0]}
	if _, findings, err = registry.ImportAndCompare(ctx, s, "srv", "v2.json", moved); err != nil {
		t.Fatal(err)
	}
	if got := codes(findings); !slices.Equal(got, []string{" order_changed"}) {
		t.Errorf("reordered import findings %v", got)
	}
	if _, _, err := registry.ImportAndCompare(ctx, s, "bad server", "", v1); err == nil {
		t.Error("a bad server name imported")
	}
}

func codes(fs []registry.Finding) []string {
	var out []string
	for _, f := range fs {
		out = append(out, f.Tool+" "+f.Code)
	}
	return out
}
