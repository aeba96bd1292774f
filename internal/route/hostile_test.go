package route_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/typeward/typeward/internal/route"
)

// A hostile upstream answers a tools/call of db_query (whose outputSchema
// wants rows an array and row_count >= 0) in ways a client could read as
// a result the router never checked. Each answer must reach the client as
// a JSON-RPC error at most, never with the forged result ("EVIL").
func TestHostileUpstreamAnswers(t *testing.T) {
	e := startEnv(t, nil)
	tok := e.pipelineToken(t, e.resource)
	const bad = `{"rows":"EVIL","row_count":-1}`
	const good = `{"rows":[],"row_count":0}`
	msg := func(id, result string) string {
		return `{"jsonrpc":"2.0","id":` + id + `,"result":` + result + `}`
	}
	sc := func(v string) string { return `{"structuredContent":` + v + `}` }
	cases := []struct {
		name, contentType string
		body              func(id string) string
	}{
		{"id spelt differently (7.0 for 7)", "application/json", func(id string) string { return msg(id+".0", sc(bad)) }},
		{"an answer for another request's id", "application/json", func(string) string { return msg("8", sc(bad)) }},
		{"a JSON array of answers", "application/json", func(id string) string { return "[" + msg(id, sc(bad)) + "]" }},
		{"isError in another case", "application/json", func(id string) string {
			return msg(id, `{"structuredContent":`+bad+`,"ISERROR":true}`)
		}},
		{"result twice, in two cases", "application/json", func(id string) string {
			return `{"jsonrpc":"2.0","id":` + id + `,"result":` + sc(bad) + `,"RESULT":{"isError":true}}`
		}},
		{"structuredContent twice", "application/json", func(id string) string {
			return msg(id, `{"structuredContent":`+bad+`,"structuredContent":`+good+`}`)
		}},
		{"no structuredContent although the tool declares an outputSchema", "application/json", func(id string) string {
			return msg(id, `{"content":[{"type":"text","text":"EVIL"}]}`)
		}},
		{"SSE events split by bare CR", "text/event-stream", func(id string) string {
			return "data: " + msg(id, sc(bad)) + "\r\rdata: " + msg(id, sc(good)) + "\r\r"
		}},
		{"SSE stream opening with a BOM", "text/event-stream", func(id string) string {
			return "\ufeffdata: " + msg(id, sc(bad)) + "\n\n"
		}},
		{"SSE data field without a colon joining lines", "text/event-stream", func(id string) string {
			return "data\ndata: " + msg(id, sc(bad)) + "\n\n"
		}},
		{"SSE event answering another id first", "text/event-stream", func(id string) string {
			return "data: " + msg("8", sc(bad)) + "\n\ndata: " + msg(id, sc(good)) + "\n\n"
		}},
		{"a request of the server's the router does not pass (tasks/get) inside the call's stream", "text/event-stream", func(id string) string {
			return `data: {"jsonrpc":"2.0","id":"s-1","method":"tasks/get","params":{"taskId":"EVIL"}}` + "\n\n"
		}},
		{"a request of the server's with an object id", "text/event-stream", func(id string) string {
			return `data: {"jsonrpc":"2.0","id":{"EVIL":1},"method":"roots/list"}` + "\n\n"
		}},
		{"SSE under a content type only a substring match sees", "application/x-mcp; profile=text/event-stream", func(id string) string {
			return "data: " + msg(id, sc(bad)) + "\n\n"
		}},
	}
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := func(_, method string, _ json.RawMessage) (string, string, bool) {
				if method != "tools/call" {
					return "", "", false
				}
				return c.contentType, c.body("7"), true
			}
			e.up.forge.Store(&f)
			defer e.up.forge.Store(nil)
			_ = i
			resp, body := e.rpc(t, tok, `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"db_query","arguments":{"sql":"select 1"}}}`,
				map[string]string{"Mcp-Protocol-Version": "2025-06-18"})
			if strings.Contains(string(body), "EVIL") || !strings.Contains(string(body), `"code":-32603`) {
				t.Errorf("%d %s\n%s", resp.StatusCode, resp.Header.Get("Content-Type"), body)
			}
		})
	}

	t.Run("tools/list answered for another id is filtered all the same", func(t *testing.T) {
		f := func(_, method string, id json.RawMessage) (string, string, bool) {
			if method != "tools/list" || string(id) == `"typeward-route-list"` {
				return "", "", false
			}
			return "application/json", msg(string(id)+".0", `{"tools":[{"name":"rm_rf","inputSchema":{"type":"object"}}]}`), true
		}
		e.up.forge.Store(&f)
		defer e.up.forge.Store(nil)
		_, body := e.rpc(t, tok, `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{}}`, nil)
		if strings.Contains(string(body), "rm_rf") {
			t.Errorf("%s", body)
		}
	})

	t.Run("a ping answered with another request's result", func(t *testing.T) {
		f := func(_, method string, id json.RawMessage) (string, string, bool) {
			if method != "ping" {
				return "", "", false
			}
			return "text/event-stream", "data: " + msg("8", sc(bad)) + "\n\ndata: " + msg(string(id), "{}") + "\n\n", true
		}
		e.up.forge.Store(&f)
		defer e.up.forge.Store(nil)
		_, body := e.rpc(t, tok, `{"jsonrpc":"2.0","id":9,"method":"ping"}`, nil)
		if strings.Contains(string(body), "EVIL") {
			t.Errorf("%s", body)
		}
	})

	t.Run("GET: no unchecked answers on the session's stream", func(t *testing.T) {
		f := func(httpMethod, _ string, _ json.RawMessage) (string, string, bool) {
			if httpMethod != http.MethodGet {
				return "", "", false
			}
			return "text/event-stream", "data: " + msg("7", sc(bad)) + "\n\n" +
				`data: {"jsonrpc":"2.0","id":"s-2","method":"sampling/createMessage","params":{"messages":[{"role":"user","content":{"type":"text","text":"EVIL"}}],"maxTokens":9}}` + "\n\n" +
				`data: {"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":"fine"}}` + "\n\n", true
		}
		e.up.forge.Store(&f)
		defer e.up.forge.Store(nil)
		resp, body := e.get(t, tok, nil)
		if resp.StatusCode != http.StatusOK || strings.Contains(body, "EVIL") || !strings.Contains(body, `"data":"fine"`) {
			t.Errorf("%d %s", resp.StatusCode, body)
		}
	})

	t.Run("GET: no resumption of a stream the router did not relay", func(t *testing.T) {
		before := e.up.requests.Load()
		resp, body := e.get(t, tok, map[string]string{"Last-Event-Id": "s::1"})
		if resp.StatusCode != http.StatusBadRequest || e.up.requests.Load() != before {
			t.Errorf("%d %s (upstream requests %d -> %d)", resp.StatusCode, body, before, e.up.requests.Load())
		}
	})
}

