package route_test

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/typeward/typeward/internal/route"
)

// open POSTs body to the router and returns the answer's body to read as
// it arrives.
func (e *env) open(t *testing.T, token, body string, headers map[string]string) (*http.Response, *bufio.Reader) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, e.resource, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Authorization", "Bearer "+token)
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	resp, err := e.http.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	return resp, bufio.NewReader(resp.Body)
}

// nextData is the next SSE data line of rd, "" at the end.
func nextData(rd *bufio.Reader) string {
	for {
		line, err := rd.ReadString('\n')
		if d, ok := strings.CutPrefix(strings.TrimRight(line, "\r\n"), "data: "); ok {
			return d
		}
		if err != nil {
			return ""
		}
	}
}

// flushed writes s to w and flushes it.
func flushed(w http.ResponseWriter, s string) {
	_, _ = io.WriteString(w, s)
	w.(http.Flusher).Flush()
}

const samplingCall = `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"db_query","arguments":{"sql":"select 1"}}}`

// A request of the server's inside an authorized tool call reaches the
// client while the call waits, the client's answer reaches the server,
// and the call's result then comes; the router passes that answer once,
// and no answer to a request it did not pass.
func TestServerRequestInsideACall(t *testing.T) {
	e := startEnv(t, nil)
	tok := e.pipelineToken(t, e.resource)
	answered := make(chan string, 4)
	a := func(w http.ResponseWriter, method string, id json.RawMessage) bool {
		switch {
		case method == "tools/call":
			w.Header().Set("Content-Type", "text/event-stream")
			flushed(w, `data: {"jsonrpc":"2.0","id":"s-1","method":"sampling/createMessage","params":{"messages":[{"role":"user","content":{"type":"text","text":"hi"}}],"maxTokens":9}}`+"\n\n")
			select {
			case m := <-answered:
				flushed(w, `data: {"jsonrpc":"2.0","id":7,"result":{"structuredContent":{"rows":[],"row_count":0},"content":[{"type":"text","text":"`+strings.ReplaceAll(m, `"`, `'`)+`"}]}}`+"\n\n")
			case <-time.After(5 * time.Second):
			}
			return true
		case method == "" && id != nil:
			answered <- string(id)
			w.WriteHeader(http.StatusAccepted)
			return true
		}
		return false
	}
	e.up.answer.Store(&a)
	defer e.up.answer.Store(nil)
	before := e.up.requests.Load()
	resp, body := e.rpc(t, tok, `{"jsonrpc":"2.0","id":"s-9","result":{}}`, nil)
	if resp.StatusCode != http.StatusBadRequest || e.up.requests.Load() != before {
		t.Errorf("an answer to a request never passed: %d %s", resp.StatusCode, body)
	}
	_, rd := e.open(t, tok, samplingCall, nil)
	if ask := nextData(rd); !strings.Contains(ask, `"method":"sampling/createMessage"`) {
		t.Fatalf("the server's request did not reach the client: %q", ask)
	}
	answer := `{"jsonrpc":"2.0","id":"s-1","result":{"role":"assistant","content":{"type":"text","text":"ok"},"model":"m"}}`
	if resp, body := e.rpc(t, tok, answer, nil); resp.StatusCode != http.StatusAccepted {
		t.Fatalf("the client's answer: %d %s", resp.StatusCode, body)
	}
	if result := nextData(rd); !strings.Contains(result, `"row_count":0`) || !strings.Contains(result, "s-1") {
		t.Errorf("the call's result: %q", result)
	}
	if resp, body := e.rpc(t, tok, answer, nil); resp.StatusCode != http.StatusBadRequest {
		t.Errorf("a second answer to s-1: %d %s", resp.StatusCode, body)
	}
}

