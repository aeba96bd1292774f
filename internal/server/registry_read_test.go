package server_test

import (
	"encoding/json"
	"net/http"
	"strconv"
	"testing"

	"github.com/typeward/typeward/verify"
)

// The public registry endpoint serves an immutable version verbatim, with
// forever-caching headers and the digest as ETag, on both stores; the
// digest it names is the one recomputed from the schemas it serves.
func TestRegistryReadEndpoint(t *testing.T) {
	t.Parallel()
	for _, m := range []mode{embedded, database} {
		t.Run(string(m), func(t *testing.T) {
			t.Parallel()
			h := start(t, m, nil)
			tok := h.adminToken()
			const in = `{"type": "object", "properties": {"q": {"type": "string", "maxLength": 1.0E2}}}`
			if r := h.admin(http.MethodPut, "/admin/v1/tools/srv%2Fsearch", tok, []byte(`{"inputSchema":`+in+`}`)); r.status != http.StatusCreated {
				t.Fatalf("declare: %d %s", r.status, r.body)
			}
			r := h.get("/registry/v1/tools/srv%2Fsearch/versions/1")
			var v struct {
				Name         string          `json:"name"`
				Version      int             `json:"version"`
				Digest       string          `json:"digest"`
				InputSchema  json.RawMessage `json:"inputSchema"`
				OutputSchema json.RawMessage `json:"outputSchema"`
			}
			r.json(t, &v)
			want, err := verify.DeclarationDigest([]byte(in), nil)
			if err != nil {
				t.Fatal(err)
			}
			if r.status != http.StatusOK || v.Name != "srv/search" || v.Version != 1 || v.Digest != want || v.OutputSchema != nil {
				t.Fatalf("version: %d %+v, want digest %s", r.status, v, want)
			}
			if got, _ := verify.DeclarationDigest(v.InputSchema, v.OutputSchema); got != want {
				t.Errorf("the served schemas digest to %s, not %s", got, want)
			}
			if cc, etag := r.header.Get("Cache-Control"), r.header.Get("ETag"); cc != "public, max-age=31536000, immutable" || etag != strconv.Quote(want) {
				t.Errorf("headers Cache-Control %q ETag %q", cc, etag)
			}
			req, _ := http.NewRequest(http.MethodGet, h.base+"/registry/v1/tools/srv%2Fsearch/versions/1", nil)
			req.Header.Set("If-None-Match", strconv.Quote(want))
			if r := h.do(req); r.status != http.StatusNotModified || len(r.body) != 0 {
				t.Errorf("revalidation: %d %s", r.status, r.body)
			}
			// A bare name resolves when one server has it.
			if r := h.get("/registry/v1/tools/search/versions/1"); r.status != http.StatusOK {
				t.Errorf("bare name: %d %s", r.status, r.body)
			}
			for path, status := range map[string]int{
				"/registry/v1/tools/srv%2Fsearch/versions/2":      http.StatusNotFound,
				"/registry/v1/tools/nope/versions/1":              http.StatusNotFound,
				"/registry/v1/tools/srv%2Fsearch/versions/0":      http.StatusBadRequest,
				"/registry/v1/tools/srv%2Fsearch/versions/latest": http.StatusBadRequest,
				"/registry/v1/tools/srv%2Fsearch/versions/-1":     http.StatusBadRequest,
			} {
				if r := h.get(path); r.status != status || r.header.Get("Cache-Control") == "public, max-age=31536000, immutable" {
					t.Errorf("%s: %d %v, want %d, not cached forever", path, r.status, r.header, status)
				}
			}
		})
	}
}
