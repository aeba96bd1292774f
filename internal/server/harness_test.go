package server_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/typeward/typeward/internal/keys"
	"github.com/typeward/typeward/internal/server"
	"github.com/typeward/typeward/internal/store/postgres/pgtest"
)

// harness is a real typeward listening on 127.0.0.1:0 and a client for it.
type harness struct {
	t       testing.TB
	srv     *server.Server
	base    string
	http    *http.Client
	adminID string
	adminSK string
	cfg     *server.Config
	// logs holds every line the server logged.
	logs *syncBuffer
}

// syncBuffer is a bytes.Buffer safe for the server's concurrent writes.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

// Len is how many bytes were logged so far.
func (b *syncBuffer) Len() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Len()
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

type mode string

const (
	embedded mode = "embedded"
	database mode = "postgres"
)

func randomSecret(t testing.TB) string {
	var b [32]byte
	if _, err := rand.Read(b[:]); err != nil {
		t.Fatal(err)
	}
	return base64.RawURLEncoding.EncodeToString(b[:])
}

// start runs a server in the given mode until the test ends; configure may
// adjust the configuration first.
func start(t testing.TB, m mode, configure func(*server.Config)) *harness {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	h := &harness{t: t, base: "http://" + ln.Addr().String(), http: &http.Client{Timeout: 10 * time.Second},
		adminID: "admin-" + randomSecret(t)[:8], adminSK: randomSecret(t)}
	cfg := &server.Config{
		Addr: ln.Addr().String(), Issuer: h.base, TokenTTL: 5 * time.Minute, SigningAlg: keys.ES256,
		JWKSMaxAge: 15 * time.Minute, RateLimit: 1000, RateBurst: 1000, LogLevel: "info",
		// net/http counts a connection that has sent nothing (a Transport's
		// spare dial) as active until it is over 5 s old, so a shutdown
		// with one open needs more than that (TestShutdownOutlastsASilentConnection).
		AdminClientID: h.adminID, AdminClientSecret: h.adminSK, ShutdownTimeout: 10 * time.Second,
		MetricsAddr: "127.0.0.1:0",
	}
	if m == database {
		_, schemaName := pgtest.New(t)
		cfg.DatabaseURL = pgtest.SchemaURL(schemaName)
		kek, err := keys.GenerateKEK()
		if err != nil {
			t.Fatal(err)
		}
		cfg.KEK = kek
		cfg.Pepper = []byte(randomSecret(t))
	}
	if configure != nil {
		configure(cfg)
	}
	h.cfg = cfg
	h.adminID, h.adminSK = cfg.AdminClientID, cfg.AdminClientSecret
	h.logs = &syncBuffer{}
	var logOut io.Writer = h.logs
	if testing.Verbose() {
		logOut = io.MultiWriter(h.logs, os.Stderr)
	}
	log := slog.New(slog.NewJSONHandler(logOut, nil))
	ctx, cancel := context.WithCancel(context.Background())
	srv, err := server.New(ctx, cfg, log)
	if err != nil {
		cancel()
		t.Fatalf("server.New: %v", err)
	}
	h.srv = srv
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ctx, ln) }()
	t.Cleanup(func() {
		h.http.CloseIdleConnections() // no spare connection holds the shutdown up
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Serve: %v", err)
		}
		srv.Close()
	})
	return h
}

// replica configures a second server on h's database, as a replica
// behind one load balancer: the same database, keys, pepper, admin client
// and issuer, and no registry file (h's registry is in the database).
func (h *harness) replica(c *server.Config) {
	c.Registry = ""
	c.DatabaseURL, c.KEK, c.Pepper = h.cfg.DatabaseURL, h.cfg.KEK, h.cfg.Pepper
	c.AdminClientID, c.AdminClientSecret = h.cfg.AdminClientID, h.cfg.AdminClientSecret
	c.Issuer = h.cfg.Issuer
}

// response is a finished request.
type response struct {
	status int
	header http.Header
	body   []byte
}

func (r response) json(t testing.TB, v any) {
	t.Helper()
	if err := json.Unmarshal(r.body, v); err != nil {
		t.Fatalf("status %d body %s: %v", r.status, r.body, err)
	}
}

func (h *harness) do(req *http.Request) response {
	h.t.Helper()
	resp, err := h.http.Do(req)
	if err != nil {
		h.t.Fatalf("%s %s: %v", req.Method, req.URL, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		h.t.Fatal(err)
	}
	return response{resp.StatusCode, resp.Header, body}
}

// postForm sends a form; user/pass, when set, go in a Basic header.
func (h *harness) postForm(path, user, pass string, form url.Values) response {
	h.t.Helper()
	req, _ := http.NewRequest(http.MethodPost, h.base+path, strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	if user != "" {
		req.SetBasicAuth(url.QueryEscape(user), url.QueryEscape(pass))
	}
	return h.do(req)
}

// admin sends a JSON admin request with the bearer token.
func (h *harness) admin(method, path, bearer string, body any) response {
	h.t.Helper()
	var rd io.Reader
	if body != nil {
		raw, ok := body.([]byte)
		if !ok {
			var err error
			if raw, err = json.Marshal(body); err != nil {
				h.t.Fatal(err)
			}
		}
		rd = strings.NewReader(string(raw))
	}
	req, _ := http.NewRequest(method, h.base+path, rd)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if bearer != "" {
		req.Header.Set("Authorization", "Bearer "+bearer)
	}
	return h.do(req)
}

func (h *harness) get(path string) response {
	h.t.Helper()
	req, _ := http.NewRequest(http.MethodGet, h.base+path, nil)
	return h.do(req)
}

// adminToken gets a typeward:admin token from the token endpoint.
func (h *harness) adminToken() string {
	h.t.Helper()
	r := h.postForm("/oauth2/token", h.adminID, h.adminSK, url.Values{"grant_type": {"client_credentials"}, "scope": {"typeward:admin"}})
	if r.status != http.StatusOK {
		h.t.Fatalf("admin token: %d %s", r.status, r.body)
	}
	var tok struct {
		AccessToken string `json:"access_token"`
		Scope       string `json:"scope"`
	}
	r.json(h.t, &tok)
	if tok.Scope != "typeward:admin" {
		h.t.Fatalf("admin token scope %q", tok.Scope)
	}
	return tok.AccessToken
}

// compositionDetails wraps a composition file as authorization_details.
func compositionDetails(t testing.TB, file string) string {
	t.Helper()
	doc, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	return `[{"type":"mcp_composition","composition":` + string(doc) + `}]`
}

// scrape reads /metrics from the operator listener.
func (h *harness) scrape() string {
	h.t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for h.srv.MetricsAddr() == "" { // Serve opens it
		if time.Now().After(deadline) {
			h.t.Fatal("no metrics listener")
		}
		time.Sleep(10 * time.Millisecond)
	}
	req, _ := http.NewRequest(http.MethodGet, "http://"+h.srv.MetricsAddr()+"/metrics", nil)
	r := h.do(req)
	if r.status != http.StatusOK {
		h.t.Fatalf("scrape: %d", r.status)
	}
	return string(r.body)
}

// metricValue is the value of an unlabelled series in a scrape; the test
// fails when the series is absent.
func (h *harness) metricValue(name string) float64 {
	h.t.Helper()
	for _, line := range strings.Split(h.scrape(), "\n") {
		if v, ok := strings.CutPrefix(line, name+" "); ok {
			f, err := strconv.ParseFloat(v, 64)
			if err != nil {
				h.t.Fatalf("%s: %v", line, err)
			}
			return f
		}
	}
	h.t.Fatalf("no series %s in the scrape", name)
	return 0
}