// Progress notifications pass tied to the request they report on; a
// cancellation passes only for a request the router is relaying.
func TestNotificationsTiedToTheirCall(t *testing.T) {
	e := startEnv(t, nil)
	tok := e.pipelineToken(t, e.resource)
	progress := func(token string) string {
		return `data: {"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":` + token + `,"progress":1}}` + "\n\n"
	}
	a := func(w http.ResponseWriter, method string, id json.RawMessage) bool {
		if method != "tools/call" {
			return false
		}
		w.Header().Set("Content-Type", "text/event-stream")
		flushed(w, progress(`"p-other"`)+progress(`"p-mine"`)+
			`data: {"jsonrpc":"2.0","id":`+string(id)+`,"result":{"structuredContent":{"rows":[],"row_count":0}}}`+"\n\n")
		return true
	}
	e.up.answer.Store(&a)
	defer e.up.answer.Store(nil)
	_, body := e.rpc(t, tok, `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"db_query","arguments":{"sql":"select 1"},"_meta":{"progressToken":"p-mine"}}}`, nil)
	if !strings.Contains(string(body), `"p-mine"`) || strings.Contains(string(body), `"p-other"`) || !strings.Contains(string(body), `"row_count":0`) {
		t.Errorf("%s", body)
	}
	before := e.up.requests.Load()
	resp, _ := e.rpc(t, tok, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":99}}`, nil)
	if resp.StatusCode != http.StatusAccepted || e.up.requests.Load() != before {
		t.Errorf("a cancellation of no request in flight: %d, upstream requests %d -> %d", resp.StatusCode, before, e.up.requests.Load())
	}
}

// A stream resumed with Last-Event-ID is judged as the stream it resumes:
// a tool result arriving on it is checked against the pinned outputSchema.
func TestResumedStreamIsChecked(t *testing.T) {
	e := startEnv(t, nil)
	tok := e.pipelineToken(t, e.resource)
	for name, c := range map[string]struct{ result, want, not string }{
		"a result breaking the outputSchema": {`{"structuredContent":{"rows":"EVIL","row_count":-1}}`, `"code":-32603`, "EVIL"},
		"a valid result":                     {`{"structuredContent":{"rows":[],"row_count":0}}`, `"row_count":0`, `"error"`},
	} {
		t.Run(name, func(t *testing.T) {
			var event atomic.Int32
			a := func(w http.ResponseWriter, method string, id json.RawMessage) bool {
				if method != "tools/call" {
					return false
				}
				// SEP-1699: a priming event, then the server closes the stream.
				w.Header().Set("Content-Type", "text/event-stream")
				flushed(w, "id: ev-"+name+"\nretry: 10\ndata: \n\n")
				return true
			}
			f := func(httpMethod, _ string, _ json.RawMessage) (string, string, bool) {
				if httpMethod != http.MethodGet {
					return "", "", false
				}
				event.Add(1)
				return "text/event-stream", "id: ev2\ndata: {\"jsonrpc\":\"2.0\",\"id\":7,\"result\":" + c.result + "}\n\n", true
			}
			e.up.answer.Store(&a)
			e.up.forge.Store(&f)
			defer e.up.answer.Store(nil)
			defer e.up.forge.Store(nil)
			_, body := e.rpc(t, tok, samplingCall, nil)
			if !strings.Contains(string(body), "id: ev-"+name) {
				t.Fatalf("no priming event: %s", body)
			}
			resp, got := e.get(t, tok, map[string]string{"Last-Event-Id": "ev-" + name})
			if resp.StatusCode != http.StatusOK || event.Load() != 1 || !strings.Contains(got, c.want) || strings.Contains(got, c.not) {
				t.Errorf("%d %s", resp.StatusCode, got)
			}
		})
	}
}

// A GET stream is not cut by the time bound of a POST's answer (nor by a
// server write timeout): it lasts while the upstream sends, and ends after
// --stream-idle-timeout without a byte.
func TestLongGETStream(t *testing.T) {
	e := startEnv(t, func(c *route.Config) {
		c.UpstreamTimeout, c.StreamIdleTimeout = 200*time.Millisecond, 500*time.Millisecond
	})
	tok := e.pipelineToken(t, e.resource)
	const events = 8
	upstreamDone := make(chan struct{})
	a := func(w http.ResponseWriter, method string, id json.RawMessage) bool {
		if method != "" || id != nil {
			return false
		}
		defer close(upstreamDone)
		w.Header().Set("Content-Type", "text/event-stream")
		for i := range events {
			flushed(w, `data: {"jsonrpc":"2.0","method":"notifications/message","params":{"level":"info","data":`+string(rune('0'+i))+`}}`+"\n\n")
			time.Sleep(150 * time.Millisecond) // 8 x 150 ms: far past the upstream timeout
		}
		time.Sleep(5 * time.Second) // silent: the idle bound ends the stream
		return true
	}
	e.up.answer.Store(&a)
	defer e.up.answer.Store(nil)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, e.resource, nil)
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set("Authorization", "Bearer "+tok)
	resp, err := e.http.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	rd := bufio.NewReader(resp.Body)
	got := 0
	for nextData(rd) != "" {
		got++
	}
	select {
	case <-upstreamDone:
		t.Errorf("the stream lasted until the upstream ended it, not the idle bound")
	default:
	}
	if got != events {
		t.Errorf("%d of %d events", got, events)
	}
}