// Requests whose arguments a server could read otherwise than the router
// did never reach the upstream.
func TestAmbiguousArguments(t *testing.T) {
	e := startEnv(t, nil)
	tok := e.pipelineToken(t, e.resource)
	for name, params := range map[string]string{
		"a member twice (first wins elsewhere)": `{"name":"db_query","arguments":{"sql":5,"sql":"select 1"}}`,
		"a member twice in two cases":           `{"name":"aggregate_stats","arguments":{"records":[],"RECORDS":"x"}}`,
		"a nested member twice":                 `{"name":"aggregate_stats","arguments":{"records":[{"a":1,"a":2}]}}`,
		"arguments spelt in another case":       `{"name":"aggregate_stats","Arguments":{"records":[]}}`,
		"name spelt in another case":            `{"Name":"db_query","arguments":{"sql":"select 1"}}`,
		"bytes that are not UTF-8":              "{\"name\":\"db_query\",\"arguments\":{\"sql\":\"select \xff\"}}",
		"a lone surrogate escape":               `{"name":"db_query","arguments":{"sql":"select \ud800"}}`,
		"a lone low surrogate escape":           `{"name":"db_query","arguments":{"sql":"select \udc00\ud800"}}`,
	} {
		t.Run(name, func(t *testing.T) {
			before := e.up.rawCalls.Load()
			resp, body := e.rpc(t, tok, `{"jsonrpc":"2.0","id":4,"method":"tools/call","params":`+params+`}`, nil)
			if e.up.rawCalls.Load() != before {
				t.Errorf("reached the upstream: %d %s", resp.StatusCode, body)
			}
			if resp.StatusCode != http.StatusBadRequest && !strings.Contains(string(body), `"code":-32602`) {
				t.Errorf("%d %s", resp.StatusCode, body)
			}
		})
	}
}

