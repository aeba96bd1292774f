package route_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/typeward/typeward/internal/jstest"
	"github.com/typeward/typeward/internal/route"
)

// BenchmarkToolCallLatency: the router's overhead per tools/call. One
// tools/call of bench_rows (a 20-row structuredContent under an
// outputSchema, and its JSON text) against a stateless server answering
// JSON, sent straight to it and through typeward route alternately in one
// loop, each over one keep-alive connection of its own; it reports both
// p50s and p99s and their ratio (routed/direct). Against the go-sdk server
// (one server of bench_rows) and the TypeScript SDK reference server
// (scripts/mcp/server.mjs --stateless --json). The router's listing is
// re-read every 30 s (the default), not on every call.
func BenchmarkToolCallLatency(b *testing.B) {
	const call = `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"bench_rows","arguments":{"region":"eu","limit":20}}}`
	b.Run("go-sdk", func(b *testing.B) {
		up := startBenchUpstream(b)
		e := startEnv(b, func(c *route.Config) { c.Upstream, c.ListTTL = up, route.DefaultListTTL })
		alternate(b, up, e.resource, e.compositionToken(b, e.resource, `{"nodes":[{"id":"b","tool":"bench_rows"}],"edges":[]}`), call)
	})
	b.Run("ts-sdk", func(b *testing.B) {
		ref := startReference(b, jstest.InstallMCP(b), "--stateless", "--json")
		e := startEnv(b, func(c *route.Config) { c.Upstream, c.ListTTL = ref, route.DefaultListTTL })
		e.declareReference(b, ref)
		alternate(b, ref, e.resource, e.everyToolToken(b, []string{"bench_rows"}, ""), call)
	})
}

// startBenchUpstream runs a go-sdk server of bench_rows alone, built once
// (the tests' upstream builds a server per request, to change its tools
// mid-test), stateless, answering JSON.
func startBenchUpstream(b *testing.B) string {
	s := mcp.NewServer(&mcp.Implementation{Name: "bench", Version: "1"}, nil)
	s.AddTool(&mcp.Tool{Name: "bench_rows", InputSchema: json.RawMessage(benchRows.InputSchema), OutputSchema: json.RawMessage(benchRows.OutputSchema)},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{StructuredContent: json.RawMessage(benchRows.StructuredContent),
				Content: []mcp.Content{&mcp.TextContent{Text: benchRows.StructuredContent}}}, nil
		})
	ln := listen(b)
	srv := &http.Server{Handler: mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, &mcp.StreamableHTTPOptions{Stateless: true, JSONResponse: true})}
	go srv.Serve(ln)
	b.Cleanup(func() { srv.Close() })
	return "http://" + ln.Addr().String() + "/mcp"
}

// alternate times call sent to direct and to routed (with token), one
// after the other per iteration.
func alternate(b *testing.B, direct, routed, token, call string) {
	client := func() *http.Client {
		return &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{MaxConnsPerHost: 1, MaxIdleConnsPerHost: 1}}
	}
	dc, rc := client(), client()
	send := func(c *http.Client, url, token string) time.Duration {
		req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(call))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Mcp-Protocol-Version", "2025-06-18")
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		start := time.Now()
		resp, err := c.Do(req)
		if err != nil {
			b.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		d := time.Since(start)
		if resp.StatusCode != http.StatusOK || !strings.Contains(string(body), `"row_count":20`) {
			b.Fatalf("%s: %d %s", url, resp.StatusCode, body)
		}
		return d
	}
	for range 20 { // warm: JWKS, pinned schemas, the listing, connections, JIT
		send(dc, direct, "")
		send(rc, routed, token)
	}
	var ds, rs []time.Duration
	for b.Loop() {
		ds = append(ds, send(dc, direct, ""))
		rs = append(rs, send(rc, routed, token))
	}
	q := func(l []time.Duration, p int) float64 {
		slices.Sort(l)
		return float64(l[min(len(l)-1, len(l)*p/100)].Microseconds())
	}
	d50, r50 := q(ds, 50), q(rs, 50)
	b.ReportMetric(d50, "direct-p50-µs")
	b.ReportMetric(r50, "routed-p50-µs")
	b.ReportMetric(q(ds, 99), "direct-p99-µs")
	b.ReportMetric(q(rs, 99), "routed-p99-µs")
	b.ReportMetric(r50/d50, "p50-ratio")
	b.ReportMetric(0, "ns/op")
}
