package server_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/typeward/typeward/internal/cimd/cimdtest"
	"github.com/typeward/typeward/internal/jstest"
	"github.com/typeward/typeward/internal/registration"
	"github.com/typeward/typeward/internal/route"
	"github.com/typeward/typeward/internal/server"
)

// echoTool is the upstream's one tool, read-only, declared in typeward
// with the same schemas.
const echoTool = `{"name":"echo","inputSchema":{"type":"object","properties":{"text":{"type":"string"}},"required":["text"]},
	"outputSchema":{"type":"object","properties":{"echo":{"type":"string"}},"required":["echo"]},
	"annotations":{"readOnlyHint":true}}`

// playwrightModule is playwright-core's module, as browserScripts
// installs it (with Debian's chromium).
func playwrightModule(t *testing.T) string {
	t.Helper()
	return filepath.Join(filepath.Dir(browserScripts(t)), "node_modules", "playwright-core", "index.mjs")
}

// startEchoUpstream is an MCP server (go-sdk, stateless Streamable HTTP)
// serving echo.
func startEchoUpstream(t *testing.T) string {
	var decl struct {
		Name         string
		InputSchema  json.RawMessage `json:"inputSchema"`
		OutputSchema json.RawMessage `json:"outputSchema"`
	}
	if err := json.Unmarshal([]byte(echoTool), &decl); err != nil {
		t.Fatal(err)
	}
	s := mcp.NewServer(&mcp.Implementation{Name: "echo-upstream", Version: "1"}, nil)
	s.AddTool(&mcp.Tool{Name: decl.Name, InputSchema: decl.InputSchema, OutputSchema: decl.OutputSchema},
		func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			var in struct{ Text string }
			_ = json.Unmarshal(req.Params.Arguments, &in)
			out, _ := json.Marshal(map[string]string{"echo": in.Text})
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: string(out)}}, StructuredContent: json.RawMessage(out)}, nil
		})
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, &mcp.StreamableHTTPOptions{Stateless: true})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 5 * time.Second}
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() { _ = srv.Close() })
	return "http://" + ln.Addr().String() + "/mcp"
}

