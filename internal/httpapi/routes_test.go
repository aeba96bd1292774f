package httpapi

import (
	"log/slog"
	"net/http"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/go-chi/chi/v5"
	"go.yaml.in/yaml/v3"

	"github.com/typeward/typeward/internal/metrics"
	"github.com/typeward/typeward/internal/oauth"
)

// routes lists "METHOD /path" for every route of the router.
func routes(t *testing.T) []string {
	r := NewRouter(Config{OAuth: &oauth.Service{}, Admin: &Admin{}, Console: http.NotFoundHandler(), Metrics: metrics.New(metrics.Options{}), Log: slog.New(slog.DiscardHandler)})
	var out []string
	err := chi.Walk(r.(chi.Routes), func(method, route string, _ http.Handler, _ ...func(http.Handler) http.Handler) error {
		out = append(out, method+" "+strings.TrimSuffix(route, "/*"))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(out)
	return out
}

type openAPI struct {
	OpenAPI string                    `yaml:"openapi"`
	Paths   map[string]map[string]any `yaml:"paths"`
}

func loadSpec(t *testing.T) (openAPI, map[string]any) {
	raw, err := os.ReadFile("../../api/openapi.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var spec openAPI
	if err := yaml.Unmarshal(raw, &spec); err != nil {
		t.Fatalf("api/openapi.yaml: %v", err)
	}
	var doc map[string]any
	if err := yaml.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	return spec, doc
}

var httpMethods = []string{"get", "put", "post", "delete", "patch", "head", "options", "trace"}

// TestOpenAPIMatchesRouter fails on a route the spec does not describe and
// on a spec operation no route serves.
func TestOpenAPIMatchesRouter(t *testing.T) {
	spec, _ := loadSpec(t)
	if !strings.HasPrefix(spec.OpenAPI, "3.1") {
		t.Errorf("openapi %q, want 3.1.x", spec.OpenAPI)
	}
	var described []string
	for path, item := range spec.Paths {
		for key, op := range item {
			if !slices.Contains(httpMethods, key) {
				continue
			}
			described = append(described, strings.ToUpper(key)+" "+path)
			if m, _ := op.(map[string]any); m["responses"] == nil {
				t.Errorf("%s %s has no responses", key, path)
			}
		}
	}
	slices.Sort(described)
	served := routes(t)
	for _, r := range served {
		if !slices.Contains(described, r) {
			t.Errorf("route %s is not in api/openapi.yaml", r)
		}
	}
	for _, d := range described {
		if !slices.Contains(served, d) {
			t.Errorf("api/openapi.yaml describes %s, which no route serves", d)
		}
	}
	if len(served) == 0 || len(described) == 0 {
		t.Errorf("nothing compared: %d routes, %d operations", len(served), len(described))
	}
}

// TestOpenAPIReferencesResolve: every $ref names a component that exists.
func TestOpenAPIReferencesResolve(t *testing.T) {
	_, doc := loadSpec(t)
	var walk func(v any)
	walk = func(v any) {
		switch v := v.(type) {
		case map[string]any:
			if ref, ok := v["$ref"].(string); ok {
				if _, found := lookupPointer(doc, strings.TrimPrefix(ref, "#")); !found {
					t.Errorf("unresolved $ref %s", ref)
				}
			}
			for _, child := range v {
				walk(child)
			}
		case []any:
			for _, child := range v {
				walk(child)
			}
		}
	}
	walk(doc)
}

func lookupPointer(doc map[string]any, pointer string) (any, bool) {
	var cur any = doc
	for _, tok := range strings.Split(strings.TrimPrefix(pointer, "/"), "/") {
		m, ok := cur.(map[string]any)
		if !ok {
			return nil, false
		}
		if cur, ok = m[strings.ReplaceAll(strings.ReplaceAll(tok, "~1", "/"), "~0", "~")]; !ok {
			return nil, false
		}
	}
	return cur, true
}

// TestOpenAPIListsRefusalsToRetry: every operation that can be refused for
// now lists it with its Retry-After. 503 comes from a database that does
// not answer or a request past its deadline, so every operation that reads
// the store has it: the OAuth endpoints, the admin API (its bearer check
// reads the store), the public registry and the console's signed-in pages. 429 comes from the limiters:
// the token and backchannel endpoints' per-client limit, the failed
// client authentication limit on every endpoint that authenticates a
// client, console sign-in backoff and the guard on manual key rotation.
func TestOpenAPIListsRefusalsToRetry(t *testing.T) {
	_, doc := loadSpec(t)
	rateLimited := []string{"POST /oauth2/token", "POST /oauth2/bc-authorize", "POST /oauth2/introspect",
		"POST /oauth2/revoke", "POST /console/signin", "POST /admin/v1/keys:rotate"}
	// The console pages that read no store: a redirect, the form, the stylesheet.
	storeFree := []string{"GET /console/", "GET /console/signin", "GET /console/static/{file}"}
	unavailable := func(op string) bool {
		_, path, _ := strings.Cut(op, " ")
		if slices.Contains(storeFree, op) {
			return false
		}
		return strings.HasPrefix(path, "/oauth2/") || strings.HasPrefix(path, "/admin/v1/") || strings.HasPrefix(path, "/registry/v1/") ||
			strings.HasPrefix(path, "/console/")
	}
	resolve := func(v any) map[string]any {
		m, _ := v.(map[string]any)
		if ref, ok := m["$ref"].(string); ok {
			r, _ := lookupPointer(doc, strings.TrimPrefix(ref, "#"))
			m, _ = r.(map[string]any)
		}
		return m
	}
	checked := 0
	paths, _ := doc["paths"].(map[string]any)
	for path, item := range paths {
		for method, op := range item.(map[string]any) {
			if !slices.Contains(httpMethods, method) {
				continue
			}
			name := strings.ToUpper(method) + " " + path
			responses := resolve(resolve(op)["responses"])
			for status, want := range map[string]bool{"429": slices.Contains(rateLimited, name), "503": unavailable(name)} {
				resp, listed := responses[status]
				if want && !listed {
					t.Errorf("%s does not list %s", name, status)
				}
				if !listed || path == "/readyz" { // a probe's 503 is its answer, not a refusal to retry
					continue
				}
				checked++
				header := resolve(resolve(resolve(resp)["headers"])["Retry-After"])
				if header == nil || header["required"] != true {
					t.Errorf("%s %s lacks a required Retry-After header", name, status)
				}
			}
		}
	}
	if checked < len(rateLimited)+20 {
		t.Errorf("only %d 429/503 answers checked", checked)
	}
}
