package main

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"
)

// syncBuffer is a bytes.Buffer safe for the server's goroutines.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

func TestServeRejectsBadConfigurationAtOnce(t *testing.T) {
	code, _, stderr := run("serve", "--token-ttl", "2h", "--signing-alg", "HS256", "--migrate")
	if code != exitBadInput {
		t.Fatalf("exit %d, want %d; stderr:\n%s", code, exitBadInput, stderr)
	}
	for _, want := range []string{"invalid configuration", "--token-ttl", "--signing-alg", "--migrate needs a database"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}
}

// TestServeFlagErrorsOnce: an unknown flag is reported once, with where
// to look, and --help lists the flags and exits 0.
func TestServeFlagErrorsOnce(t *testing.T) {
	code, _, stderr := run("serve", "--frobnicate")
	if code != exitBadInput || strings.Count(stderr, "frobnicate") != 1 || !strings.Contains(stderr, "see typeward serve --help") {
		t.Errorf("exit %d, stderr:\n%s", code, stderr)
	}
	code, _, stderr = run("serve", "--help")
	if code != exitOK || !strings.Contains(stderr, "--addr host:port") || !strings.Contains(stderr, "env TYPEWARD_MIGRATE") {
		t.Errorf("exit %d, help:\n%s", code, stderr)
	}
}

// TestServeEmbeddedAndGracefulStop runs `typeward serve` in the embedded
// default, checks it answers, and stops it as SIGTERM would.
func TestServeEmbeddedAndGracefulStop(t *testing.T) {
	var stderr syncBuffer
	m := &Main{Stdin: strings.NewReader(""), Stdout: &bytes.Buffer{}, Stderr: &stderr,
		Getenv: func(string) string { return "" }}
	ctx, cancel := context.WithCancel(context.Background())
	exited := make(chan int, 1)
	go func() {
		// Both listeners on free ports: the default metrics port may be
		// taken by another typeward on this machine.
		exited <- m.Run(ctx, []string{"serve", "--addr", "127.0.0.1:0", "--metrics-addr", "127.0.0.1:0", "--registry", "../../examples/registry.json"})
	}()

	var addr, issuer string
	for deadline := time.Now().Add(10 * time.Second); addr == "" && time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		for _, line := range strings.Split(stderr.String(), "\n") {
			var entry struct{ Msg, Addr, Issuer string }
			if json.Unmarshal([]byte(line), &entry) == nil && entry.Msg == "typeward serving" {
				addr, issuer = entry.Addr, entry.Issuer
			}
		}
	}
	if addr == "" {
		cancel()
		t.Fatalf("no serving line:\n%s", stderr.String())
	}
	if !strings.Contains(stderr.String(), "export TYPEWARD_DEMO_CLIENT_SECRET=") {
		t.Errorf("the demo client was not printed:\n%s", stderr.String())
	}
	resp, err := http.Get("http://" + addr + "/readyz")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Errorf("/readyz: %d", resp.StatusCode)
	}
	// Port 0 picks a free port, and the derived issuer names that port.
	if issuer != "http://"+addr || !strings.Contains(stderr.String(), "console approver at "+issuer+"/console") {
		t.Errorf("issuer %q for a server at %s:\n%s", issuer, addr, stderr.String())
	}
	resp, err = http.Get("http://" + addr + "/.well-known/oauth-authorization-server")
	if err != nil {
		t.Fatal(err)
	}
	var meta struct{ Issuer string }
	err = json.NewDecoder(resp.Body).Decode(&meta)
	resp.Body.Close()
	if err != nil || meta.Issuer != issuer {
		t.Errorf("metadata issuer %q (%v), want %q", meta.Issuer, err, issuer)
	}
	cancel()
	select {
	case code := <-exited:
		if code != exitOK {
			t.Errorf("exit %d after the stop signal:\n%s", code, stderr.String())
		}
	case <-time.After(10 * time.Second):
		t.Fatal("serve did not stop")
	}
	if !strings.Contains(stderr.String(), "shutting down") {
		t.Errorf("no graceful shutdown logged")
	}
}