// Numbers whose exponent makes them costly: the validator turns each into
// a big.Rat to check "integer" (1e-999999 takes ~20 ms), so 100 KB of them
// would hold a CPU for minutes. They are refused before any schema sees
// them, in arguments and in results alike.
func TestCostlyNumbers(t *testing.T) {
	e := startEnv(t, nil)
	tok := e.compositionToken(t, e.resource, `{"nodes":[{"id":"n","tool":"sum_ints"}],"edges":[]}`)
	nums := strings.TrimSuffix(strings.Repeat("1e-999999,", 2000), ",")
	before := e.up.rawCalls.Load()
	start := time.Now()
	resp, body := e.rpc(t, tok, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"sum_ints","arguments":{"xs":[`+nums+`]}}}`, nil)
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("the router spent %v on 2000 numbers", d)
	}
	if e.up.rawCalls.Load() != before || (resp.StatusCode != http.StatusBadRequest && !strings.Contains(string(body), `"code":-32602`)) {
		t.Errorf("%d %.300s", resp.StatusCode, body)
	}
	// An ordinary call still passes, and so does an exponent of ordinary size.
	resp, body = e.rpc(t, tok, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"sum_ints","arguments":{"xs":[1,2e3,-0,1E+2]}}}`, nil)
	if !strings.Contains(string(body), `"total"`) {
		t.Errorf("%d %s", resp.StatusCode, body)
	}
	f := func(_, method string, id json.RawMessage) (string, string, bool) {
		if method != "tools/call" {
			return "", "", false
		}
		return "application/json", `{"jsonrpc":"2.0","id":` + string(id) + `,"result":{"structuredContent":{"total":[` + nums + `]}}}`, true
	}
	e.up.forge.Store(&f)
	defer e.up.forge.Store(nil)
	start = time.Now()
	_, body = e.rpc(t, tok, `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"sum_ints","arguments":{"xs":[1]}}}`, nil)
	if d := time.Since(start); d > 2*time.Second || !strings.Contains(string(body), `"code":-32603`) {
		t.Errorf("%v %.300s", d, body)
	}
}

// MCP: a server must validate Origin (DNS rebinding) and answer 403 when
// it is present and not allowed. The router allows its own origin only.
func TestOriginChecked(t *testing.T) {
	e := startEnv(t, nil)
	tok := e.pipelineToken(t, e.resource)
	ping := `{"jsonrpc":"2.0","id":1,"method":"ping"}`
	own := strings.TrimSuffix(e.resource, "/mcp")
	for origin, want := range map[string]int{
		"":                    http.StatusOK,
		own:                   http.StatusOK,
		strings.ToUpper(own):  http.StatusOK,
		"http://evil.example": http.StatusForbidden,
		"null":                http.StatusForbidden,
		own + ".evil.example": http.StatusForbidden,
		"https" + own[4:]:     http.StatusForbidden,
	} {
		before := e.up.requests.Load()
		h := map[string]string{}
		if origin != "" {
			h["Origin"] = origin
		}
		resp, body := e.rpc(t, tok, ping, h)
		if resp.StatusCode != want {
			t.Errorf("Origin %q: %d %s", origin, resp.StatusCode, body)
		}
		if want == http.StatusForbidden && e.up.requests.Load() != before {
			t.Errorf("Origin %q reached the upstream", origin)
		}
	}
}

