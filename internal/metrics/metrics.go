// Package metrics holds typeward's Prometheus collectors on a private
// registry, so nothing leaks in through the global default registry and
// each server (or test) owns its own set.
package metrics

import (
	"net/http"
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// OtherClient is the client label of every client outside the configured
// set: it bounds the cardinality of typeward_tokens_issued_total.
const OtherClient = "other"

// Metrics is every collector typeward exports.
type Metrics struct {
	registry *prometheus.Registry

	TokenRequests      *prometheus.CounterVec   // outcome, reason
	TokensIssued       *prometheus.CounterVec   // client
	ValidationDuration *prometheus.HistogramVec // cache: hit or miss
	CompositionEdges   prometheus.Histogram
	ValidationIssues   *prometheus.CounterVec // severity, code
	CompositionsStale  prometheus.Gauge
	HTTPDuration       *prometheus.HistogramVec // method, route, status

	labelledClients map[string]bool
}

// Options configure New.
type Options struct {
	// LabelledClients are the client ids that get their own client label;
	// every other client counts under OtherClient.
	LabelledClients []string
}

// New registers every collector, with the Go and process collectors, on a
// fresh registry.
func New(opts Options) *Metrics {
	m := &Metrics{
		registry: prometheus.NewRegistry(),
		TokenRequests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "typeward_token_requests_total",
			Help: "Token endpoint requests by outcome (issued, denied, error) and reason (the OAuth error code, or ok).",
		}, []string{"outcome", "reason"}),
		TokensIssued: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "typeward_tokens_issued_total",
			Help: "Access tokens issued, by client (configured clients only; the rest count as \"other\").",
		}, []string{"client"}),
		ValidationDuration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "typeward_validation_duration_seconds",
			Help:    "Time to answer whether a requested composition validates, by cache: hit (the validation cache answered) or miss (validated).",
			Buckets: []float64{.00001, .0001, .00025, .0005, .001, .0025, .005, .01, .025, .05, .1, .25, 1},
		}, []string{"cache"}),
		CompositionEdges: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name:    "typeward_composition_edges",
			Help:    "Edges per requested composition, cached validations included.",
			Buckets: []float64{1, 2, 4, 8, 16, 32, 64, 128},
		}),
		ValidationIssues: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "typeward_validation_issues_total",
			Help: "Issues reported by composition validation, by severity and code.",
		}, []string{"severity", "code"}),
		CompositionsStale: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "typeward_compositions_stale",
			Help: "Stored compositions whose last validation no longer holds against the registry.",
		}),
		HTTPDuration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "typeward_http_request_duration_seconds",
			Help:    "HTTP request duration by method, route pattern and status code.",
			Buckets: prometheus.DefBuckets,
		}, []string{"method", "route", "status"}),
		labelledClients: make(map[string]bool, len(opts.LabelledClients)),
	}
	for _, c := range opts.LabelledClients {
		m.labelledClients[c] = true
	}
	m.registry.MustRegister(
		m.TokenRequests, m.TokensIssued, m.ValidationDuration, m.CompositionEdges,
		m.ValidationIssues, m.CompositionsStale, m.HTTPDuration,
		collectors.NewGoCollector(),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
	)
	return m
}

// WatchRegistryCache exports the registry cache's own counters, read at
// scrape time so the hot path counts only once (in the cache).
func (m *Metrics) WatchRegistryCache(hits, misses func() float64) {
	m.registry.MustRegister(
		prometheus.NewCounterFunc(prometheus.CounterOpts{
			Name: "typeward_registry_cache_hits_total",
			Help: "Tool resolutions answered from the registry cache.",
		}, hits),
		prometheus.NewCounterFunc(prometheus.CounterOpts{
			Name: "typeward_registry_cache_misses_total",
			Help: "Tool resolutions that went to the store.",
		}, misses),
	)
}

// WatchSigningKey exports the age of the active signing key, read at
// scrape time.
func (m *Metrics) WatchSigningKey(age func() float64) {
	m.registry.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{
		Name: "typeward_signing_key_age_seconds",
		Help: "Age of the key currently signing tokens (0 when none signs).",
	}, age))
}

// WatchAuditBuffer exports the audit outage buffer (records held in
// memory while the database is unavailable, and those dropped because the
// buffer was full), read at scrape time.
func (m *Metrics) WatchAuditBuffer(buffered func() (waiting int, dropped uint64)) {
	m.registry.MustRegister(
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Name: "typeward_audit_outage_buffered",
			Help: "Audit records held in memory until the database answers again.",
		}, func() float64 { n, _ := buffered(); return float64(n) }),
		prometheus.NewCounterFunc(prometheus.CounterOpts{
			Name: "typeward_audit_outage_dropped_total",
			Help: "Audit records dropped because the outage buffer was full.",
		}, func() float64 { _, d := buffered(); return float64(d) }),
	)
}

// Registry is the private registry, for tests and extra collectors.
func (m *Metrics) Registry() *prometheus.Registry { return m.registry }

// Handler serves the registry in the Prometheus exposition format.
func (m *Metrics) Handler() http.Handler {
	return promhttp.HandlerFor(m.registry, promhttp.HandlerOpts{Registry: m.registry})
}

// ClientLabel is the label value counting clientID: itself when configured,
// else OtherClient.
func (m *Metrics) ClientLabel(clientID string) string {
	if m.labelledClients[clientID] {
		return clientID
	}
	return OtherClient
}

// ObserveHTTP records one finished request under its route pattern (never
// the raw path: that would make the label set unbounded).
func (m *Metrics) ObserveHTTP(method, route string, status int, took time.Duration) {
	m.HTTPDuration.WithLabelValues(method, route, strconv.Itoa(status)).Observe(took.Seconds())
}
