package route_test

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
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/typeward/typeward/internal/keys"
	"github.com/typeward/typeward/internal/route"
	"github.com/typeward/typeward/internal/server"
)

// env is one end-to-end setup on 127.0.0.1: a typeward server (embedded,
// the example registry), a real MCP server built with the go-sdk, and
// typeward route between them.
type env struct {
	t        testing.TB
	issuer   string
	resource string // the router's MCP endpoint
	router   *route.Router
	up       *upstream
	adminTok string
	client   struct{ id, secret string }
	http     *http.Client
}

// upstream is the MCP server behind the router; its behaviour can change
// mid-test.
type upstream struct {
	url         string
	calls       sync.Map // tool name -> *atomic.Int32
	sawAuth     atomic.Int32
	breakOutput atomic.Bool               // db_query returns rows as a string
	schemas     map[string][2]string      // tool -> input, output (from examples/registry.json)
	override    atomic.Pointer[[2]string] // db_query's schemas, when changed
	requests    atomic.Int32
	conns       atomic.Int32 // connections the router opened to it
	// forge, when set, answers a request itself (a hostile upstream): it
	// gets the HTTP method and the body's JSON-RPC method and id, and
	// returns ok false to let the go-sdk server answer.
	forge    atomic.Pointer[func(httpMethod, method string, id json.RawMessage) (contentType, body string, ok bool)]
	rawCalls atomic.Int32 // tools/call bodies that arrived, whoever answered
	// answer, when set, writes the answer itself (in parts, slowly) and
	// returns true, or returns false to leave it to forge or the server.
	answer atomic.Pointer[func(w http.ResponseWriter, method string, id json.RawMessage) bool]
}

func (u *upstream) count(tool string) int {
	v, ok := u.calls.Load(tool)
	if !ok {
		return 0
	}
	return int(v.(*atomic.Int32).Load())
}

func listen(t testing.TB) net.Listener {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	return ln
}

func quietLog() *slog.Logger {
	if testing.Verbose() {
		return slog.New(slog.NewJSONHandler(os.Stderr, nil))
	}
	return slog.New(slog.DiscardHandler)
}

// registryTools reads the example registry's tools: name -> input, output.
func registryTools(t testing.TB) map[string][2]string {
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
	out := map[string][2]string{}
	for _, tl := range doc.Tools {
		out[tl.Name] = [2]string{string(tl.InputSchema), string(tl.OutputSchema)}
	}
	return out
}

// extraTools are declared in typeward by each test setup and served by
// the upstream: a per-item pipeline (list_users' users[] feeds notify),
// and the latency benchmark's bench_rows (scripts/mcp/bench-rows.json,
// which the TypeScript reference server serves too).
var extraTools = map[string][2]string{
	"bench_rows": {benchRows.InputSchema, benchRows.OutputSchema},
	"list_users": {`{"type":"object"}`, `{"type":"object","properties":{"users":{"type":"array","items":{"type":"object","properties":{"email":{"type":"string"}},"required":["email"]}}},"required":["users"]}`},
	"notify":     {`{"type":"object","properties":{"to":{"type":"string"}},"required":["to"]}`, ``},
	"sum_ints":   {`{"type":"object","properties":{"xs":{"type":"array","items":{"type":"integer"}}},"required":["xs"]}`, `{"type":"object","properties":{"total":{"type":"integer"}},"required":["total"]}`},
}

// benchRows is bench_rows' declaration and result.
var benchRows = func() (d struct{ InputSchema, OutputSchema, StructuredContent string }) {
	raw, err := os.ReadFile("../../scripts/mcp/bench-rows.json")
	var doc map[string]json.RawMessage
	if err == nil {
		err = json.Unmarshal(raw, &doc)
	}
	if err != nil {
		panic(err)
	}
	var sc bytes.Buffer
	if err := json.Compact(&sc, doc["structuredContent"]); err != nil {
		panic(err)
	}
	// Compact, as JSON.stringify writes it (and the go-sdk re-encodes it).
	return struct{ InputSchema, OutputSchema, StructuredContent string }{string(doc["inputSchema"]), string(doc["outputSchema"]), sc.String()}
}()

