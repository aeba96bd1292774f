package httpapi

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/go-chi/chi/v5"

	"github.com/typeward/typeward/internal/clients"
	"github.com/typeward/typeward/internal/metrics"
	"github.com/typeward/typeward/internal/registry"
)

// testRouter is a router with one route that panics, one that reads its
// body under a limit, and one that fails with an internal error.
func testRouter(log *slog.Logger, m *metrics.Metrics) http.Handler {
	r := chi.NewRouter()
	r.Use(requestID, observe(log, m))
	r.Get("/panic/{id}", func(http.ResponseWriter, *http.Request) { panic("boom") })
	r.With(limitBody(16, refuseLargeOAuth)).Post("/body", func(w http.ResponseWriter, r *http.Request) {
		(&oauthHandlers{log: log}).form(w, r)
	})
	r.Get("/internal", func(w http.ResponseWriter, r *http.Request) {
		writeProblem(w, r, log, fmt.Errorf("dial tcp 10.0.0.7:5432: secret detail"))
	})
	return r
}

func TestMiddleware(t *testing.T) {
	var logs bytes.Buffer
	log := slog.New(slog.NewJSONHandler(&logs, nil))
	m := metrics.New(metrics.Options{})
	h := testRouter(log, m)

	// A panic costs one request, is answered 500 and logged with its stack.
	rec := httptest.NewRecorder()
	req := httptest.NewRequest(http.MethodGet, "/panic/42", nil)
	req.Header.Set("X-Request-Id", "caller-id-1")
	h.ServeHTTP(rec, req)
	if rec.Code != http.StatusInternalServerError || rec.Header().Get("X-Request-Id") != "caller-id-1" {
		t.Errorf("panic answered %d, request id %q", rec.Code, rec.Header().Get("X-Request-Id"))
	}
	if !strings.Contains(logs.String(), `"panic":"boom"`) || !strings.Contains(logs.String(), `"request_id":"caller-id-1"`) {
		t.Errorf("panic not logged with its request id: %s", logs.String())
	}
	// Counted under the route pattern, not the path.
	want := `typeward_http_request_duration_seconds_count{method="GET",route="/panic/{id}",status="500"} 1`
	exp := httptest.NewRecorder()
	m.Handler().ServeHTTP(exp, httptest.NewRequest(http.MethodGet, "/metrics", nil))
	if !strings.Contains(exp.Body.String(), want) {
		t.Errorf("metrics lack %s", want)
	}

	// An access log line per request, as JSON.
	var line map[string]any
	lines := strings.Split(strings.TrimSpace(logs.String()), "\n")
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &line); err != nil || line["route"] != "/panic/{id}" || line["status"] != float64(500) {
		t.Errorf("access log line %v (%v)", line, err)
	}

	// A request id that is not sane is replaced.
	rec = httptest.NewRecorder()
	req = httptest.NewRequest(http.MethodGet, "/panic/1", nil)
	req.Header.Set("X-Request-Id", "bad id\n")
	h.ServeHTTP(rec, req)
	if id := rec.Header().Get("X-Request-Id"); id == "" || strings.ContainsAny(id, " \n") {
		t.Errorf("request id %q", id)
	}
}

// TestMethodLabelIsBounded: a made-up method is counted as "other", so a
// client cannot add label values at will.
func TestMethodLabelIsBounded(t *testing.T) {
	m := metrics.New(metrics.Options{})
	h := testRouter(slog.New(slog.DiscardHandler), m)
	for _, method := range []string{"BREW", "PROPFIND", http.MethodGet} {
		h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(method, "/nowhere", nil))
	}
	exp := httptest.NewRecorder()
	m.Handler().ServeHTTP(exp, httptest.NewRequest(http.MethodGet, "/metrics", nil))
	for _, want := range []string{`method="other",route="unmatched",status="405"} 2`, `method="GET",route="unmatched",status="404"} 1`} {
		if !strings.Contains(exp.Body.String(), want) {
			t.Errorf("metrics lack %s", want)
		}
	}
	if strings.Contains(exp.Body.String(), "BREW") {
		t.Errorf("a made-up method became a label value")
	}
}

func TestBodyLimits(t *testing.T) {
	h := testRouter(slog.New(slog.DiscardHandler), metrics.New(metrics.Options{}))
	tests := []struct {
		name    string
		body    string
		chunked bool
		want    int
	}{
		{"within", "a=b", false, http.StatusOK},
		{"declared beyond", strings.Repeat("a", 17), false, http.StatusRequestEntityTooLarge},
		{"streamed beyond", strings.Repeat("a", 17), true, http.StatusRequestEntityTooLarge},
	}
	for _, tt := range tests {
		req := httptest.NewRequest(http.MethodPost, "/body", strings.NewReader(tt.body))
		if tt.chunked {
			req.ContentLength = -1
		}
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code != tt.want {
			t.Errorf("%s: %d, want %d", tt.name, rec.Code, tt.want)
		}
		if tt.want == http.StatusRequestEntityTooLarge && !strings.Contains(rec.Body.String(), `"error":"invalid_request"`) {
			t.Errorf("%s: body %s", tt.name, rec.Body)
		}
	}
}

func TestInternalErrorsAreNotEchoed(t *testing.T) {
	var logs bytes.Buffer
	h := testRouter(slog.New(slog.NewJSONHandler(&logs, nil)), metrics.New(metrics.Options{}))
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/internal", nil))
	if rec.Code != 500 || strings.Contains(rec.Body.String(), "secret detail") || rec.Header().Get("Content-Type") != "application/problem+json" {
		t.Errorf("internal error answered %d %s", rec.Code, rec.Body)
	}
	if !strings.Contains(logs.String(), "secret detail") {
		t.Errorf("the cause was not logged")
	}
}

func TestAdminProblemStatuses(t *testing.T) {
	tests := []struct {
		err  error
		want int
	}{
		{fmt.Errorf("tool x: %w", registry.ErrNotFound), 404},
		{fmt.Errorf("client: %w", clients.ErrNotFound), 404},
		{fmt.Errorf("x: %w", registry.ErrConflict), 409},
		{fmt.Errorf("x: %w", registry.ErrAmbiguous), 409},
		{&clients.ValidationError{Problems: []clients.Problem{{Field: "/client_name", Message: "is required"}}}, 400},
		{fmt.Errorf("x: %w", registry.ErrInvalidComposition), 400},
		{&http.MaxBytesError{Limit: 1}, 413},
		{errors.New("connection refused"), 500},
	}
	for _, tt := range tests {
		if got := adminProblem(tt.err); got.Status != tt.want {
			t.Errorf("%v: %d, want %d", tt.err, got.Status, tt.want)
		}
	}
	if p := adminProblem(errors.New("connection refused to 10.1.2.3")); strings.Contains(p.Detail, "10.1.2.3") {
		t.Errorf("internal detail echoed: %q", p.Detail)
	}
}

func TestETagMatches(t *testing.T) {
	tests := []struct {
		header string
		want   bool
	}{
		{"", false}, {`"abc"`, true}, {`W/"abc"`, true}, {`"x", "abc"`, true}, {"*", true}, {`"abd"`, false},
	}
	for _, tt := range tests {
		if got := etagMatches(tt.header, `"abc"`); got != tt.want {
			t.Errorf("If-None-Match %q: %v", tt.header, got)
		}
	}
}
