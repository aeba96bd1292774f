package route

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"sync"
	"time"

	"github.com/typeward/typeward/verify"
)

// forwardedHeaders are the only request headers passed upstream: the
// client's token (Authorization) and cookies never are (MCP forbids token
// passthrough), nor hop-by-hop headers; Last-Event-Id only on a GET
// resuming a stream the router relayed (stream).
var forwardedHeaders = []string{
	"Accept", "Content-Type", "Mcp-Protocol-Version", "Mcp-Session-Id",
	verify.HeaderMcpMethod, verify.HeaderMcpName, "User-Agent",
}

// returnedHeaders are the upstream response headers passed back.
var returnedHeaders = []string{"Content-Type", "Content-Length", "Mcp-Session-Id", "Cache-Control"}

// upstreamRequest builds the request to the upstream for r with body.
func (rt *Router) upstreamRequest(ctx context.Context, r *http.Request, body []byte) (*http.Request, error) {
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, r.Method, rt.upstream.String(), rd)
	if err != nil {
		return nil, err
	}
	for _, h := range forwardedHeaders {
		for _, v := range r.Header.Values(h) {
			req.Header.Add(h, v)
		}
	}
	return req, nil
}

// exchange is one upstream answer read whole (bounded).
type exchange struct {
	status int
	header http.Header
	body   []byte
	sse    bool
}

// roundTrip sends req and reads the answer, at most MaxResponseBytes,
// charged to tk.
func (rt *Router) roundTrip(req *http.Request, tk *ticket) (*exchange, error) {
	start := rt.cfg.Now()
	resp, err := rt.upClient.Do(req)
	if err != nil {
		rt.metrics.upstreamSeconds.Observe(rt.cfg.Now().Sub(start).Seconds())
		return nil, err
	}
	defer resp.Body.Close()
	body, err := tk.read(resp.Body, rt.cfg.MaxResponseBytes)
	rt.metrics.upstreamSeconds.Observe(rt.cfg.Now().Sub(start).Seconds())
	if err != nil {
		return nil, err
	}
	if int64(len(body)) > rt.cfg.MaxResponseBytes {
		return nil, fmt.Errorf("the upstream answered more than %d bytes", rt.cfg.MaxResponseBytes)
	}
	mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	return &exchange{status: resp.StatusCode, header: resp.Header, body: body, sse: mt == "text/event-stream"}, nil
}

// write sends an exchange back to the client whole.
func (x *exchange) write(w http.ResponseWriter) {
	x.header.Set("Content-Length", fmt.Sprint(len(x.body)))
	x.writeHeader(w)
	_, _ = w.Write(x.body)
}

// writeHeader sends the answer's status and headers, under the content
// type the router read it as (a client must not read as SSE what the
// router read as JSON, or the reverse).
func (x *exchange) writeHeader(w http.ResponseWriter) {
	for _, h := range returnedHeaders {
		if v := x.header.Get(h); v != "" {
			w.Header().Set(h, v)
		}
	}
	switch {
	case !x.ok():
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.Header().Set("X-Content-Type-Options", "nosniff")
	case x.sse:
		w.Header().Set("Content-Type", "text/event-stream")
	case len(bytes.TrimSpace(x.body)) > 0:
		w.Header().Set("Content-Type", "application/json")
	}
	w.WriteHeader(x.status)
}

// ok reports a 2xx answer: only those carry JSON-RPC messages (write
// passes others on as plain text).
func (x *exchange) ok() bool { return x.status >= 200 && x.status < 300 }

// rewrite applies f to every JSON-RPC message of a 2xx answer (the JSON
// body unless empty, or each SSE event's data) and re-encodes the answer.
func (x *exchange) rewrite(f func(msg []byte) []byte) {
	if !x.ok() {
		return
	}
	if !x.sse {
		if len(bytes.TrimSpace(x.body)) == 0 {
			return
		}
		if out := f(x.body); out != nil {
			x.body = out // dropped: an empty answer
		}
		return
	}
	var out bytes.Buffer
	for _, ev := range splitEvents(x.body) {
		if ev.message() {
			if repl := f([]byte(ev.data)); repl != nil {
				ev.data, ev.hasData = string(repl), len(repl) > 0
			}
		}
		ev.write(&out)
	}
	x.body = out.Bytes()
}

// messages are the JSON-RPC messages of an answer.
func (x *exchange) messages() [][]byte {
	if !x.ok() {
		return nil
	}
	if !x.sse {
		return [][]byte{x.body}
	}
	var out [][]byte
	for _, ev := range splitEvents(x.body) {
		if ev.message() {
			out = append(out, []byte(ev.data))
		}
	}
	return out
}

// liveTools is the upstream's tools/list, as digests by tool name, read
// by the router itself and trusted for ttl from when it was asked for.
// A refresh is shared by the calls that need it (single flight), runs
// with no lock held and is bounded by timeout: when the upstream is slow
// to list, calls fail within timeout rather than queue behind it. An
// expired listing is never used, however the refresh goes.
type liveTools struct {
	rt      *Router
	ttl     time.Duration
	timeout time.Duration

	mu      sync.Mutex
	current *listing     // the newest listing read, nil before the first
	refresh *listingCall // the refresh in flight, nil when none is
}

// listing is one tools/list of the upstream's.
type listing struct {
	digests map[string]string
	asked   time.Time // its age counts from the request, not the answer
}

type listingCall struct {
	done chan struct{}
	l    *listing
	err  error
}

// errAbsent: the upstream does not list the tool.
var errAbsent = errors.New("absent")