// A composition token authorizes tools: methods reaching anything else of
// the upstream are refused, never forwarded: resources, prompts and
// completions without their scope (403 insufficient_scope naming it),
// tasks (tasks/result would carry a tool's result unchecked) and anything
// unknown (-32601).
func TestOnlyToolMethods(t *testing.T) {
	e := startEnv(t, nil)
	tok := e.pipelineToken(t, e.resource)
	params := map[string]string{
		"resources/read":           `{"uri":"file:///etc/passwd"}`,
		"resources/subscribe":      `{"uri":"file:///etc/passwd"}`,
		"resources/list":           `{}`,
		"resources/templates/list": `{}`,
		"prompts/get":              `{"name":"p"}`,
		"prompts/list":             `{}`,
		"completion/complete":      `{"ref":{"type":"ref/prompt","name":"p"},"argument":{"name":"a","value":"b"}}`,
	}
	scope := map[string]string{"resources/read": "mcp:resources:file:///etc/passwd", "resources/subscribe": "mcp:resources:file:///etc/passwd",
		"resources/list": "mcp:resources", "resources/templates/list": "mcp:resources", "prompts/get": "mcp:prompts:p", "prompts/list": "mcp:prompts",
		"completion/complete": "mcp:completions"}
	for method, p := range params {
		before := e.up.requests.Load()
		resp, body := e.rpc(t, tok, `{"jsonrpc":"2.0","id":5,"method":"`+method+`","params":`+p+`}`, nil)
		if e.up.requests.Load() != before || resp.StatusCode != http.StatusForbidden ||
			!strings.Contains(resp.Header.Get("WWW-Authenticate"), `error="insufficient_scope"`) ||
			!strings.Contains(resp.Header.Get("WWW-Authenticate"), `scope="`+scope[method]+`"`) {
			t.Errorf("%s: %d %s %s (upstream requests %d -> %d)", method, resp.StatusCode, resp.Header.Get("WWW-Authenticate"), body, before, e.up.requests.Load())
		}
	}
	for _, method := range []string{"tasks/result", "tasks/get", "tasks/list", "sampling/createMessage", "x/custom"} {
		before := e.up.requests.Load()
		resp, body := e.rpc(t, tok, `{"jsonrpc":"2.0","id":5,"method":"`+method+`","params":{"uri":"file:///etc/passwd","name":"p","taskId":"t"}}`, nil)
		if e.up.requests.Load() != before || !strings.Contains(string(body), `"code":-32601`) || !strings.Contains(string(body), `"id":5`) {
			t.Errorf("%s: %d %s (upstream requests %d -> %d)", method, resp.StatusCode, body, before, e.up.requests.Load())
		}
	}
	for _, m := range []string{`{"jsonrpc":"2.0","id":6,"method":"ping"}`, `{"jsonrpc":"2.0","method":"notifications/initialized"}`} {
		before := e.up.requests.Load()
		resp, body := e.rpc(t, tok, m, nil)
		if e.up.requests.Load() != before+1 || resp.StatusCode >= 300 {
			t.Errorf("%s: %d %s", m, resp.StatusCode, body)
		}
	}
}

// A tools/call must be a request with a string or number id: as a
// notification the upstream may run the tool while no answer comes back
// to check (and --enforce-order, seeing no result, gave the run back, so
// a node limited to one run per source run could run any number of
// times); a null, object or array id is no JSON-RPC request id MCP allows.
func TestToolCallNeedsAnID(t *testing.T) {
	e := startEnv(t, nil)
	tok := e.pipelineToken(t, e.resource)
	for _, id := range []string{``, `"id":null,`, `"id":{"a":1},`, `"id":[1],`, `"id":true,`} {
		before := e.up.rawCalls.Load()
		resp, body := e.rpc(t, tok, `{"jsonrpc":"2.0",`+id+`"method":"tools/call","params":{"name":"email_send","arguments":{"to":"a@example.com","subject":"s","body":"b"}}}`, nil)
		if e.up.rawCalls.Load() != before || (resp.StatusCode != http.StatusBadRequest && !strings.Contains(string(body), `"code":-32600`)) {
			t.Errorf("id %q: %d %s", id, resp.StatusCode, body)
		}
	}
	resp, body := e.rpc(t, tok, `{"jsonrpc":"2.0","id":"s-1","method":"tools/call","params":{"name":"db_query","arguments":{"sql":"select '\ud83d\ude00', '\\ud800'"}}}`, nil)
	if !strings.Contains(string(body), `"row_count"`) {
		t.Errorf("a string id: %d %s", resp.StatusCode, body)
	}
}

