package server_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/typeward/typeward/internal/route"
	"github.com/typeward/typeward/internal/server"
	"github.com/typeward/typeward/verify"
	"github.com/typeward/typeward/verify/dpop"
	"github.com/typeward/typeward/verify/dpop/dpoptest"
)

// mcpUpstream is an MCP server of the official Go SDK declaring the
// example registry's tools, recording the headers each request came with.
type mcpUpstream struct {
	url     string
	mu      sync.Mutex
	headers []http.Header
	calls   int
}

func startMCPUpstream(t *testing.T) *mcpUpstream {
	t.Helper()
	raw, err := os.ReadFile("../../examples/registry.json")
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Tools []struct {
			Name         string          `json:"name"`
			InputSchema  json.RawMessage `json:"inputSchema"`
			OutputSchema json.RawMessage `json:"outputSchema"`
		} `json:"tools"`
	}
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	u := &mcpUpstream{}
	s := mcp.NewServer(&mcp.Implementation{Name: "upstream", Version: "1"}, nil)
	for _, tl := range doc.Tools {
		tool := &mcp.Tool{Name: tl.Name, InputSchema: tl.InputSchema}
		if len(tl.OutputSchema) > 0 {
			tool.OutputSchema = tl.OutputSchema
		}
		s.AddTool(tool, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			u.mu.Lock()
			u.calls++
			u.mu.Unlock()
			out := `{"rows":[{"region":"eu","total":3},{"region":"us","total":4}],"row_count":2}`
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: out}}, StructuredContent: json.RawMessage(out)}, nil
		})
	}
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, &mcp.StreamableHTTPOptions{Stateless: true, JSONResponse: true})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		u.mu.Lock()
		u.headers = append(u.headers, r.Header.Clone())
		u.mu.Unlock()
		h.ServeHTTP(w, r)
	})}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	u.url = "http://" + ln.Addr().String() + "/mcp"
	return u
}

// sawCredentials reports whether any request reached the upstream with the
// client's token or proof.
func (u *mcpUpstream) sawCredentials() bool {
	u.mu.Lock()
	defer u.mu.Unlock()
	for _, h := range u.headers {
		if h.Get("Authorization") != "" || h.Get(dpop.Header) != "" {
			return true
		}
	}
	return false
}

// dpopEnv is typeward, typeward route in front of the upstream, and a
// client registered with dpop_bound_access_tokens.
type dpopEnv struct {
	h        *harness
	up       *mcpUpstream
	resource string
	client   registered
}

func startDPoPEnv(t *testing.T, m mode) *dpopEnv {
	t.Helper()
	e := &dpopEnv{h: start(t, m, func(c *server.Config) { c.Registry = "../../examples/registry.json" }), up: startMCPUpstream(t)}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	e.resource = "http://" + ln.Addr().String() + "/mcp"
	ctx, cancel := context.WithCancel(context.Background())
	rt, err := route.New(ctx, route.Config{Upstream: e.up.url, Issuer: e.h.base, Resource: e.resource, Log: slog.New(slog.NewJSONHandler(io.Discard, nil))})
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- rt.Serve(ctx, ln, nil, 5*time.Second) }()
	t.Cleanup(func() { cancel(); <-done })
	admin := e.h.adminToken()
	registerExamples(t, e.h, admin)
	e.client = e.h.createClient(admin, map[string]any{"client_name": "dpop pipeline", "allowed_tools": []string{"*"},
		"allowed_audiences": []string{e.resource}, "dpop_bound_access_tokens": true})
	return e
}