// digest is the digest of the upstream's current declaration of name.
func (l *liveTools) digest(ctx context.Context, r *http.Request, name string) (string, error) {
	cur, err := l.get(ctx, r.Header.Get("Mcp-Session-Id"))
	if err != nil {
		return "", err
	}
	d, ok := cur.digests[name]
	if !ok {
		return "", errAbsent
	}
	return d, nil
}

// fresh reports a listing younger than ttl.
func (l *liveTools) fresh(c *listing) bool { return l.rt.cfg.Now().Sub(c.asked) < l.ttl }

// get is a listing no older than ttl: the current one, or the one the
// refresh in flight (started now if none is) reads.
func (l *liveTools) get(ctx context.Context, session string) (*listing, error) {
	if l.ttl == 0 {
		return l.read(ctx, session) // every call reads its own
	}
	l.mu.Lock()
	if c := l.current; c != nil && l.fresh(c) {
		l.mu.Unlock()
		return c, nil
	}
	call := l.refresh
	if call == nil {
		call = &listingCall{done: make(chan struct{})}
		l.refresh = call
		// Detached from the caller: one caller hanging up must not fail
		// the others waiting on the same refresh.
		go func(ctx context.Context) {
			call.l, call.err = l.read(ctx, session)
			l.mu.Lock()
			if call.err == nil && (l.current == nil || call.l.asked.After(l.current.asked)) {
				l.current = call.l
			}
			l.refresh = nil
			l.mu.Unlock()
			close(call.done)
		}(context.WithoutCancel(ctx))
	}
	l.mu.Unlock()
	select {
	case <-call.done:
	case <-ctx.Done():
		return nil, fmt.Errorf("listing the upstream's tools: %w", ctx.Err())
	}
	if call.err != nil {
		return nil, call.err
	}
	if !l.fresh(call.l) {
		return nil, fmt.Errorf("listing the upstream's tools took longer than the listing may be trusted (%v, --list-ttl)", l.ttl)
	}
	return call.l, nil
}

// read asks the upstream for its tools/list, within timeout.
func (l *liveTools) read(ctx context.Context, session string) (*listing, error) {
	ctx, cancel := context.WithTimeout(ctx, l.timeout)
	defer cancel()
	asked := l.rt.cfg.Now()
	d, err := l.rt.listUpstream(ctx, session)
	if err != nil {
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return nil, fmt.Errorf("listing the upstream's tools took longer than %v (--list-timeout)", l.timeout)
		}
		return nil, err
	}
	return &listing{digests: d, asked: asked}, nil
}

// listProtocolVersion is the MCP version of the router's own tools/list.
const listProtocolVersion = "2025-06-18"

// maxListPages bounds how many pages of tools/list the router follows.
const maxListPages = 100

// listUpstream asks the upstream for its tools/list, every page, and
// digests each tool's declaration as typeward does.
func (rt *Router) listUpstream(ctx context.Context, session string) (map[string]string, error) {
	// The router's own exchange: the calls waiting on it hold the slots,
	// its pages are charged one at a time.
	tk := rt.limit.unslotted()
	defer tk.done()
	out := map[string]string{}
	cursor := ""
	for page := 0; page < maxListPages; page++ {
		tk.done() // the page before is digested
		params := map[string]any{}
		if cursor != "" {
			params["cursor"] = cursor
		}
		body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": "typeward-route-list", "method": "tools/list", "params": params})
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, rt.upstream.String(), bytes.NewReader(body))
		if err != nil {
			return nil, err
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		// The router's own request, stateless: the 2025-06-18 protocol needs
		// no per-request metadata (SEP-2575's later versions would).
		req.Header.Set("Mcp-Protocol-Version", listProtocolVersion)
		if session != "" {
			req.Header.Set("Mcp-Session-Id", session)
		}
		req.Header.Set(verify.HeaderMcpMethod, "tools/list")
		x, err := rt.roundTrip(req, tk)
		if err != nil {
			return nil, fmt.Errorf("listing the upstream's tools: %w", err)
		}
		if x.status != http.StatusOK {
			return nil, fmt.Errorf("listing the upstream's tools: %d %.200s", x.status, x.body)
		}
		var result *listResult
		for _, m := range x.messages() {
			if msg, err := parseMessage(m); err == nil && string(msg.ID) == `"typeward-route-list"` && msg.Result != nil {
				result = &listResult{}
				if err := json.Unmarshal(msg.Result, result); err != nil {
					return nil, fmt.Errorf("listing the upstream's tools: %w", err)
				}
			}
		}
		if result == nil {
			return nil, errors.New("listing the upstream's tools: no result")
		}
		for _, t := range result.Tools {
			var decl struct {
				Name         string          `json:"name"`
				InputSchema  json.RawMessage `json:"inputSchema"`
				OutputSchema json.RawMessage `json:"outputSchema"`
			}
			if json.Unmarshal(t, &decl) != nil || decl.Name == "" {
				continue
			}
			d, err := verify.DeclarationDigest(decl.InputSchema, decl.OutputSchema)
			if err != nil {
				d = "undigestable: " + err.Error()
			}
			if _, twice := out[decl.Name]; twice {
				// Two declarations under one name: the proven one could
				// hide another a client takes.
				d = "(listed more than once)"
			}
			out[decl.Name] = d
		}
		if cursor = result.NextCursor; cursor == "" {
			return out, nil
		}
	}
	return nil, fmt.Errorf("listing the upstream's tools: more than %d pages", maxListPages)
}

type listResult struct {
	Tools      []json.RawMessage `json:"tools"`
	NextCursor string            `json:"nextCursor,omitempty"`
}
