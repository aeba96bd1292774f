package server_test

import (
	"context"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/typeward/typeward/internal/keys"
	"github.com/typeward/typeward/internal/server"
)

// TestShutdownGoesNotReadyFirst: on shutdown (SIGTERM cancels Serve's
// context) /readyz turns 503 at once while requests are still served for
// the drain delay; only then does the listener close.
func TestShutdownGoesNotReadyFirst(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	base := "http://" + ln.Addr().String()
	const drain = 1500 * time.Millisecond
	cfg := &server.Config{Addr: ln.Addr().String(), Issuer: base, TokenTTL: 5 * time.Minute, SigningAlg: keys.ES256,
		JWKSMaxAge: 15 * time.Minute, RateLimit: 100, RateBurst: 100, LogLevel: "info",
		ShutdownTimeout: 5 * time.Second, DrainDelay: drain}
	ctx, cancel := context.WithCancel(context.Background())
	srv, err := server.New(ctx, cfg, slog.New(slog.NewJSONHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ctx, ln) }()
	client := &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{DisableKeepAlives: true}}
	status := func(path string) int {
		resp, err := client.Get(base + path)
		if err != nil {
			return 0 // refused
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	for status("/readyz") != http.StatusOK {
		time.Sleep(20 * time.Millisecond)
	}
	cancel()
	stopped := time.Now()
	time.Sleep(100 * time.Millisecond)
	if got := status("/readyz"); got != http.StatusServiceUnavailable {
		t.Errorf("/readyz during the drain: %d, want 503", got)
	}
	if got := status("/healthz"); got != http.StatusOK {
		t.Errorf("/healthz during the drain: %d, want 200 (still serving)", got)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if took := time.Since(stopped); took < drain {
		t.Errorf("Serve returned %v after shutdown began, before the %v drain delay", took, drain)
	}
	if got := status("/healthz"); got != 0 {
		t.Errorf("after shutdown: %d, want a refused connection", got)
	}
}

// TestShutdownOutlastsASilentConnection: a connection that never sends a
// request (as a client's spare dial does, made for a request another
// connection then served) must not fail a graceful shutdown: net/http
// waits for it until it is over 5 s old, and the harness's shutdown
// timeout leaves room for that. It failed the harness's 5 s timeout with
// "Serve: context deadline exceeded".
func TestShutdownOutlastsASilentConnection(t *testing.T) {
	t.Parallel()
	var silent net.Conn
	t.Cleanup(func() { // runs after the harness's shutdown
		if silent != nil {
			silent.Close()
		}
	})
	h := start(t, embedded, nil)
	var err error
	silent, err = net.Dial("tcp", strings.TrimPrefix(h.base, "http://"))
	if err != nil {
		t.Fatal(err)
	}
}