// token asks for a token for the valid pipeline with proofs as DPoP
// headers.
func (e *dpopEnv) token(t *testing.T, proofs ...string) response {
	t.Helper()
	form := url.Values{"grant_type": {"client_credentials"}, "resource": {e.resource},
		"authorization_details": {compositionDetails(t, "../../examples/pipeline-valid.json")}}
	req, _ := http.NewRequest(http.MethodPost, e.h.base+"/oauth2/token", strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.SetBasicAuth(e.client.ID, e.client.Secret)
	for _, p := range proofs {
		req.Header.Add(dpop.Header, p)
	}
	return e.h.do(req)
}

// call posts a db_query call to the router.
func (e *dpopEnv) call(t *testing.T, authorization string, proofs ...string) (int, string, string) {
	t.Helper()
	body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"db_query","arguments":{"sql":"select 1","limit":1}}}`
	req, _ := http.NewRequest(http.MethodPost, e.resource, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Authorization", authorization)
	for _, p := range proofs {
		req.Header.Add(dpop.Header, p)
	}
	resp, err := e.h.http.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header.Get("WWW-Authenticate"), string(raw)
}

// Issue 19's "done when": oauth4webapi, unmodified, gets a DPoP-bound
// token for a DPoP-bound client and calls a tool through typeward route in
// front of an official-SDK MCP server; the same token as a bearer token is
// refused with a DPoP challenge; the upstream never sees token or proof.
// Both stores.
func TestDPoPThroughTheRouterWithOAuth4WebAPI(t *testing.T) {
	copied := filepath.Join(browserScripts(t, "dpop.mjs"), "dpop.mjs") // beside node_modules, where its import resolves
	for _, m := range []mode{embedded, database} {
		t.Run(string(m), func(t *testing.T) {
			e := startDPoPEnv(t, m)
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			cmd := exec.CommandContext(ctx, "node", copied)
			cmd.Env = append(os.Environ(), "TW_ISSUER="+e.h.base, "TW_CLIENT_ID="+e.client.ID, "TW_CLIENT_SECRET="+e.client.Secret,
				"TW_RESOURCE="+e.resource, "TW_DETAILS="+compositionDetails(t, "../../examples/pipeline-valid.json"))
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			if err := cmd.Run(); err != nil {
				t.Fatalf("dpop.mjs: %v\nstderr:\n%s\nstdout:\n%s", err, stderr.String(), stdout.String())
			}
			var out struct {
				TokenType, AccessToken, Body string
				Status, BearerStatus         int
				BearerChallenge              string
			}
			if err := json.Unmarshal(stdout.Bytes(), &out); err != nil {
				t.Fatalf("dpop.mjs printed %q: %v", stdout.String(), err)
			}
			if out.TokenType != "dpop" {
				t.Errorf("token_type %q, want dpop", out.TokenType)
			}
			if out.Status != http.StatusOK || !strings.Contains(out.Body, `"row_count":2`) || strings.Contains(out.Body, `"error"`) {
				t.Errorf("the tool call through the router: %d %s", out.Status, out.Body)
			}
			if out.BearerStatus != http.StatusUnauthorized || !strings.HasPrefix(out.BearerChallenge, `DPoP `) ||
				!strings.Contains(out.BearerChallenge, `error="invalid_token"`) || !strings.Contains(out.BearerChallenge, `algs="ES256 EdDSA RS256"`) {
				t.Errorf("the DPoP-bound token as a bearer token: %d %q", out.BearerStatus, out.BearerChallenge)
			}
			claims := e.verified(t, out.AccessToken)
			if claims.JKT == "" {
				t.Fatal("the token oauth4webapi got has no cnf.jkt")
			}
			if e.up.calls != 1 || e.up.sawCredentials() {
				t.Errorf("upstream: %d calls, saw the client's credentials: %v", e.up.calls, e.up.sawCredentials())
			}
			e.checkIntrospectionAndAudit(t, out.AccessToken, claims.JKT)
			e.checkMetadata(t)
		})
	}
}

// verified is the claims of tok, checked against typeward's JWKS.
func (e *dpopEnv) verified(t *testing.T, tok string) *verify.Claims {
	t.Helper()
	v, err := verify.New(verify.Config{Issuer: e.h.base, Audience: e.resource, JWKSURL: e.h.base + "/.well-known/jwks.json"})
	if err != nil {
		t.Fatal(err)
	}
	c, err := v.Verify(context.Background(), tok)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// checkIntrospectionAndAudit: introspection shows cnf and token_type DPoP,
// the audit record the thumbprint.
func (e *dpopEnv) checkIntrospectionAndAudit(t *testing.T, tok, jkt string) {
	t.Helper()
	r := e.h.postForm("/oauth2/introspect", e.client.ID, e.client.Secret, url.Values{"token": {tok}})
	var in struct {
		Active    bool   `json:"active"`
		TokenType string `json:"token_type"`
		Cnf       struct {
			JKT string `json:"jkt"`
		} `json:"cnf"`
	}
	if err := json.Unmarshal(r.body, &in); err != nil || !in.Active || in.TokenType != "DPoP" || in.Cnf.JKT != jkt {
		t.Errorf("introspection %d %s", r.status, r.body)
	}
	a := e.h.admin(http.MethodGet, "/admin/v1/issuances?client_id="+url.QueryEscape(e.client.ID), e.h.adminToken(), nil)
	if a.status != http.StatusOK || !strings.Contains(string(a.body), `"dpop_jkt":"`+jkt+`"`) {
		t.Errorf("audit log %d %s, want dpop_jkt %s", a.status, a.body, jkt)
	}
}

// checkMetadata: typeward's RFC 8414 and the router's RFC 9728 metadata
// list the DPoP algorithms.
func (e *dpopEnv) checkMetadata(t *testing.T) {
	t.Helper()
	for _, u := range []string{e.h.base + "/.well-known/oauth-authorization-server", strings.Replace(e.resource, "/mcp", "/.well-known/oauth-protected-resource/mcp", 1)} {
		resp, err := e.h.http.Get(u)
		if err != nil {
			t.Fatal(err)
		}
		var m struct {
			Algs []string `json:"dpop_signing_alg_values_supported"`
		}
		err = json.NewDecoder(resp.Body).Decode(&m)
		resp.Body.Close()
		if err != nil || strings.Join(m.Algs, " ") != "ES256 EdDSA RS256" {
			t.Errorf("%s: dpop_signing_alg_values_supported %v, %v", u, m.Algs, err)
		}
	}
}

// The bad inputs of issue 19, each refused by typeward route (401 with a
// DPoP challenge, 400 for two proofs) and none reaching the upstream; and
// at the token endpoint, a DPoP-bound client's request without a proof.
func TestDPoPRouterRefusals(t *testing.T) {
	for _, m := range []mode{embedded, database} {
		t.Run(string(m), func(t *testing.T) {
			e := startDPoPEnv(t, m)
			if r := e.token(t); r.status != http.StatusBadRequest || !strings.Contains(string(r.body), `"invalid_dpop_proof"`) {
				t.Fatalf("a DPoP-bound client without a proof: %d %s", r.status, r.body)
			}
			cl, other := dpoptest.NewClient(t, "ES256"), dpoptest.NewClient(t, "EdDSA")
			now := time.Now()
			r := e.token(t, cl.Proof(t, "POST", e.h.base+"/oauth2/token", "", now, nil))
			var tok struct {
				AccessToken string `json:"access_token"`
				TokenType   string `json:"token_type"`
			}
			if err := json.Unmarshal(r.body, &tok); err != nil || r.status != http.StatusOK || tok.TokenType != "DPoP" {
				t.Fatalf("token: %d %s", r.status, r.body)
			}
			other2 := e.token(t, cl.Proof(t, "POST", e.h.base+"/oauth2/token", "", now, nil))
			var second struct {
				AccessToken string `json:"access_token"`
			}
			_ = json.Unmarshal(other2.body, &second)
			at := tok.AccessToken
			proof := func(edit func(h, c map[string]any)) string { return cl.Proof(t, "POST", e.resource, at, now, edit) }
			replayed := proof(nil)
			if status, ch, body := e.call(t, "DPoP "+at, replayed); status != http.StatusOK {
				t.Fatalf("a valid proof: %d %s %s", status, ch, body)
			}
			tests := []struct {
				name   string
				auth   string
				proofs []string
				status int
				want   string // in WWW-Authenticate
			}{
				{"alg none", "DPoP " + at, []string{cl.Sign(t, jwt.SigningMethodNone, jwt.UnsafeAllowNoneSignatureType, map[string]any{"jti": "n", "htm": "POST", "htu": e.resource, "iat": now.Unix(), "ath": dpop.TokenHash(at)})}, 401, "alg 'none' is not allowed"},
				{"HS256", "DPoP " + at, []string{cl.Sign(t, jwt.SigningMethodHS256, []byte("0123456789abcdef0123456789abcdef"), map[string]any{"jti": "h", "htm": "POST", "htu": e.resource, "iat": now.Unix(), "ath": dpop.TokenHash(at)})}, 401, "alg 'HS256' is not allowed"},
				{"a private key in jwk", "DPoP " + at, []string{proof(func(h, _ map[string]any) {
					priv := map[string]any{"d": "AAAA"}
					for k, v := range cl.JWK {
						priv[k] = v
					}
					h["jwk"] = priv
				})}, 401, "a private or symmetric key"},
				{"a jwk of another key than cnf.jkt", "DPoP " + at, []string{other.Proof(t, "POST", e.resource, at, now, nil)}, 401, "signed by another key"},
				{"another htm", "DPoP " + at, []string{cl.Proof(t, "GET", e.resource, at, now, nil)}, 401, "htm"},
				{"another htu", "DPoP " + at, []string{cl.Proof(t, "POST", e.h.base+"/mcp", at, now, nil)}, 401, "htu"},
				{"no ath", "DPoP " + at, []string{cl.Proof(t, "POST", e.resource, "", now, nil)}, 401, "no ath"},
				{"a wrong ath", "DPoP " + at, []string{proof(func(_, c map[string]any) { c["ath"] = dpop.TokenHash("x") })}, 401, "ath"},
				{"iat an hour old", "DPoP " + at, []string{cl.Proof(t, "POST", e.resource, at, now.Add(-time.Hour), nil)}, 401, "iat"},
				{"iat in the future", "DPoP " + at, []string{cl.Proof(t, "POST", e.resource, at, now.Add(time.Hour), nil)}, 401, "iat"},
				{"a replayed jti", "DPoP " + at, []string{replayed}, 401, "already used"},
				{"a proof for another token", "DPoP " + at, []string{cl.Proof(t, "POST", e.resource, second.AccessToken, now, nil)}, 401, "ath"},
				{"two DPoP headers", "DPoP " + at, []string{proof(nil), proof(nil)}, 400, "2 DPoP headers"},
				{"an oversized proof", "DPoP " + at, []string{strings.Repeat("a", dpop.MaxProofSize+1)}, 401, "proof longer than"},
				{"no proof", "DPoP " + at, nil, 401, "no DPoP header"},
				{"the bound token as Bearer", "Bearer " + at, nil, 401, `error="invalid_token"`},
			}
			for _, tc := range tests {
				status, challenge, body := e.call(t, tc.auth, tc.proofs...)
				if status != tc.status || !strings.HasPrefix(challenge, "DPoP ") || !strings.Contains(challenge, tc.want) {
					t.Errorf("%s: %d %q %s; want %d and a DPoP challenge naming %q", tc.name, status, challenge, body, tc.status, tc.want)
				}
			}
			if e.up.calls != 1 || e.up.sawCredentials() {
				t.Errorf("upstream: %d calls (want the one valid), saw credentials %v", e.up.calls, e.up.sawCredentials())
			}
			// The admin API's PATCH lifts dpop_bound_access_tokens: a bearer
			// token again, at once.
			r = e.h.admin(http.MethodPatch, "/admin/v1/clients/"+e.client.ID, e.h.adminToken(), map[string]any{"dpop_bound_access_tokens": false})
			if r.status != http.StatusOK || !strings.Contains(string(r.body), `"dpop_bound_access_tokens":false`) {
				t.Fatalf("PATCH: %d %s", r.status, r.body)
			}
			if r := e.token(t); r.status != http.StatusOK || !strings.Contains(string(r.body), `"token_type":"Bearer"`) {
				t.Errorf("after the PATCH, without a proof: %d %s", r.status, r.body)
			}
		})
	}
}

// BenchmarkTokenEndpointDPoP: one client's token requests over HTTP, one
// after another, with and without a DPoP proof (ES256), alternating in one
// run, for each store; issue 19 asks issuance with a proof for at most 1.3
// times the time without. Proofs are signed before the clock starts (a
// client signs its own, and each is accepted once).
func BenchmarkTokenEndpointDPoP(b *testing.B) {
	for _, m := range []mode{database, embedded} {
		b.Run("store="+string(m), func(b *testing.B) {
			h, _, authorization, body := tokenLoadSetup(b, m)
			cl := dpoptest.NewClient(b, "ES256")
			client := &http.Client{Timeout: 10 * time.Second}
			b.Cleanup(client.CloseIdleConnections)
			post := func(b *testing.B, proof string) {
				req, _ := http.NewRequest(http.MethodPost, h.base+"/oauth2/token", strings.NewReader(body))
				req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
				req.Header.Set("Authorization", authorization)
				if proof != "" {
					req.Header.Set(dpop.Header, proof)
				}
				resp, err := client.Do(req)
				if err != nil {
					b.Fatal(err)
				}
				_, _ = io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				if resp.StatusCode != http.StatusOK {
					b.Fatalf("token: %d", resp.StatusCode)
				}
			}
			post(b, "") // warm the caches and the connection
			for _, kind := range []string{"bearer", "dpop", "bearer", "dpop"} {
				b.Run(kind, func(b *testing.B) {
					proofs := make([]string, b.N)
					if kind == "dpop" {
						for i := range proofs {
							proofs[i] = cl.Proof(b, "POST", h.base+"/oauth2/token", "", time.Now(), nil)
						}
					}
					b.ResetTimer()
					for i := 0; i < b.N; i++ {
						post(b, proofs[i])
					}
				})
			}
		})
	}
}

// serve --dpop-nonce on two replicas of one database: a nonce one hands
// out (DPoP-Nonce, with use_dpop_nonce) is accepted by the other, which
// answers its token with a DPoP-Nonce too.
func TestDPoPNonceSharedByReplicas(t *testing.T) {
	nonces := func(c *server.Config) { c.DPoPNonce = true }
	a := start(t, database, nonces)
	b := start(t, database, func(c *server.Config) { a.replica(c); nonces(c) })
	admin := a.adminToken()
	registerExamples(t, a, admin)
	c := a.createClient(admin, map[string]any{"client_name": "dpop", "allowed_tools": []string{"*"}, "allowed_audiences": []string{routerAud}})
	cl := dpoptest.NewClient(t, "ES256")
	tokenURL := a.cfg.Issuer + "/oauth2/token" // the replicas' one issuer
	post := func(h *harness, nonce string) (*http.Response, []byte) {
		proof := cl.Proof(t, "POST", tokenURL, "", time.Now(), func(_, claims map[string]any) {
			if nonce != "" {
				claims["nonce"] = nonce
			}
		})
		form := url.Values{"grant_type": {"client_credentials"}, "resource": {routerAud},
			"authorization_details": {compositionDetails(t, "../../examples/pipeline-valid.json")}}
		req, _ := http.NewRequest(http.MethodPost, h.base+"/oauth2/token", strings.NewReader(form.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.SetBasicAuth(c.ID, c.Secret)
		req.Header.Set(dpop.Header, proof)
		resp, err := h.http.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		return resp, body
	}
	resp, body := post(a, "")
	nonce := resp.Header.Get("DPoP-Nonce")
	if resp.StatusCode != http.StatusBadRequest || !strings.Contains(string(body), `"use_dpop_nonce"`) || nonce == "" {
		t.Fatalf("without a nonce at replica a: %d %s, DPoP-Nonce %q", resp.StatusCode, body, nonce)
	}
	resp, body = post(b, nonce)
	if resp.StatusCode != http.StatusOK || !strings.Contains(string(body), `"token_type":"DPoP"`) || resp.Header.Get("DPoP-Nonce") == "" {
		t.Fatalf("a's nonce at replica b: %d %s, DPoP-Nonce %q", resp.StatusCode, body, resp.Header.Get("DPoP-Nonce"))
	}
	if resp, body = post(b, "not-a-nonce-of-ours"); resp.StatusCode != http.StatusBadRequest || !strings.Contains(string(body), `"use_dpop_nonce"`) {
		t.Errorf("a nonce never issued: %d %s", resp.StatusCode, body)
	}
}
