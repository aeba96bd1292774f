package route_test

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"sync"
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

// answer is what one of concurrent calls got.
type answer struct {
	status     int
	retryAfter string
	body       string
	took       time.Duration
	err        error
}

// calls sends n dbQueryCalls at once; their answers arrive as they come.
func (e *env) calls(token string, n int) <-chan answer {
	answers := make(chan answer, n)
	for range n {
		go func() {
			start := time.Now()
			status, ra, body, err := e.call(token, dbQueryCall)
			answers <- answer{status, ra, body, time.Since(start), err}
		}()
	}
	return answers
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
	answers := e.calls(tok, n)
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

// Requests beyond what the router may hold at once are answered 503 with
// Retry-After at once, never forwarded, rather than each buffering an
// answer of up to --max-response-bytes: 200 concurrent calls to a slow
// upstream all reached it at the same time. "At once" is shown without a
// clock: the upstream holds every call until each of the 200 is either
// answered or held there, so a refusal that waited for the upstream would
// never come.
func TestConcurrentExchangesBounded(t *testing.T) {
	e := startEnv(t, nil)
	tok := e.pipelineToken(t, e.resource)
	if _, _, body, err := e.call(tok, dbQueryCall); err != nil || !strings.Contains(body, `"row_count":2`) {
		t.Fatalf("%v %s", err, body) // the listing and the schemas are read
	}
	var now, most atomic.Int32
	release := make(chan struct{})
	f := func(_, method string, id json.RawMessage) (string, string, bool) {
		if method != "tools/call" {
			return "", "", false
		}
		n := now.Add(1)
		for m := most.Load(); n > m && !most.CompareAndSwap(m, n); m = most.Load() {
		}
		<-release
		return "application/json", `{"jsonrpc":"2.0","id":` + string(id) + `,"result":{"structuredContent":{"rows":[],"row_count":0}}}`, true
	}
	e.up.forge.Store(&f)
	defer e.up.forge.Store(nil)
	const n = 200
	answers := e.calls(tok, n)
	ok, busy := 0, 0
	count := func(a answer, released bool) {
		switch {
		case released && a.err == nil && a.status == http.StatusOK && strings.Contains(a.body, `"row_count":0`):
			ok++
		case a.err == nil && a.status == http.StatusServiceUnavailable && a.retryAfter != "" && strings.Contains(a.body, `"code":-32003`):
			busy++
		default:
			t.Errorf("released %v: %d (Retry-After %q): %v %.300s", released, a.status, a.retryAfter, a.err, a.body)
		}
	}
	got := 0
	deadline := time.After(time.Minute)
	for got+int(now.Load()) < n {
		select {
		case a := <-answers:
			count(a, false)
			got++
		case <-time.After(10 * time.Millisecond):
		case <-deadline:
			close(release)
			t.Fatalf("with the upstream holding %d calls, only %d of the other %d were answered: refusals waited", now.Load(), got, n-int(now.Load()))
		}
	}
	close(release)
	for ; got < n; got++ {
		count(<-answers, true)
	}
	if m := most.Load(); m > route.DefaultMaxInFlight || ok < 1 || busy < n-route.DefaultMaxInFlight {
		t.Errorf("%d calls at the upstream at once (at most %d allowed); %d answered, %d refused 503", m, route.DefaultMaxInFlight, ok, busy)
	}
	settles(t, e, "typeward_route_in_flight", 0)
}

// The bytes of answers being checked are bounded too: answers that arrive
// slowly, each holding a megabyte in the router, are refused once
// MaxBufferedBytes is spent, rather than each buffering up to
// MaxResponseBytes (502 without Retry-After: the call reached the upstream
// and may have run); the budget is whole again when they are done.
func TestBufferedBytesBounded(t *testing.T) {
	const mb = 1 << 20
	e := startEnv(t, func(c *route.Config) {
		c.MaxBodyBytes, c.MaxResponseBytes = mb/4, 2*mb
		c.MaxBufferedBytes = 16 * 4 * mb // room for 3 answers of 1 MB held, and a little more
		c.ListTTL = time.Minute          // the calls' answers only
	})
	tok := e.pipelineToken(t, e.resource)
	if _, _, body, err := e.call(tok, dbQueryCall); err != nil || !strings.Contains(body, `"row_count":2`) {
		t.Fatalf("%v %s", err, body)
	}
	release := make(chan struct{})
	a := func(w http.ResponseWriter, method string, id json.RawMessage) bool {
		if method != "tools/call" {
			return false
		}
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = io.WriteString(w, ": "+strings.Repeat("x", mb)+"\n") // an SSE comment, held by the router
		w.(http.Flusher).Flush()
		select {
		case <-release:
		case <-time.After(5 * time.Second):
		}
		_, _ = io.WriteString(w, `data: {"jsonrpc":"2.0","id":`+string(id)+`,"result":{"structuredContent":{"rows":[],"row_count":0}}}`+"\n\n")
		return true
	}
	e.up.answer.Store(&a)
	defer e.up.answer.Store(nil)
	const n = 8
	answers := e.calls(tok, n)
	ok, busy := 0, 0
	count := func(a answer) {
		switch {
		case a.err == nil && a.status == http.StatusOK && strings.Contains(a.body, `"row_count":0`):
			ok++
		case a.err == nil && a.status == http.StatusBadGateway && strings.Contains(a.body, "may have run") && strings.Contains(a.body, "max-buffered-bytes"):
			busy++
		default:
			t.Errorf("%d %v %.300s", a.status, a.err, a.body)
		}
	}
	for range n - 3 { // those beyond the budget are answered before the release
		select {
		case a := <-answers:
			count(a)
		case <-time.After(3 * time.Second):
			t.Fatalf("%d of %d calls answered while %d MB of answers are held; want %d refused", busy, n, n, n-3)
		}
	}
	if ok != 0 {
		t.Errorf("%d calls answered before the upstream finished", ok)
	}
	close(release)
	for range 3 {
		count(<-answers)
	}
	if ok < 1 || busy < n-3 {
		t.Errorf("%d answered, %d refused; want 1 to 3 answered", ok, busy)
	}
	e.up.answer.Store(nil)
	if _, _, body, err := e.call(tok, dbQueryCall); err != nil || !strings.Contains(body, `"row_count":2`) {
		t.Errorf("a call once the answers are done: %v %s", err, body)
	}
	settles(t, e, "typeward_route_buffered_bytes", 0)
	settles(t, e, "typeward_route_in_flight", 0)
}

// settles waits (a second at most) for one of the router's gauges to read
// want: a handler finishes just after its answer is written.
func settles(t *testing.T, e *env, name string, want float64) {
	t.Helper()
	got := -1.0
	for deadline := time.Now().Add(time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		mfs, err := e.router.Metrics().Registry().Gather()
		if err != nil {
			t.Fatal(err)
		}
		for _, mf := range mfs {
			if mf.GetName() == name {
				got = mf.GetMetric()[0].GetGauge().GetValue()
			}
		}
		if got == want {
			return
		}
	}
	t.Errorf("%s = %v, want %v", name, got, want)
}

// Concurrent calls reuse the router's connections to the upstream: its
// default transport keeps as many idle as --max-in-flight allows, not
// net/http's two per host, which closed the rest after every answer and
// dialled again for the next call.
func TestUpstreamConnectionsReused(t *testing.T) {
	e := startEnv(t, nil)
	tok := e.compositionToken(t, e.resource, `{"nodes":[{"id":"n","tool":"sum_ints"}],"edges":[]}`)
	const callers, rounds = 8, 5
	for range rounds {
		var wg sync.WaitGroup
		for range callers {
			wg.Go(func() {
				if status, _, body, err := e.call(tok, `{"jsonrpc":"2.0","id":1,"method":"ping"}`); err != nil || status != http.StatusOK {
					t.Errorf("ping: %d %s %v", status, body, err)
				}
			})
		}
		wg.Wait()
	}
	// One per caller at most, and the router's own listing.
	if n := e.up.conns.Load(); n > callers+1 {
		t.Errorf("%d calls in %d rounds of %d opened %d connections to the upstream, want at most %d", callers*rounds, rounds, callers, n, callers+1)
	}
}