// --enforce-order: a call that reached the upstream but got no answer (the
// client hung up, the upstream timed out) may have run: it counts against
// the node's own limit. Before, it was given back, so a client hanging up
// at once could run a node limited to one run any number of times.
func TestHangUpStillCounts(t *testing.T) {
	e := startEnv(t, func(c *route.Config) { c.EnforceOrder = true })
	tok := e.pipelineToken(t, e.resource)
	ok := func(id int, tool, args string) {
		t.Helper()
		resp, body := e.rpc(t, tok, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":%q,"arguments":%s}}`, id, tool, args), nil)
		if !strings.Contains(string(body), `"result"`) {
			t.Fatalf("%s: %d %s", tool, resp.StatusCode, body)
		}
	}
	ok(1, "db_query", `{"sql":"select 1"}`)
	ok(2, "aggregate_stats", `{"records":[]}`)
	release := make(chan struct{})
	f := func(_, method string, id json.RawMessage) (string, string, bool) {
		if method != "tools/call" {
			return "", "", false
		}
		<-release // the tool runs (the mail goes out) while the client has gone
		return "application/json", `{"jsonrpc":"2.0","id":` + string(id) + `,"result":{"structuredContent":{"message_id":"m-2"}}}`, true
	}
	e.up.forge.Store(&f)
	send := `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"email_send","arguments":{"to":"a@example.com","body":"hi"}}}`
	req, _ := http.NewRequest(http.MethodPost, e.resource, strings.NewReader(send))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Authorization", "Bearer "+tok)
	before := e.up.rawCalls.Load()
	if _, err := (&http.Client{Timeout: 300 * time.Millisecond}).Do(req); err == nil {
		t.Fatal("the call answered; want the client to give up")
	}
	close(release)
	e.up.forge.Store(nil)
	if e.up.rawCalls.Load() != before+1 {
		t.Fatalf("the call did not reach the upstream")
	}
	time.Sleep(100 * time.Millisecond) // the router notices the hang-up
	_, body := e.rpc(t, tok, strings.Replace(send, `"id":3`, `"id":4`, 1), nil)
	if !strings.Contains(string(body), `"code":-32002`) || e.up.rawCalls.Load() != before+1 {
		t.Errorf("email_send ran again: %s (upstream calls %d)", body, e.up.rawCalls.Load()-before)
	}
}

// The router does not follow the upstream's redirects: a 307 would have it
// send the call (body and MCP headers) wherever the upstream names, from
// the router's place in the network (SSRF).
func TestNoUpstreamRedirects(t *testing.T) {
	var sink atomic.Int32
	sinkLn := listen(t)
	sinkSrv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { sink.Add(1) })}
	go sinkSrv.Serve(sinkLn)
	t.Cleanup(func() { sinkSrv.Close() })
	redirLn := listen(t)
	redirSrv := &http.Server{Handler: http.RedirectHandler("http://"+sinkLn.Addr().String()+"/internal", http.StatusTemporaryRedirect)}
	go redirSrv.Serve(redirLn)
	t.Cleanup(func() { redirSrv.Close() })
	e := startEnv(t, func(c *route.Config) { c.Upstream = "http://" + redirLn.Addr().String() + "/mcp" })
	tok := e.pipelineToken(t, e.resource)
	for _, m := range []string{`{"jsonrpc":"2.0","id":1,"method":"ping"}`, `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`,
		`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"db_query","arguments":{"sql":"select 1"}}}`} {
		resp, body := e.rpc(t, tok, m, nil)
		if strings.Contains(string(body), `"result"`) || resp.Header.Get("Location") != "" {
			t.Errorf("%s: %d %s", m, resp.StatusCode, body)
		}
	}
	if n := sink.Load(); n != 0 {
		t.Errorf("the router followed the upstream's redirect %d times", n)
	}
}

// An upstream listing a tool twice declares two things under one name:
// the proven declaration last would hide another one first, which a
// client may take. Such a tool is refused as changed.
func TestToolListedTwice(t *testing.T) {
	e := startEnv(t, func(c *route.Config) { c.ListTTL = 0 })
	tok := e.pipelineToken(t, e.resource)
	sch := e.up.schemas["db_query"]
	decl := func(in string) string {
		return `{"name":"db_query","inputSchema":` + in + `,"outputSchema":` + sch[1] + `}`
	}
	f := func(_, method string, id json.RawMessage) (string, string, bool) {
		if method != "tools/list" {
			return "", "", false
		}
		return "application/json", `{"jsonrpc":"2.0","id":` + string(id) + `,"result":{"tools":[` + decl(`{"type":"object"}`) + `,` + decl(sch[0]) + `]}}`, true
	}
	e.up.forge.Store(&f)
	defer e.up.forge.Store(nil)
	before := e.up.rawCalls.Load()
	_, body := e.rpc(t, tok, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"db_query","arguments":{"sql":"select 1"}}}`, nil)
	if !strings.Contains(string(body), `"code":-32001`) || e.up.rawCalls.Load() != before {
		t.Errorf("%s", body)
	}
}
