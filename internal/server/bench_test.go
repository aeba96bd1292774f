package server_test

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/typeward/typeward/internal/server"
	"github.com/typeward/typeward/internal/token"
	"github.com/typeward/typeward/verify"
)

// benchConcurrency are the numbers of concurrent HTTP clients measured:
// few (each request's wait for the audit commit shows) and many (the
// audit's group commit amortises it over concurrent requests).
var benchConcurrency = []int{8, 64}

// loadResult is one or more load runs.
type loadResult struct {
	elapsed   time.Duration
	latencies []time.Duration
	cpu       cpuUse
	cpuOK     bool // every run read its CPU counters
}

func (r loadResult) perSecond() float64 { return float64(len(r.latencies)) / r.elapsed.Seconds() }

func (r loadResult) p99() time.Duration {
	l := slices.Clone(r.latencies)
	slices.Sort(l)
	return l[(len(l)*99)/100]
}

func (r *loadResult) add(o loadResult) {
	r.cpuOK = o.cpuOK && (r.cpuOK || len(r.latencies) == 0)
	r.elapsed += o.elapsed
	r.latencies = append(r.latencies, o.latencies...)
	r.cpu.add(o.cpu)
}

// load sends n POSTs with the given body from workers concurrent clients
// and measures the time and each latency. Every answer must be 200.
func load(b testing.TB, client *http.Client, target, authorization, body string, n, workers int) loadResult {
	b.Helper()
	latencies := make([]time.Duration, n)
	var next atomic.Int64
	var failed atomic.Value
	var wg sync.WaitGroup
	cpu0, ok0 := readCPU()
	started := time.Now()
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1)) - 1
				if i >= n {
					return
				}
				req, _ := http.NewRequest(http.MethodPost, target, strings.NewReader(body))
				req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
				req.Header.Set("Authorization", authorization)
				t0 := time.Now()
				resp, err := client.Do(req)
				if err != nil {
					failed.Store(err.Error())
					return
				}
				_, _ = io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				latencies[i] = time.Since(t0)
				if resp.StatusCode != http.StatusOK {
					failed.Store(resp.Status)
					return
				}
			}
		}()
	}
	wg.Wait()
	elapsed := time.Since(started)
	cpu1, ok1 := readCPU()
	if f := failed.Load(); f != nil {
		b.Fatalf("%s: %v", target, f)
	}
	return loadResult{elapsed: elapsed, latencies: latencies, cpu: cpu1.minus(cpu0), cpuOK: ok0 && ok1}
}

// benchRounds is how many alternating slices of the load each side gets:
// on a shared machine the load of others changes from second to second,
// and alternating gives both sides the same share of it, so their ratio
// holds even when the absolute rates do not.
const benchRounds = 8

// ceiling is the bare handler the token endpoint is measured against: it
// parses the form and signs the same claims with the same key, nothing
// else (no authentication, validation, audit or store).
func ceiling(minter *token.Minter, claims verify.Claims) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if err := r.ParseForm(); err != nil || r.PostForm.Get("authorization_details") == "" {
			http.Error(w, "bad form", http.StatusBadRequest)
			return
		}
		c := claims
		tok, err := minter.Sign(&c)
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		writeCeilingAnswer(w, tok, c)
	})
}

// writeCeilingAnswer writes a ceiling's token answer, as typeward's.
func writeCeilingAnswer(w http.ResponseWriter, tok string, c verify.Claims) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	_ = json.NewEncoder(w).Encode(map[string]any{"access_token": tok, "token_type": "Bearer", "expires_in": 300,
		"scope": strings.Join(c.Scope, " "), "authorization_details": c.AuthorizationDetails})
}

// BenchmarkTokenEndpoint loads the token endpoint of a Postgres-backed
// typeward over loopback HTTP with the valid example pipeline (warm
// caches), then the sign-only ceiling handler in the same run, and
// reports both rates, both p99 latencies and their ratio; then the same
// for the embedded server (memory stores), which shows what the database
// costs. BenchmarkDurableCeiling measures the Postgres server against a
// ceiling that commits too.
//
// It also reports what a token cost the machine's CPU (cpuUse): this
// process (server and load generator), PostgreSQL, other processes and
// idle time, in µs per token; on a shared machine others-cpu says how
// much of the run was noise. cpu-bound-%-of-ceiling compares the rates
// those costs allow, each side alone on all cores with none idle: no
// scheduling of the same work can lift the ratio above it, and it moves
// less with the noise than the measured rates do.
func BenchmarkTokenEndpoint(b *testing.B) {
	for _, m := range []mode{database, embedded} {
		b.Run("store="+string(m), func(b *testing.B) {
			benchAgainstCeiling(b, m, func(_ *harness, minter *token.Minter, claims verify.Claims) http.Handler {
				return ceiling(minter, claims)
			})
		})
	}
}