// startUpstream runs the go-sdk MCP server (stateless Streamable HTTP):
// the example registry's tools plus rm_rf, which no token names.
func startUpstream(t testing.TB, opts *mcp.StreamableHTTPOptions) *upstream {
	t.Helper()
	u := &upstream{schemas: registryTools(t)}
	for name, sch := range extraTools {
		u.schemas[name] = sch
	}
	results := map[string]string{
		"list_users":      `{"users":[{"email":"a@example.com"},{"email":"b@example.com"}]}`,
		"notify":          ``,
		"db_query":        `{"rows":[{"region":"eu","total":3},{"region":"us","total":4}],"row_count":2}`,
		"aggregate_stats": `{"summary":"2 regions, 7 in all","count":2}`,
		"email_send":      `{"message_id":"m-1"}`,
		"transform_csv":   `{"csv":"a,b\n"}`,
		"sum_ints":        `{"total":2101}`,
		"bench_rows":      benchRows.StructuredContent,
	}
	build := func(*http.Request) *mcp.Server {
		s := mcp.NewServer(&mcp.Implementation{Name: "upstream", Version: "1"}, nil)
		for name, sch := range u.schemas {
			if o := u.override.Load(); o != nil && name == "db_query" {
				sch = *o
			}
			tool := &mcp.Tool{Name: name, InputSchema: json.RawMessage(sch[0])}
			if sch[1] != "" {
				tool.OutputSchema = json.RawMessage(sch[1])
			}
			s.AddTool(tool, func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				c, _ := u.calls.LoadOrStore(name, new(atomic.Int32))
				c.(*atomic.Int32).Add(1)
				out := results[name]
				if name == "db_query" && u.breakOutput.Load() {
					out = `{"rows":"not an array","row_count":-1}`
				}
				text := "done"
				if name == "bench_rows" {
					text = out // its JSON text, as the TypeScript server sends it
				}
				res := &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}
				if out != "" {
					res.StructuredContent = json.RawMessage(out)
				}
				return res, nil
			})
		}
		s.AddTool(&mcp.Tool{Name: "rm_rf", InputSchema: json.RawMessage(`{"type":"object"}`)}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			c, _ := u.calls.LoadOrStore("rm_rf", new(atomic.Int32))
			c.(*atomic.Int32).Add(1)
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "gone"}}}, nil
		})
		return s
	}
	h := mcp.NewStreamableHTTPHandler(build, opts)
	ln := listen(t)
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		u.requests.Add(1)
		if r.Header.Get("Authorization") != "" {
			u.sawAuth.Add(1)
		}
		raw, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(raw))
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		_ = json.Unmarshal(raw, &m)
		if m.Method == "tools/call" || bytes.Contains(raw, []byte("tools/call")) {
			u.rawCalls.Add(1)
		}
		if a := u.answer.Load(); a != nil && (*a)(w, m.Method, m.ID) {
			return
		}
		if f := u.forge.Load(); f != nil {
			if ct, body, ok := (*f)(r.Method, m.Method, m.ID); ok {
				w.Header().Set("Content-Type", ct)
				_, _ = io.WriteString(w, body)
				return
			}
		}
		h.ServeHTTP(w, r)
	}), ConnState: func(_ net.Conn, st http.ConnState) {
		if st == http.StateNew {
			u.conns.Add(1)
		}
	}}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	u.url = "http://" + ln.Addr().String() + "/mcp"
	return u
}

// startEnv starts typeward, the upstream (stateless, answering with SSE)
// and the router; adjust may change the router's configuration.
func startEnv(t testing.TB, adjust func(*route.Config)) *env {
	return startEnvWith(t, adjust, &mcp.StreamableHTTPOptions{Stateless: true})
}

// startEnvWith is startEnv with the upstream's transport options.
func startEnvWith(t testing.TB, adjust func(*route.Config), opts *mcp.StreamableHTTPOptions) *env {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	e := &env{t: t, http: &http.Client{Timeout: 20 * time.Second}}

	// typeward, embedded, with the example registry.
	tln := listen(t)
	e.issuer = "http://" + tln.Addr().String()
	cfg := &server.Config{
		Addr: tln.Addr().String(), Issuer: e.issuer, TokenTTL: 5 * time.Minute, SigningAlg: keys.ES256,
		JWKSMaxAge: 15 * time.Minute, RateLimit: 1000, RateBurst: 1000, LogLevel: "info",
		AdminClientID: "admin", AdminClientSecret: "admin-secret-0123456789abcdef0123456789", ShutdownTimeout: 5 * time.Second,
		Registry: "../../examples/registry.json",
	}
	srv, err := server.New(ctx, cfg, quietLog())
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ctx, tln) }()
	t.Cleanup(func() { cancel(); <-done; srv.Close() })

	e.up = startUpstream(t, opts)

	rln := listen(t)
	e.resource = "http://" + rln.Addr().String() + "/mcp"
	rcfg := route.Config{Upstream: e.up.url, Issuer: e.issuer, Resource: e.resource, Log: quietLog()}
	if adjust != nil {
		adjust(&rcfg)
	}
	e.router, err = route.New(ctx, rcfg)
	if err != nil {
		t.Fatal(err)
	}
	rdone := make(chan error, 1)
	go func() { rdone <- e.router.Serve(ctx, rln, nil, 5*time.Second) }()
	t.Cleanup(func() { cancel(); <-rdone })

	e.adminTok = e.token(t, "admin", cfg.AdminClientSecret, url.Values{"scope": {"typeward:admin"}})
	e.client.id, e.client.secret = e.createClient(t, []string{e.resource, "https://elsewhere.example.com/mcp"})
	for name, sch := range extraTools {
		decl := `{"inputSchema":` + sch[0]
		if sch[1] != "" {
			decl += `,"outputSchema":` + sch[1]
		}
		req, _ := http.NewRequest(http.MethodPut, e.issuer+"/admin/v1/tools/"+name, strings.NewReader(decl+"}"))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Authorization", "Bearer "+e.adminTok)
		resp, err := e.http.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusCreated {
			t.Fatalf("declare %s: %d", name, resp.StatusCode)
		}
	}
	return e
}

