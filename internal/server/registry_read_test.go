package server_test

import (
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/typeward/typeward/internal/server"
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

// TestBareNameIsNotCachedForever: a bare name is an alias, the tool of the
// one server that declares it now; when that server drops the tool and
// another declares it, the same URL serves other schemas. Before, both
// answers said immutable for a year, so a router or CDN that cached the
// first kept validating against the old server's schema. The qualified
// name's answer stays cached forever; the alias's must be revalidated.
func TestBareNameIsNotCachedForever(t *testing.T) {
	t.Parallel()
	for _, m := range []mode{embedded, database} {
		t.Run(string(m), func(t *testing.T) {
			t.Parallel()
			h := start(t, m, func(c *server.Config) { c.Registry = "" })
			tok := h.adminToken()
			approve := func(server, tools string) {
				t.Helper()
				r := h.admin(http.MethodPost, "/admin/v1/servers/"+server+"/snapshots", tok, []byte(`{"tools":`+tools+`}`))
				var snap struct {
					ID int64 `json:"id"`
				}
				r.json(t, &snap)
				if r.status != http.StatusCreated {
					t.Fatalf("import %s: %d %s", server, r.status, r.body)
				}
				if r := h.admin(http.MethodPost, "/admin/v1/servers/"+server+"/snapshots/"+strconv.FormatInt(snap.ID, 10)+"/approve", tok, nil); r.status != http.StatusOK {
					t.Fatalf("approve %s: %d %s", server, r.status, r.body)
				}
			}
			approve("one", `[{"name":"zz","inputSchema":{"type":"object","properties":{"a":{"type":"string"}}}}]`)
			first := h.get("/registry/v1/tools/zz/versions/1")
			approve("one", `[{"name":"other","inputSchema":{"type":"object"}}]`)
			approve("two", `[{"name":"zz","inputSchema":{"type":"object","properties":{"a":{"type":"integer"}}}}]`)
			second := h.get("/registry/v1/tools/zz/versions/1")
			if first.status != http.StatusOK || second.status != http.StatusOK {
				t.Fatalf("bare name: %d then %d", first.status, second.status)
			}
			if first.header.Get("ETag") == second.header.Get("ETag") {
				t.Fatalf("the test needs two different schemas under one URL")
			}
			for i, r := range []response{first, second} {
				if cc := r.header.Get("Cache-Control"); strings.Contains(cc, "immutable") || !strings.Contains(cc, "no-cache") {
					t.Errorf("answer %d for a bare name: Cache-Control %q, want it revalidated (no-cache), never immutable", i+1, cc)
				}
			}
			if cc := h.get("/registry/v1/tools/two%2Fzz/versions/1").header.Get("Cache-Control"); cc != "public, max-age=31536000, immutable" {
				t.Errorf("qualified name: Cache-Control %q", cc)
			}
		})
	}
}