// freePort is a loopback port nobody listens on at the moment.
func freePort(t *testing.T) int {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// TestSDKHostThroughRoute is the "done when": the official
// TypeScript SDK client (auth() with an OAuthClientProvider) connects to
// typeward route with no token, is sent through discovery, becomes a
// client (by dynamic registration, or by a client ID metadata document
// served over https under a CA made here), gets a person's consent in
// headless Chromium, lists and calls a tool, refreshes and calls again;
// on both stores.
func TestSDKHostThroughRoute(t *testing.T) {
	peers := jstest.InstallMCP(t)
	playwright := playwrightModule(t)
	for _, m := range []mode{embedded, database} {
		for _, how := range []string{"registration", "cimd"} {
			t.Run(string(m)+"/"+how, func(t *testing.T) {
				sdkHost(t, m, how, peers, playwright)
			})
		}
	}
}

func sdkHost(t *testing.T, m mode, how string, peers jstest.MCP, playwright string) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	rln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	resource := "http://" + rln.Addr().String() + "/mcp"

	// The host's metadata document, on https under a CA of this test's.
	port := freePort(t)
	ca := cimdtest.NewCA(t)
	var fetched atomic.Int32
	docs := http.NewServeMux()
	doc := ca.Server(t, docs)
	docURL := doc.URL + "/client.json"
	docs.HandleFunc("GET /client.json", func(w http.ResponseWriter, r *http.Request) {
		fetched.Add(1)
		w.Header().Set("Content-Type", "application/json")
		_, _ = fmt.Fprintf(w, `{"client_id":%q,"client_name":"typeward SDK host test","redirect_uris":["http://127.0.0.1:%d/callback"],
			"grant_types":["authorization_code","refresh_token"],"response_types":["code"],"token_endpoint_auth_method":"none"}`, docURL, port)
	})

	h := start(t, m, func(c *server.Config) {
		c.Registry = ""
		c.Resources = []string{resource}
		c.Registration = registration.Open
		c.CIMDRoots, c.CIMDAllowLoopback = ca.Pool(), true
		c.ConsoleUser, c.ConsolePassword = consoleUser, consolePassword
	})
	admin := h.adminToken()
	if r := h.admin(http.MethodPut, "/admin/v1/tools/echo", admin, []byte(echoTool)); r.status >= 300 {
		t.Fatalf("declare echo: %d %s", r.status, r.body)
	}
	rt, err := route.New(ctx, route.Config{Upstream: startEchoUpstream(t), Issuer: h.base, Resource: resource,
		Log: slog.New(slog.NewJSONHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	served := make(chan error, 1)
	rctx, stop := context.WithCancel(ctx)
	go func() { served <- rt.Serve(rctx, rln, nil, 5*time.Second) }()
	t.Cleanup(func() { stop(); <-served })

	cmd := peers.Command(ctx, peers.Script("sdk-host.mjs"))
	cmd.Env = append(os.Environ(), "TW_MCP_URL="+resource, "TW_MODE="+how, "TW_CIMD_URL="+docURL, "TW_TOOL=echo",
		`TW_ARGS={"text":"hello from the host"}`, "TW_PLAYWRIGHT="+playwright, "TW_USER="+consoleUser,
		"TW_PASSWORD="+consolePassword, fmt.Sprintf("TW_CALLBACK_PORT=%d", port))
	var stderr strings.Builder
	cmd.Stderr = &stderr
	stdout, err := cmd.Output()
	if err != nil {
		t.Fatalf("sdk-host.mjs: %v\n%s\n%s", err, stdout, stderr.String())
	}
	var out struct {
		Steps              []string
		Error              string
		Tools              []string
		Scope              string
		HasRefreshToken    bool
		Refresh            string
		FirstToken         string
		SecondToken        string
		Result             json.RawMessage
		ResultAfterRefresh json.RawMessage
		Callback           struct{ Code, State, Iss string }
		Consent            string
	}
	if err := json.Unmarshal(stdout, &out); err != nil {
		t.Fatalf("sdk-host.mjs printed %s: %v\n%s", stdout, err, stderr.String())
	}
	t.Logf("steps %v, scope %q, tools %v, refresh %s", out.Steps, out.Scope, out.Tools, out.Refresh)
	if out.Error != "" {
		t.Fatalf("the host failed after %v: %s\n%s", out.Steps, out.Error, stderr.String())
	}
	becomes := "client registered"
	if how == "cimd" {
		becomes = "client by metadata document"
	}
	for _, want := range []string{becomes, "signed in", "approved", "code redeemed", "tokens refreshed"} {
		if !slices.Contains(out.Steps, want) {
			t.Errorf("steps %v lack %q", out.Steps, want)
		}
	}
	// The person saw who asks and for what before pressing Approve.
	if !strings.Contains(out.Consent, "typeward SDK host test") || !strings.Contains(out.Consent, "echo") {
		t.Errorf("the consent page did not name the host and the tool:\n%s", out.Consent)
	}
	if how == "cimd" && fetched.Load() == 0 {
		t.Error("typeward never fetched the metadata document")
	}
	if out.Callback.Iss != h.base {
		t.Errorf("the authorization response's iss = %q, want %q (RFC 9207)", out.Callback.Iss, h.base)
	}
	if !slices.Equal(out.Tools, []string{"echo"}) || !out.HasRefreshToken || out.Refresh != "AUTHORIZED" ||
		out.FirstToken == "" || out.SecondToken == out.FirstToken {
		t.Errorf("tools %v, refresh token %v, refresh %q, tokens differ %v", out.Tools, out.HasRefreshToken, out.Refresh, out.SecondToken != out.FirstToken)
	}
	for name, res := range map[string]json.RawMessage{"first call": out.Result, "call after refresh": out.ResultAfterRefresh} {
		if !strings.Contains(string(res), `"echo":"hello from the host"`) || strings.Contains(string(res), `"isError":true`) {
			t.Errorf("%s = %s", name, res)
		}
	}
}
