package server

import (
	"context"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/typeward/typeward/internal/keys"
	"github.com/typeward/typeward/internal/store/postgres/pgtest"
)

// TestReadinessFollowsTheDatabase: /readyz is 503 once the store cannot
// be reached, and says why only in the log.
func TestReadinessFollowsTheDatabase(t *testing.T) {
	_, schemaName := pgtest.New(t)
	kek, err := keys.GenerateKEK()
	if err != nil {
		t.Fatal(err)
	}
	cfg := &Config{Addr: "127.0.0.1:0", Issuer: "http://typeward.test", TokenTTL: 5 * time.Minute, SigningAlg: keys.ES256,
		JWKSMaxAge: time.Minute, RateLimit: 10, RateBurst: 10, DatabaseURL: pgtest.SchemaURL(schemaName),
		KEK: kek, Pepper: []byte("a pepper of at least thirty-two bytes...")}
	var logs strings.Builder
	srv, err := New(context.Background(), cfg, slog.New(slog.NewJSONHandler(&logs, nil)))
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	probe := func() (int, string) {
		rec := httptest.NewRecorder()
		srv.Handler().ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/readyz", nil))
		return rec.Code, strings.TrimSpace(rec.Body.String())
	}
	if code, body := probe(); code != http.StatusOK || body != `{"status":"ready"}` {
		t.Fatalf("with the database up: %d %s", code, body)
	}
	srv.stores.db.Close()
	if code, body := probe(); code != http.StatusServiceUnavailable || body != `{"status":"unavailable"}` {
		t.Errorf("with the database gone: %d %s", code, body)
	}
	if !strings.Contains(logs.String(), `"msg":"not ready"`) || !strings.Contains(logs.String(), "database") {
		t.Errorf("the reason was not logged: %s", logs.String())
	}
}