// BenchmarkDurableCeiling loads the Postgres-backed token endpoint and,
// alternating in the same run, the durable ceiling (durableCeiling): raw
// ES256 signing plus one minimal audit row per token, group-committed as
// typeward commits, synchronous_commit on, in the same database. Its
// %-of-ceiling is how close durable issuance is to its own limit on this
// machine; the sign-only ceiling of BenchmarkTokenEndpoint is beyond any
// issuer that waits for a disk.
func BenchmarkDurableCeiling(b *testing.B) {
	benchAgainstCeiling(b, database, func(h *harness, minter *token.Minter, claims verify.Claims) http.Handler {
		return durableCeiling(b, h, minter, claims)
	})
}

// benchAgainstCeiling measures the token endpoint of a server in mode m
// against the handler makeCeiling returns, alternating, at each of
// benchConcurrency.
func benchAgainstCeiling(b *testing.B, m mode, makeCeiling func(*harness, *token.Minter, verify.Claims) http.Handler) {
	h, c, authorization, body := tokenLoadSetup(b, m)
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 128}, Timeout: 10 * time.Second}
	b.Cleanup(client.CloseIdleConnections)
	// Warm the registry cache, the validator memo and the connections.
	load(b, client, h.base+"/oauth2/token", authorization, body, 200, 8)

	// The ceiling signs the claims of a real token with the same keyring.
	var answer tokenAnswer
	h.postForm("/oauth2/token", c.ID, c.Secret, mustValues(body)).json(b, &answer)
	v, err := verify.New(verify.Config{Issuer: h.base, Audience: routerAud, JWKSURL: h.base + "/.well-known/jwks.json"})
	if err != nil {
		b.Fatal(err)
	}
	claims, err := v.Verify(b.Context(), answer.AccessToken)
	if err != nil {
		b.Fatal(err)
	}
	minter, err := token.NewMinter(token.Config{Issuer: h.base, TTL: 5 * time.Minute, Signers: h.srv.Keyring()})
	if err != nil {
		b.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	bare := &http.Server{Handler: makeCeiling(h, minter, *claims)}
	go func() { _ = bare.Serve(ln) }()
	b.Cleanup(func() { bare.Close() })
	load(b, client, "http://"+ln.Addr().String()+"/", authorization, body, 200, 8)

	for _, workers := range benchConcurrency {
		b.Run(fmt.Sprintf("clients=%d", workers), func(b *testing.B) {
			var tw, ceil loadResult
			for round := range benchRounds {
				n := b.N/benchRounds + boolInt(round < b.N%benchRounds)
				if n == 0 {
					continue
				}
				tw.add(load(b, client, h.base+"/oauth2/token", authorization, body, n, workers))
				ceil.add(load(b, client, "http://"+ln.Addr().String()+"/", authorization, body, n, workers))
			}
			b.ReportMetric(0, "ns/op")
			b.ReportMetric(tw.perSecond(), "tokens/s")
			b.ReportMetric(float64(tw.p99().Microseconds())/1000, "p99-ms")
			b.ReportMetric(ceil.perSecond(), "ceiling-tokens/s")
			b.ReportMetric(float64(ceil.p99().Microseconds())/1000, "ceiling-p99-ms")
			b.ReportMetric(100*tw.perSecond()/ceil.perSecond(), "%-of-ceiling")
			if tw.cpuOK && ceil.cpuOK {
				n, nc := len(tw.latencies), len(ceil.latencies)
				b.ReportMetric(perToken(tw.cpu.self, n), "self-cpu-µs/token")
				b.ReportMetric(perToken(tw.cpu.postgres, n), "postgres-cpu-µs/token")
				b.ReportMetric(perToken(tw.cpu.idle, n), "idle-µs/token")
				b.ReportMetric(perToken(tw.cpu.others()+ceil.cpu.others(), n+nc), "others-cpu-µs/token")
				b.ReportMetric(perToken(ceil.cpu.self, nc), "ceiling-self-cpu-µs/token")
				b.ReportMetric(perToken(ceil.cpu.postgres, nc), "ceiling-postgres-cpu-µs/token")
				b.ReportMetric(100*tw.cpu.boundPerSecond(n)/ceil.cpu.boundPerSecond(nc), "cpu-bound-%-of-ceiling")
			}
		})
	}
}

// tokenLoadSetup starts a typeward in mode m with the example registry and an unlimited client allowed every tool, and returns the
// client, its Basic header and the body of a token request for the valid
// example pipeline.
func tokenLoadSetup(t testing.TB, m mode) (h *harness, c registered, authorization, body string) {
	h = start(t, m, func(c *server.Config) {
		c.Registry = ""
		c.RateLimit, c.RateBurst = 1e9, 1<<30
	})
	admin := h.adminToken()
	registerExamples(t, h, admin)
	c = h.createClient(admin, map[string]any{"client_name": "bench", "allowed_tools": []string{"*"}, "allowed_audiences": []string{routerAud}})
	authorization = "Basic " + base64.StdEncoding.EncodeToString([]byte(c.ID+":"+c.Secret))
	body = url.Values{"grant_type": {"client_credentials"}, "resource": {routerAud},
		"authorization_details": {compositionDetails(t, "../../examples/pipeline-valid.json")}}.Encode()
	return h, c, authorization, body
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

func mustValues(body string) url.Values {
	v, _ := url.ParseQuery(body)
	return v
}
