package route_test

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/typeward/typeward/internal/route"
)

// A client's model usually reads a result's content, not its
// structuredContent. For a tool with an outputSchema, a text block that is
// JSON must be the structuredContent (compared canonically, RFC 8785); text
// that is not JSON is prose the router cannot judge and passes.
func TestContentAgreesWithStructuredContent(t *testing.T) {
	e := startEnv(t, nil)
	tok := e.pipelineToken(t, e.resource)
	const good = `{"rows":[{"region":"eu","total":3}],"row_count":1}`
	text := func(s string) string { b, _ := json.Marshal(s); return `{"type":"text","text":` + string(b) + `}` }
	for _, c := range []struct {
		name, content string
		refused       bool
	}{
		{"JSON text other than structuredContent", text(`{"rows":[{"region":"EVIL","total":9}],"row_count":1}`), true},
		{"a second text block other than structuredContent", text(good) + "," + text(`{"rows":[],"row_count":0,"note":"EVIL"}`), true},
		{"a bare JSON number", text(`7`), true},
		{"JSON text with a member twice", text(`{"rows":[{"region":"eu","total":3}],"row_count":1,"row_count":1}`), true},
		{"JSON text with a lone surrogate escape", text(`{"rows":[{"region":"\ud800","total":3}],"row_count":1}`), true},
		{"a text block without its type", `{"text":"{\"EVIL\":1}"}`, true},
		{"text spelt in another case", `{"type":"text","TEXT":"{\"EVIL\":1}"}`, true},
		{"the same JSON, another spelling", text(" {\"row_count\":1.0,\n\"rows\":[{\"total\":3,\"region\":\"\\u0065u\"}]} "), false},
		{"prose", text(`1 row in eu`), false},
		{"an image", `{"type":"image","data":"AAAA","mimeType":"image/png"}`, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := func(_, method string, id json.RawMessage) (string, string, bool) {
				if method != "tools/call" {
					return "", "", false
				}
				return "application/json", `{"jsonrpc":"2.0","id":` + string(id) + `,"result":{"structuredContent":` + good + `,"content":[` + c.content + `]}}`, true
			}
			e.up.forge.Store(&f)
			defer e.up.forge.Store(nil)
			_, body := e.rpc(t, tok, `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"db_query","arguments":{"sql":"select 1"}}}`, nil)
			refused := strings.Contains(string(body), `"code":-32603`)
			if refused != c.refused || (refused && strings.Contains(string(body), "EVIL")) {
				t.Errorf("refused %v, want %v: %s", refused, c.refused, body)
			}
		})
	}
}

// call sends one JSON-RPC message to the router from any goroutine: the
// status, the Retry-After header and the body, or an error.
func (e *env) call(token, body string) (int, string, string, error) {
	req, _ := http.NewRequest(http.MethodPost, e.resource, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := e.http.Do(req)
	if err != nil {
		return 0, "", "", err
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header.Get("Retry-After"), string(raw), err
}

const dbQueryCall = `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"db_query","arguments":{"sql":"select 1"}}}`

// When the live listing expires and the upstream's tools/list hangs, the
// calls that need it share one refresh, bounded by ListTimeout: they fail
// clearly within it instead of queueing behind one lock, each for an
// upstream timeout of its own.
func TestListRefreshIsSharedAndBounded(t *testing.T) {
	const ttl, timeout = 200 * time.Millisecond, 500 * time.Millisecond
	e := startEnv(t, func(c *route.Config) {
		c.ListTTL, c.UpstreamTimeout = ttl, 10*time.Second
		c.ListTimeout = timeout
	})
	tok := e.pipelineToken(t, e.resource)
	if _, _, body, err := e.call(tok, dbQueryCall); err != nil || !strings.Contains(body, `"row_count":2`) {
		t.Fatalf("a call before the upstream hangs: %v %s", err, body)
	}
	var listings atomic.Int32
	release := make(chan struct{})
	f := func(_, method string, id json.RawMessage) (string, string, bool) {
		if method == "tools/list" && string(id) == `"typeward-route-list"` {
			listings.Add(1)
			select {
			case <-release:
			case <-time.After(8 * time.Second):
			}
		}
		return "", "", false
	}
	e.up.forge.Store(&f)
	time.Sleep(ttl) // the listing expires
	const n = 20
	type answer struct {
		body string
		took time.Duration
		err  error
	}
	answers := make(chan answer, n)
	for range n {
		go func() {
			start := time.Now()
			_, _, body, err := e.call(tok, dbQueryCall)
			answers <- answer{body, time.Since(start), err}
		}()
	}
	for range n {
		a := <-answers
		if a.err != nil || !strings.Contains(a.body, `"code":-32003`) || !strings.Contains(a.body, "list-timeout") || a.took > timeout+time.Second {
			t.Errorf("a call while tools/list hangs: %v after %v: %s", a.err, a.took, a.body)
		}
	}
	if got := listings.Load(); got < 1 || got > 2 {
		t.Errorf("%d concurrent calls made %d listings, want 1 (or 2 if some came after the first timed out)", n, got)
	}
	close(release)
	e.up.forge.Store(nil)
	if _, _, body, err := e.call(tok, dbQueryCall); err != nil || !strings.Contains(body, `"row_count":2`) {
		t.Errorf("a call once the upstream lists again: %v %s", err, body)
	}
}