func (e *env) post(t testing.TB, path, user, pass string, form url.Values) (int, []byte) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, e.issuer+path, strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.SetBasicAuth(url.QueryEscape(user), url.QueryEscape(pass))
	resp, err := e.http.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, body
}

// token asks typeward for a client credentials token.
func (e *env) token(t testing.TB, user, pass string, form url.Values) string {
	t.Helper()
	form.Set("grant_type", "client_credentials")
	status, body := e.post(t, "/oauth2/token", user, pass, form)
	if status != http.StatusOK {
		t.Fatalf("token: %d %s", status, body)
	}
	var tok struct {
		AccessToken string `json:"access_token"`
	}
	if err := json.Unmarshal(body, &tok); err != nil {
		t.Fatal(err)
	}
	return tok.AccessToken
}

func (e *env) createClient(t testing.TB, audiences []string) (string, string) {
	return e.createClientWith(t, map[string]any{"allowed_audiences": audiences})
}

// createClientWith registers a client allowed every tool for the router,
// never asking approval, with fields added or replaced.
func (e *env) createClientWith(t testing.TB, fields map[string]any) (string, string) {
	t.Helper()
	reg := map[string]any{"client_name": "pipeline", "token_endpoint_auth_method": "client_secret_basic",
		"allowed_tools": []string{"*"}, "allowed_audiences": []string{e.resource}, "approval": "never"}
	for k, v := range fields {
		reg[k] = v
	}
	body, _ := json.Marshal(reg)
	req, _ := http.NewRequest(http.MethodPost, e.issuer+"/admin/v1/clients", strings.NewReader(string(body)))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+e.adminTok)
	resp, err := e.http.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusCreated {
		t.Fatalf("create client: %d %s", resp.StatusCode, raw)
	}
	var c struct {
		ID     string `json:"client_id"`
		Secret string `json:"client_secret"`
	}
	_ = json.Unmarshal(raw, &c)
	return c.ID, c.Secret
}

// pipelineToken is a token for the example's valid pipeline (db_query ->
// aggregate_stats -> email_send), for audience.
func (e *env) pipelineToken(t testing.TB, audience string) string {
	t.Helper()
	doc, err := os.ReadFile("../../examples/pipeline-valid.json")
	if err != nil {
		t.Fatal(err)
	}
	return e.compositionToken(t, audience, string(doc))
}

// eachPipeline runs notify once per user list_users returns.
const eachPipeline = `{"nodes":[{"id":"u","tool":"list_users"},{"id":"n","tool":"notify"}],
	"edges":[{"from":"u","to":"n","each":true,"map":{"users[].email":"to"}}]}`

func (e *env) compositionToken(t testing.TB, audience, composition string) string {
	t.Helper()
	return e.token(t, e.client.id, e.client.secret, url.Values{"resource": {audience},
		"authorization_details": {`[{"type":"mcp_composition","composition":` + composition + `}]`}})
}

// bearer adds a token to every request.
type bearer struct {
	token string
	next  http.RoundTripper
}

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return b.next.RoundTrip(r)
}

// session connects a go-sdk client to the router with token.
func (e *env) session(t testing.TB, token string) *mcp.ClientSession {
	t.Helper()
	c := mcp.NewClient(&mcp.Implementation{Name: "pipeline", Version: "1"}, nil)
	s, err := c.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: e.resource,
		HTTPClient: &http.Client{Transport: bearer{token, http.DefaultTransport}, Timeout: 20 * time.Second}, DisableStandaloneSSE: true}, nil)
	if err != nil {
		t.Fatalf("connect through the router: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// rpc posts one raw JSON-RPC message to the router.
func (e *env) rpc(t testing.TB, token, body string, headers map[string]string) (*http.Response, []byte) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, e.resource, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	return e.do(t, req, token, headers)
}

// get opens a GET stream on the router and reads it for up to 300 ms.
func (e *env) get(t testing.TB, token string, headers map[string]string) (*http.Response, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, e.resource, nil)
	req.Header.Set("Accept", "text/event-stream")
	resp, raw := e.do(t, req, token, headers)
	return resp, string(raw)
}

// do sends req with token and headers and reads the answer.
func (e *env) do(t testing.TB, req *http.Request, token string, headers map[string]string) (*http.Response, []byte) {
	t.Helper()
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	resp, err := e.http.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	return resp, raw
}
