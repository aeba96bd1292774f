package route_test

import (
	"io"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/typeward/typeward/internal/route"
)

// BenchmarkToolCallLatency: one tools/call of db_query (valid arguments,
// valid result) sent straight to the go-sdk upstream and through typeward
// route, in one run, each reporting p50 and p99 latency. The difference is
// the router's added latency: token verification, argument and result
// validation, the forwarding hop.
func BenchmarkToolCallLatency(b *testing.B) {
	// The command's default: the upstream's tools/list is re-read every
	// 30 s, not on every call.
	e := startEnv(b, func(c *route.Config) { c.ListTTL = route.DefaultListTTL })
	tok := e.pipelineToken(b, e.resource)
	const call = `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"db_query","arguments":{"sql":"select 1","limit":10}}}`
	client := &http.Client{Timeout: 10 * time.Second}
	for _, target := range []struct {
		name, url, token string
	}{{"direct", e.up.url, ""}, {"routed", e.resource, tok}} {
		b.Run(target.name, func(b *testing.B) {
			send := func() time.Duration {
				req, _ := http.NewRequest(http.MethodPost, target.url, strings.NewReader(call))
				req.Header.Set("Content-Type", "application/json")
				req.Header.Set("Accept", "application/json, text/event-stream")
				req.Header.Set("Mcp-Protocol-Version", "2025-06-18")
				if target.token != "" {
					req.Header.Set("Authorization", "Bearer "+target.token)
				}
				start := time.Now()
				resp, err := client.Do(req)
				if err != nil {
					b.Fatal(err)
				}
				body, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				d := time.Since(start)
				if resp.StatusCode != http.StatusOK || !strings.Contains(string(body), `"row_count":2`) {
					b.Fatalf("%d %s", resp.StatusCode, body)
				}
				return d
			}
			send() // warm: JWKS, pinned schemas, the upstream's tools/list
			var lat []time.Duration
			for b.Loop() {
				lat = append(lat, send())
			}
			slices.Sort(lat)
			b.ReportMetric(float64(lat[len(lat)/2].Microseconds()), "p50-µs")
			b.ReportMetric(float64(lat[min(len(lat)-1, len(lat)*99/100)].Microseconds()), "p99-µs")
		})
	}
}
