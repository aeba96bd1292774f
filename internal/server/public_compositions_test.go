package server_test

import (
	"net/http"
	"os"
	"strings"
	"testing"
)

// TestPublicCompositionList: the registry lists the valid stored
// compositions with their tools' digests, never an invalid one and never
// a definition, on both stores.
func TestPublicCompositionList(t *testing.T) {
	withExamples(t, func(t *testing.T, h *harness, admin string) {
		{
			valid, _ := os.ReadFile("../../examples/pipeline-readonly.json")
			invalid, _ := os.ReadFile("../../examples/pipeline-invalid.json")
			if r := h.admin(http.MethodPut, "/admin/v1/compositions/report", admin, valid); r.status >= 300 {
				t.Fatalf("store: %d %s", r.status, r.body)
			}
			h.admin(http.MethodPut, "/admin/v1/compositions/broken", admin, invalid)
			req, _ := http.NewRequest(http.MethodGet, h.base+"/registry/v1/compositions", nil)
			r := h.do(req)
			var out struct {
				Compositions []struct {
					Name  string
					Tools []struct{ Name, Digest string }
				}
			}
			r.json(t, &out)
			if r.status != http.StatusOK || len(out.Compositions) != 1 || out.Compositions[0].Name != "report" ||
				len(out.Compositions[0].Tools) == 0 || !strings.HasPrefix(out.Compositions[0].Tools[0].Digest, "sha256:") {
				t.Fatalf("list: %d %s", r.status, r.body)
			}
			if strings.Contains(string(r.body), "edges") || r.header.Get("Cache-Control") != "public, max-age=30" {
				t.Errorf("the listing shows a definition or is not cacheable: %s %v", r.body, r.header)
			}
		}
	})
}
