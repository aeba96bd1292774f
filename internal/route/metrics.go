package route

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"log/slog"
	"net/http"
	"sync"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/typeward/typeward/internal/metrics"
)

// Metrics are the router's Prometheus metrics, on a private registry.
type Metrics struct {
	reg              *prometheus.Registry
	calls            *prometheus.CounterVec
	refusals         *prometheus.CounterVec
	upstreamSeconds  prometheus.Histogram
	outputViolations *prometheus.CounterVec
}

func newMetrics() *Metrics {
	m := &Metrics{
		reg: prometheus.NewRegistry(),
		calls: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "typeward_route_tool_calls_total",
			Help: "tools/call requests by tool and outcome (ok, tool_error, invalid_arguments, output_violation, out_of_order, refused, upstream_error)."}, []string{"tool", "outcome"}),
		refusals: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "typeward_route_refusals_total",
			Help: "Requests refused, by reason."}, []string{"reason"}),
		upstreamSeconds: prometheus.NewHistogram(prometheus.HistogramOpts{Name: "typeward_route_upstream_seconds",
			Help: "Latency of upstream exchanges.", Buckets: prometheus.ExponentialBuckets(0.0005, 2, 16)}),
		outputViolations: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "typeward_route_output_violations_total",
			Help: "Results refused (not passed on) because their structuredContent broke the pinned outputSchema or their JSON text content was not the structuredContent, by tool."}, []string{"tool"}),
	}
	m.reg.MustRegister(m.calls, m.refusals, m.upstreamSeconds, m.outputViolations)
	return m
}

// watch exposes what the limiter holds.
func (m *Metrics) watch(l *limiter) {
	m.reg.MustRegister(
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "typeward_route_in_flight",
			Help: "Requests holding one of the --max-in-flight upstream exchange slots."}, func() float64 { return float64(len(l.slots)) }),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "typeward_route_buffered_bytes",
			Help: "Bytes charged against --max-buffered-bytes: the messages being checked, each byte counted 16 times."}, func() float64 { return float64(l.used.Load()) }))
}

// Handler exposes the metrics.
func (m *Metrics) Handler() http.Handler { return promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{}) }

// Registry is the private registry, for tests and embedding.
func (m *Metrics) Registry() *prometheus.Registry { return m.reg }

// calls counts one tools/call. The tool label is bounded: only tools a
// valid token names (registered tools) get here.
func (rt *Router) calls(tool, outcome string) { rt.metrics.calls.WithLabelValues(tool, outcome).Inc() }

// requestState is what one request's log line and metrics need.
type requestState struct {
	mu      sync.Mutex
	id      string
	tool    string
	method  string // the JSON-RPC method, "" for none (a GET, a response)
	scope   string // the scope an insufficient_scope refusal named
	refused string // the reason counted, "" when none was
}

type stateKey struct{}

func stateOf(ctx context.Context) *requestState {
	s, _ := ctx.Value(stateKey{}).(*requestState)
	if s == nil {
		return &requestState{}
	}
	return s
}

func requestID(ctx context.Context) string { return stateOf(ctx).id }

func setScope(ctx context.Context, scope string) {
	s := stateOf(ctx)
	s.mu.Lock()
	s.scope = scope
	s.mu.Unlock()
}

func setMethod(ctx context.Context, method string) {
	s := stateOf(ctx)
	s.mu.Lock()
	s.method = method
	s.mu.Unlock()
}

func setTool(ctx context.Context, tool string) {
	s := stateOf(ctx)
	s.mu.Lock()
	s.tool = tool
	s.mu.Unlock()
}

// refuse counts a refusal by reason, once per request.
func (rt *Router) refuse(r *http.Request, reason string) {
	s := stateOf(r.Context())
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.refused == "" {
		s.refused = reason
		rt.metrics.refusals.WithLabelValues(reason).Inc()
	}
}

// observe gives each request an id, counts the refusals verify's
// middleware answered (by status), and logs one line per request. The
// token is never logged.
func (rt *Router) observe(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var b [8]byte
		_, _ = rand.Read(b[:])
		s := &requestState{id: hex.EncodeToString(b[:])}
		sw := &metrics.StatusWriter{ResponseWriter: w}
		start := rt.cfg.Now()
		next.ServeHTTP(sw, r.WithContext(context.WithValue(r.Context(), stateKey{}, s)))
		reason := map[int]string{http.StatusUnauthorized: "invalid_token", http.StatusForbidden: "tool_not_in_token",
			http.StatusBadRequest: "bad_request", http.StatusRequestEntityTooLarge: "too_large"}[sw.Status]
		if reason == "invalid_token" && r.Header.Get("Authorization") == "" {
			reason = "no_token"
		}
		if reason != "" {
			rt.refuse(r.WithContext(context.WithValue(r.Context(), stateKey{}, s)), reason)
		}
		s.mu.Lock()
		defer s.mu.Unlock()
		rt.cfg.Log.LogAttrs(r.Context(), slog.LevelInfo, "request", slog.String("request_id", s.id),
			slog.String("method", r.Method), slog.String("path", r.URL.Path), slog.Int("status", sw.Status),
			slog.String("rpc_method", s.method), slog.String("tool", s.tool), slog.String("scope", s.scope), slog.String("refused", s.refused), slog.Duration("duration", rt.cfg.Now().Sub(start)))
	})
}

// OutputViolations is the counter of results of tool that broke its
// pinned outputSchema.
func (m *Metrics) OutputViolations(tool string) prometheus.Counter {
	return m.outputViolations.WithLabelValues(tool)
}
