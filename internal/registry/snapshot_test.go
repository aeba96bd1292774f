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
	cmp, err := registry.ImportAndCompare(ctx, s, "srv", "v1.json", v1)
	if err != nil {
		t.Fatal(err)
	}
	snap := cmp.Snapshot
	if got := codes(cmp.Drift); cmp.Approved != nil || !slices.Equal(got, []string{"search added", "fetch added"}) {
		t.Errorf("first import findings %v, want every tool added", got)
	}
	if _, err := s.ApproveSnapshot(ctx, "srv", snap.ID); err != nil {
		t.Fatal(err)
	}

	respelled := []registry.Tool{with(v1[0], func(t *registry.Tool) { t.InputSchema = json.RawMessage(inQRespelt) }), v1[1]}
	if cmp, err = registry.ImportAndCompare(ctx, s, "srv", "v1-again.json", respelled); err != nil || len(cmp.Drift) != 0 ||
		cmp.Approved == nil || cmp.Approved.ID != snap.ID {
		t.Errorf("respelled import: %+v, %v; want no drift against snapshot %d", cmp, err, snap.ID)
	}
	moved := []registry.Tool{v1[1], v1[0]}
	if cmp, err = registry.ImportAndCompare(ctx, s, "srv", "v2.json", moved); err != nil {
		t.Fatal(err)
	}
	if got := codes(cmp.Drift); !slices.Equal(got, []string{" order_changed"}) {
		t.Errorf("reordered import findings %v", got)
	}
	for _, server := range []string{"bad server", ""} {
		if _, err := registry.ImportAndCompare(ctx, s, server, "", v1); err == nil {
			t.Errorf("server name %q imported", server)
		}
	}
}

func codes(fs []registry.Finding) []string {
	var out []string
	for _, f := range fs {
		out = append(out, f.Tool+" "+f.Code)
	}
	return out
}

// TestImportFile: the admin API's import reads any tools file shape,
// keeps declaration problems as drift rather than refusing them, and
// takes the list of the server named.
func TestImportFile(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name, server, file string
		want               []string // drift codes; nil with wantErr
		wantErr            bool
	}{
		{"plain tools/list", "srv", `{"tools":[{"name":"search","inputSchema":{"type":"object"}}]}`, []string{"search added"}, false},
		{"the server's list among several", "b", `{"servers":[{"server":"a","tools":[]},{"server":"b","tools":[{"name":"x","inputSchema":{"type":"object"}}]}]}`,
			[]string{"x added"}, false},
		{"a problem is drift, not a refusal", "srv", `[{"name":"bad name","inputSchema":{"type":"object"}}]`, nil, false},
		{"another server's list", "c", `{"servers":[{"server":"a","tools":[]},{"server":"b","tools":[]}]}`, nil, true},
		{"a list naming another server", "a", `{"servers":[{"server":"b","tools":[]}]}`, nil, true},
		{"not a tools file", "srv", `{"nodes":[]}`, nil, true},
		{"no server", "", `[]`, nil, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cmp, err := registry.ImportFile(ctx, memory.NewRegistry(), tt.server, "test", []byte(tt.file))
			if tt.wantErr {
				if err == nil {
					t.Fatalf("imported %+v", cmp)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if cmp.Snapshot.Server != tt.server || cmp.Approved != nil || cmp.Drift == nil {
				t.Errorf("comparison %+v", cmp)
			}
			if got := codes(cmp.Drift); tt.want != nil && !slices.Equal(got, tt.want) {
				t.Errorf("drift %v, want %v", got, tt.want)
			}
			if tt.want == nil && len(cmp.Drift) == 0 {
				t.Error("the declaration problem is not reported as drift")
			}
		})
	}
}
