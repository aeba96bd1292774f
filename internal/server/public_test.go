package server_test

import (
	"bufio"
	"context"
	"encoding/base64"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/typeward/typeward/internal/keys"
	"github.com/typeward/typeward/internal/server"
)

// TestPublicEndpoints reads the discovery and operations endpoints as a
// client would: RFC 8414 metadata, the JWKS with its caching headers, the
// health probes, and what a wrong method or path answers.
func TestPublicEndpoints(t *testing.T) {
	t.Parallel()
	h := start(t, embedded, func(c *server.Config) { c.Registry = "" })

	var meta map[string]any
	h.get("/.well-known/oauth-authorization-server").json(t, &meta)
	auth := []any{"client_secret_basic", "client_secret_post", "private_key_jwt"}
	public := append(slices.Clone(auth), "none")
	for member, want := range map[string]any{
		"issuer": h.base, "token_endpoint": h.base + "/oauth2/token", "jwks_uri": h.base + "/.well-known/jwks.json",
		"introspection_endpoint": h.base + "/oauth2/introspect", "revocation_endpoint": h.base + "/oauth2/revoke",
		"authorization_endpoint":   h.base + "/oauth2/authorize",
		"grant_types_supported":    []any{"client_credentials", "urn:openid:params:grant-type:ciba", "authorization_code", "refresh_token"},
		"response_types_supported": []any{"code"}, "code_challenge_methods_supported": []any{"S256"},
		"authorization_response_iss_parameter_supported": true, "scopes_supported": []any{"typeward:admin", "offline_access"},
		"backchannel_authentication_endpoint": h.base + "/oauth2/bc-authorize", "backchannel_token_delivery_modes_supported": []any{"poll"},
		"token_endpoint_auth_methods_supported": public, "introspection_endpoint_auth_methods_supported": auth,
		"revocation_endpoint_auth_methods_supported": public, "authorization_details_types_supported": []any{"mcp_composition"},
	} {
		if !reflect.DeepEqual(meta[member], want) {
			t.Errorf("metadata %s = %v, want %v", member, meta[member], want)
		}
	}
	// private_key_jwt is offered, so each endpoint names its assertion algorithms.
	for _, member := range []string{"token_endpoint_auth_signing_alg_values_supported",
		"introspection_endpoint_auth_signing_alg_values_supported", "revocation_endpoint_auth_signing_alg_values_supported"} {
		if algs, _ := meta[member].([]any); len(algs) == 0 {
			t.Errorf("metadata %s = %v, want algorithms", member, meta[member])
		}
	}

	r := h.get("/.well-known/jwks.json")
	etag := r.header.Get("ETag")
	if r.status != http.StatusOK || r.header.Get("Cache-Control") != "public, max-age=900" || etag == "" ||
		r.header.Get("Content-Type") != "application/jwk-set+json" {
		t.Errorf("JWKS: %d %v", r.status, r.header)
	}
	req, _ := http.NewRequest(http.MethodGet, h.base+"/.well-known/jwks.json", nil)
	req.Header.Set("If-None-Match", etag)
	if r := h.do(req); r.status != http.StatusNotModified || len(r.body) != 0 || r.header.Get("ETag") != etag {
		t.Errorf("JWKS revalidation: %d %v %q", r.status, r.header, r.body)
	}

	for _, probe := range []struct{ path, body string }{{"/healthz", `{"status":"ok"}`}, {"/readyz", `{"status":"ready"}`}} {
		if r := h.get(probe.path); r.status != http.StatusOK || strings.TrimSpace(string(r.body)) != probe.body ||
			r.header.Get("Cache-Control") != "no-store" {
			t.Errorf("%s: %d %v %s", probe.path, r.status, r.header, r.body)
		}
	}

	// The token endpoint only takes POSTed forms; every answer stays uncached.
	for _, tt := range []struct {
		method, path, contentType string
		status                    int
	}{
		{http.MethodGet, "/oauth2/token", "", http.StatusMethodNotAllowed},
		{http.MethodPost, "/oauth2/token", "application/json", http.StatusUnsupportedMediaType},
		{http.MethodPost, "/oauth2/token?client_secret=x", "application/x-www-form-urlencoded", http.StatusBadRequest},
		{http.MethodGet, "/oauth2/nothing", "", http.StatusNotFound},
	} {
		req, _ := http.NewRequest(tt.method, h.base+tt.path, strings.NewReader("grant_type=client_credentials"))
		if tt.contentType != "" {
			req.Header.Set("Content-Type", tt.contentType)
		}
		if r := h.do(req); r.status != tt.status || r.header.Get("Cache-Control") != "no-store" {
			t.Errorf("%s %s (%s): %d %v %s", tt.method, tt.path, tt.contentType, r.status, r.header, r.body)
		}
	}
}

// TestGracefulShutdown: a request in flight when shutdown begins is
// answered in full before Serve returns.
func TestGracefulShutdown(t *testing.T) {
	t.Parallel()
	cfg := &server.Config{Addr: "127.0.0.1:0", Issuer: "http://typeward.test", TokenTTL: 5 * time.Minute,
		SigningAlg: keys.ES256, JWKSMaxAge: time.Minute, RateLimit: 10, RateBurst: 10,
		Registry: "../../examples/registry.json", ShutdownTimeout: 10 * time.Second}
	srv, err := server.New(context.Background(), cfg, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ctx, ln) }()

	conn, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	body := url.Values{"grant_type": {"client_credentials"}, "authorization_details": {compositionDetails(t, "../../examples/pipeline-readonly.json")}}.Encode()
	// Expect: 100-continue makes the server say when the handler starts
	// reading the body: from then on the request is in flight.
	head := "POST /oauth2/token HTTP/1.1\r\nHost: typeward.test\r\nContent-Type: application/x-www-form-urlencoded\r\n" +
		"Authorization: Basic " + base64.StdEncoding.EncodeToString([]byte(srv.Demo.ID+":"+srv.Demo.Secret)) + "\r\n" +
		"Expect: 100-continue\r\nContent-Length: " + strconv.Itoa(len(body)) + "\r\n\r\n"
	if _, err := io.WriteString(conn, head); err != nil {
		t.Fatal(err)
	}
	rd := bufio.NewReader(conn)
	if line, err := rd.ReadString('\n'); err != nil || !strings.HasPrefix(line, "HTTP/1.1 100") {
		t.Fatalf("interim answer %q, %v", line, err)
	}
	if _, err := rd.ReadString('\n'); err != nil { // the blank line ending the interim answer
		t.Fatal(err)
	}

	stop() // SIGTERM
	if _, err := io.WriteString(conn, body); err != nil {
		t.Fatal(err)
	}
	resp, err := http.ReadResponse(rd, nil)
	if err != nil {
		t.Fatalf("the request in flight was cut off: %v", err)
	}
	answer, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || !strings.Contains(string(answer), `"access_token"`) {
		t.Errorf("request in flight answered %d %s", resp.StatusCode, answer)
	}
	if err := <-served; err != nil {
		t.Errorf("Serve: %v", err)
	}
}
