package route_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/prometheus/client_golang/prometheus/testutil"
)

func rpcErr(t *testing.T, err error) *jsonrpc.Error {
	t.Helper()
	var we *jsonrpc.Error
	if !errors.As(err, &we) {
		t.Fatalf("want a JSON-RPC error, got %v", err)
	}
	return we
}

// TestRouterEndToEnd: typeward + typeward route + a go-sdk MCP server + a
// go-sdk client, every rule of the router.
func TestRouterEndToEnd(t *testing.T) {
	e := startEnv(t, nil)
	tok := e.pipelineToken(t, e.resource)
	ctx := context.Background()
	s := e.session(t, tok)

	t.Run("tools/list shows only the token's tools", func(t *testing.T) {
		res, err := s.ListTools(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, tl := range res.Tools {
			names = append(names, tl.Name)
		}
		slices.Sort(names)
		if want := []string{"aggregate_stats", "db_query", "email_send"}; !slices.Equal(names, want) {
			t.Errorf("tools %v, want %v", names, want)
		}
	})

	t.Run("invalid arguments: -32602 naming field and keyword, never forwarded; repaired call passes", func(t *testing.T) {
		before := e.up.count("db_query")
		_, err := s.CallTool(ctx, &mcp.CallToolParams{Name: "db_query", Arguments: map[string]any{"sql": 7, "limit": 0, "extra": true}})
		we := rpcErr(t, err)
		if we.Code != -32602 || !strings.HasPrefix(we.Message, "arguments.extra: not allowed (additionalProperties)") {
			t.Errorf("error %d %q", we.Code, we.Message)
		}
		var data struct {
			Errors []struct{ InstancePath, Keyword, Message string }
		}
		if err := json.Unmarshal(we.Data, &data); err != nil {
			t.Fatal(err)
		}
		var msgs []string
		for _, f := range data.Errors {
			msgs = append(msgs, f.InstancePath+" "+f.Keyword+" "+f.Message)
		}
		want := []string{
			"/extra additionalProperties arguments.extra: not allowed (additionalProperties)",
			"/limit minimum arguments.limit: minimum: got 0, want 1",
			"/sql type arguments.sql: expected string, got number",
		}
		if !slices.Equal(msgs, want) {
			t.Errorf("failures\n got %q\nwant %q", msgs, want)
		}
		if e.up.count("db_query") != before {
			t.Fatal("a call with invalid arguments reached the upstream")
		}
		// The agent repairs the arguments from the error and calls again.
		res, err := s.CallTool(ctx, &mcp.CallToolParams{Name: "db_query", Arguments: map[string]any{"sql": "select region, total from sales", "limit": 10}})
		if err != nil || res.IsError {
			t.Fatalf("repaired call: %v %+v", err, res)
		}
		if sc, _ := json.Marshal(res.StructuredContent); !strings.Contains(string(sc), `"row_count":2`) || e.up.count("db_query") != before+1 {
			t.Errorf("repaired call: structuredContent %s, upstream calls %d", sc, e.up.count("db_query"))
		}
	})

	t.Run("a result breaking the outputSchema is not passed on, and counted", func(t *testing.T) {
		e.up.breakOutput.Store(true)
		defer e.up.breakOutput.Store(false)
		before := testutil.ToFloat64(e.router.Metrics().OutputViolations("db_query"))
		_, err := s.CallTool(ctx, &mcp.CallToolParams{Name: "db_query", Arguments: map[string]any{"sql": "select 1"}})
		we := rpcErr(t, err)
		if we.Code != -32603 || !strings.Contains(we.Message, "tool db_query returned a result that breaks its outputSchema: structuredContent.row_count") ||
			!strings.Contains(we.Message, "(and 1 more)") || strings.Contains(we.Message, "not an array") {
			t.Errorf("error %d %q", we.Code, we.Message)
		}
		if got := testutil.ToFloat64(e.router.Metrics().OutputViolations("db_query")); got != before+1 {
			t.Errorf("output violations %v, want %v", got, before+1)
		}
	})

	t.Run("a tool outside the token: 403 insufficient_scope, never forwarded", func(t *testing.T) {
		resp, _ := e.rpc(t, tok, `{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"rm_rf","arguments":{}}}`, nil)
		want := `Bearer resource_metadata="` + strings.Replace(e.resource, "/mcp", "/.well-known/oauth-protected-resource/mcp", 1) +
			`", error="insufficient_scope", error_description="the token does not allow tool 'rm_rf'", ` +
			// The whole set at once: the token's tools and the refused one.
			`scope="mcp:tool:aggregate_stats mcp:tool:db_query mcp:tool:email_send mcp:tool:rm_rf"`
		if resp.StatusCode != http.StatusForbidden || resp.Header.Get("WWW-Authenticate") != want {
			t.Errorf("%d %s\nwant %s", resp.StatusCode, resp.Header.Get("WWW-Authenticate"), want)
		}
		if e.up.count("rm_rf") != 0 {
			t.Fatal("rm_rf reached the upstream")
		}
	})

	t.Run("no token, bad tokens: 401 with the challenge", func(t *testing.T) {
		meta := strings.Replace(e.resource, "/mcp", "/.well-known/oauth-protected-resource/mcp", 1)
		call := `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`
		resp, _ := e.rpc(t, "", call, nil)
		// Without a token, every tool the upstream serves at once.
		if got := resp.Header.Get("WWW-Authenticate"); resp.StatusCode != 401 || !strings.HasPrefix(got, `Bearer resource_metadata="`+meta+`", scope="`) ||
			!strings.Contains(got, " mcp:tool:db_query ") || !strings.Contains(got, " mcp:tool:rm_rf ") {
			t.Errorf("no token: %d %q", resp.StatusCode, got)
		}
		other := e.pipelineToken(t, "https://elsewhere.example.com/mcp")
		parts := strings.Split(tok, ".")
		tampered := parts[0] + "." + parts[1][:len(parts[1])-2] + "xx." + parts[2]
		for name, bad := range map[string]string{"wrong audience": other, "tampered": tampered, "garbage": "x.y.z"} {
			resp, _ := e.rpc(t, bad, call, nil)
			if resp.StatusCode != 401 || !strings.HasPrefix(resp.Header.Get("WWW-Authenticate"), `Bearer resource_metadata="`+meta+`", error="invalid_token"`) {
				t.Errorf("%s: %d %q", name, resp.StatusCode, resp.Header.Get("WWW-Authenticate"))
			}
		}
	})

	t.Run("Mcp-Name disagreeing with the body: 400", func(t *testing.T) {
		before := e.up.count("db_query")
		resp, _ := e.rpc(t, tok, `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"db_query","arguments":{"sql":"x"}}}`,
			map[string]string{"Mcp-Name": "email_send"})
		if resp.StatusCode != http.StatusBadRequest || e.up.count("db_query") != before {
			t.Errorf("%d, upstream calls %d -> %d", resp.StatusCode, before, e.up.count("db_query"))
		}
	})

	t.Run("the client's token never reaches the upstream", func(t *testing.T) {
		if e.up.requests.Load() == 0 || e.up.sawAuth.Load() != 0 {
			t.Errorf("%d upstream requests, %d with Authorization", e.up.requests.Load(), e.up.sawAuth.Load())
		}
	})

	t.Run("a tool whose declaration changed is refused naming both digests", func(t *testing.T) {
		sch := e.up.schemas["db_query"]
		e.up.override.Store(&[2]string{strings.Replace(sch[0], `"minLength": 1`, `"minLength": 2`, 1), sch[1]})
		defer e.up.override.Store(nil)
		before := e.up.count("db_query")
		_, err := s.CallTool(ctx, &mcp.CallToolParams{Name: "db_query", Arguments: map[string]any{"sql": "select 1"}})
		we := rpcErr(t, err)
		if we.Code != -32001 || !strings.Contains(we.Message, "tool db_query changed: the upstream declares sha256:") ||
			!strings.Contains(we.Message, "the composition was proven for sha256:") || e.up.count("db_query") != before {
			t.Errorf("error %d %q, upstream calls %d -> %d", we.Code, we.Message, before, e.up.count("db_query"))
		}
	})

	t.Run("protected resource metadata (RFC 9728)", func(t *testing.T) {
		for _, path := range []string{"/.well-known/oauth-protected-resource", "/.well-known/oauth-protected-resource/mcp"} {
			resp, err := e.http.Get(strings.Replace(e.resource, "/mcp", path, 1))
			if err != nil {
				t.Fatal(err)
			}
			var meta struct {
				Resource             string   `json:"resource"`
				AuthorizationServers []string `json:"authorization_servers"`
				BearerMethods        []string `json:"bearer_methods_supported"`
			}
			_ = json.NewDecoder(resp.Body).Decode(&meta)
			resp.Body.Close()
			if meta.Resource != e.resource || !slices.Equal(meta.AuthorizationServers, []string{e.issuer}) || !slices.Equal(meta.BearerMethods, []string{"header"}) {
				t.Errorf("%s: %+v", path, meta)
			}
		}
	})
}

// The same rules hold when the upstream answers with JSON instead of SSE.
func TestRouterJSONResponses(t *testing.T) {
	e := startEnvWith(t, nil, &mcp.StreamableHTTPOptions{Stateless: true, JSONResponse: true})
	tok := e.pipelineToken(t, e.resource)
	resp, body := e.rpc(t, tok, `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{}}`, map[string]string{"Mcp-Protocol-Version": "2025-06-18"})
	if resp.StatusCode != 200 || !strings.HasPrefix(resp.Header.Get("Content-Type"), "application/json") ||
		!strings.Contains(string(body), `"db_query"`) || strings.Contains(string(body), "rm_rf") || strings.Contains(string(body), "transform_csv") {
		t.Fatalf("tools/list: %d %s %s", resp.StatusCode, resp.Header.Get("Content-Type"), body)
	}
	call := `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"db_query","arguments":{"sql":"select 1"}}}`
	resp, body = e.rpc(t, tok, call, map[string]string{"Mcp-Protocol-Version": "2025-06-18"})
	if resp.StatusCode != 200 || !strings.Contains(string(body), `"row_count":2`) {
		t.Fatalf("tools/call: %d %s", resp.StatusCode, body)
	}
	e.up.breakOutput.Store(true)
	resp, body = e.rpc(t, tok, call, map[string]string{"Mcp-Protocol-Version": "2025-06-18"})
	var msg struct {
		ID    int `json:"id"`
		Error struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	if err := json.Unmarshal(body, &msg); err != nil || msg.ID != 2 || msg.Error.Code != -32603 || !strings.Contains(msg.Error.Message, "structuredContent.row_count") {
		t.Fatalf("broken result: %d %s", resp.StatusCode, body)
	}
}
