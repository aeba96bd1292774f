package server

import (
	"context"
	"errors"
	"fmt"
	"github.com/typeward/typeward/verify/dpop"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/typeward/typeward/internal/cimd"
	"github.com/typeward/typeward/internal/clients"
	"github.com/typeward/typeward/internal/compat"
	"github.com/typeward/typeward/internal/composition"
	"github.com/typeward/typeward/internal/console"
	"github.com/typeward/typeward/internal/httpapi"
	"github.com/typeward/typeward/internal/keys"
	"github.com/typeward/typeward/internal/metrics"
	"github.com/typeward/typeward/internal/oauth"
	"github.com/typeward/typeward/internal/ratelimit"
	"github.com/typeward/typeward/internal/registry"
	"github.com/typeward/typeward/internal/resources"
	"github.com/typeward/typeward/internal/store/postgres"
	"github.com/typeward/typeward/internal/token"
	"github.com/typeward/typeward/internal/users"
	"github.com/typeward/typeward/verify"
)

// Timeouts of the HTTP server: bounded so that slow clients cannot hold
// connections, generous enough for a large admin import.
const (
	readHeaderTimeout = 5 * time.Second
	readTimeout       = 30 * time.Second
	writeTimeout      = 30 * time.Second
	idleTimeout       = 2 * time.Minute
	maxHeaderBytes    = 64 << 10
	// housekeepingEvery is how often expired revocations and assertion
	// jtis are purged, audit retention applied (and the coming days' audit
	// partitions made), stale stored compositions revalidated, and the
	// stale-composition gauge refreshed.
	housekeepingEvery = time.Minute
	// revalidateBudget bounds the share of a housekeeping run spent
	// revalidating stale compositions.
	revalidateBudget = 20 * time.Second
	// auditShutdownFlush bounds the last write, at shutdown, of the
	// refusals buffered during a database outage.
	auditShutdownFlush = 2 * time.Second
)

// Server is a wired typeward.
type Server struct {
	cfg     *Config
	log     *slog.Logger
	stores  *stores
	keyring *keys.Keyring
	cache   *registry.Cache
	changes *changeFanout
	// validator validates compositions over cache; housekeeping uses it
	// to revalidate the stored compositions a tool change left stale.
	validator *composition.Validator
	// listener keeps the caches current on Postgres (nil embedded).
	listener *postgres.Listener
	metrics  *metrics.Metrics
	handler  http.Handler
	// resources are the protected resources; documents fetches client ID
	// metadata documents (hosts.go).
	resources *resources.List
	documents *cimd.Fetcher
	// registration is dynamic client registration (hosts.go).
	registration *oauth.Registrar
	// draining is set on shutdown: readiness reports not ready.
	draining atomic.Bool
	// metricsAddr is the operator listener's address once Serve opened it.
	metricsAddr atomic.Pointer[string]
	// Demo holds the embedded mode's demo client credentials (empty with a
	// database).
	Demo Credentials
	// Admin holds generated admin credentials when the embedded mode made
	// them (no TYPEWARD_ADMIN_* given).
	Admin Credentials
	// Console holds the generated console approver of the embedded mode
	// (no TYPEWARD_CONSOLE_* given).
	Console Credentials
}

// Credentials of a client made at start.
type Credentials struct{ ID, Secret string }

// New builds a server from cfg: stores (memory or Postgres), keyring,
// bootstrapped clients, OAuth service and router. Nothing listens yet.
func New(ctx context.Context, cfg *Config, log *slog.Logger) (*Server, error) {
	s := &Server{cfg: cfg, log: log, metrics: metrics.New(metrics.Options{LabelledClients: cfg.MetricsClients})}
	var err error
	if cfg.Embedded() {
		s.stores, err = openMemory()
	} else {
		s.stores, err = openPostgres(ctx, cfg, log)
	}
	if err != nil {
		return nil, err
	}
	if err := s.wire(ctx); err != nil {
		s.Close()
		return nil, err
	}
	return s, nil
}

func (s *Server) wire(ctx context.Context) error {
	cfg, st := s.cfg, s.stores
	var err error
	s.keyring, err = keys.New(ctx, keys.Config{Store: st.keys, KEK: st.kek, Alg: cfg.SigningAlg,
		// The bound, not this replica's --token-ttl: a replica configured with a
		// longer TTL may have signed with a key this one retires.
		JWKSMaxAge: cfg.JWKSMaxAge, MaxTokenTTL: keys.MaxTokenTTL, RotateEvery: cfg.KeyRotationInterval, Logger: s.log})
	if err != nil {
		return err
	}
	if cfg.Embedded() {
		if err := s.seedEmbedded(ctx); err != nil {
			return err
		}
	}
	if cfg.AdminClientID != "" {
		outcome, err := clients.EnsureAdmin(ctx, st.clients, st.hasher, cfg.AdminClientID, cfg.AdminClientSecret, time.Now())
		if err != nil {
			return fmt.Errorf("admin client: %w", err)
		}
		if outcome == clients.AdminDisabled {
			s.log.Warn("the admin client is disabled in the store; the admin API is unusable until an operator enables it", "client_id", cfg.AdminClientID)
		}
	}

	if cfg.ConsoleUser != "" {
		if err := users.Ensure(ctx, st.users, cfg.ConsoleUser, cfg.ConsolePassword, users.Approver, time.Now()); err != nil {
			return fmt.Errorf("console user: %w", err)
		}
	}

	s.cache = registry.NewCache(st.registry)
	s.metrics.WatchRegistryCache(
		func() float64 { return float64(s.cache.Stats().Hits) },
		func() float64 { return float64(s.cache.Stats().Misses) })
	s.metrics.WatchSigningKey(func() float64 {
		age, _ := s.keyring.SigningKeyAge()
		return age.Seconds()
	})

	if pg, ok := st.audit.(*postgres.Audit); ok { // the memory log has no outage
		s.metrics.WatchAuditBuffer(pg.Buffered)
	}

	if !cfg.Embedded() {
		st.clients = newCachedClients(st.clients)
	}
	// Every lookup but the admin API's resolves metadata documents and a
	// host's protected resources (package hosts).
	lookup, err := s.hostClients()
	if err != nil {
		return err
	}
	auth, err := clients.NewAuthenticator(clients.AuthenticatorConfig{Clients: lookup, Hasher: st.hasher,
		Replay: st.replay, Issuer: cfg.Issuer})
	if err != nil {
		return err
	}
	minter, err := token.NewMinter(token.Config{Issuer: cfg.Issuer, TTL: cfg.TokenTTL, Signers: s.keyring})
	if err != nil {
		return err
	}
	verifier, err := verify.New(verify.Config{Issuer: cfg.Issuer, AcceptAnyAudience: true, Keys: s.keyring})
	if err != nil {
		return err
	}
	proofs, err := dpop.New(dpop.Config{Replay: st.proofs})
	if err != nil {
		return err
	}
	limiter, err := ratelimit.New(ratelimit.Config{Rate: cfg.RateLimit, Burst: cfg.RateBurst})
	if err != nil {
		return err
	}
	var failures oauth.FailureLimits
	if failures.ByAddress, err = failureLimiter(cfg.AddressFailures); err != nil {
		return err
	}
	if failures.ByClient, err = failureLimiter(cfg.ClientFailures); err != nil {
		return err
	}
	validator := composition.NewValidator(s.cache, st.registry, compat.NewChecker())
	s.validator = validator
	svc := &oauth.Service{
		Issuer: cfg.Issuer, Authenticator: auth, Validator: validator, Compositions: st.registry, Declarations: st.registry,
		Minter: minter, Verifier: verifier, DPoP: proofs, Revocations: st.revocations, Clients: lookup, Limiter: limiter, Failures: failures,
		Audit: st.audit, Metrics: s.metrics, Log: s.log, Tools: s.cache,
		Backchannel: oauth.Backchannel{Store: st.approvals, Interval: cfg.CIBAInterval, MinExpiry: cfg.CIBAMinExpiry},
		Grants:      oauth.Grants{Store: st.grants, IdleLifetime: cfg.RefreshIdle, AbsoluteLifetime: cfg.RefreshLifetime},
	}
	if cfg.DPoPNonce {
		svc.DPoPNonces = st.nonces
	}
	// Every registry change, local or from another replica, reaches both
	// caches that depend on the registry.
	s.changes = &changeFanout{cache: s.cache, svc: svc}
	st.watch(s.changes.Invalidate)
	if st.db != nil {
		// A token is recorded only while the registry is at the generation
		// its validation read (migration 0015): a lost notification costs a
		// retried request, never a token for a replaced schema.
		s.listener = postgres.NewListener(st.db, s.changes, s.log)
		svc.RegistryGeneration, svc.RegistryBehind = s.listener.Generation, s.listener.Behind
		if pg, ok := st.registry.(*postgres.Registry); ok {
			pg.Committed = s.listener.Committed
		}
	}
	s.handler = httpapi.NewRouter(httpapi.Config{
		OAuth:        svc,
		Metadata:     s.hostMetadata(oauth.NewMetadata(cfg.Issuer, verify.DefaultAlgorithms(), clients.AssertionAlgorithms())),
		Registration: s.registration,
		JWKS:         s.keyring,
		Ready:        s.ready,
		Admin: &httpapi.Admin{Tokens: svc, Registry: st.registry, Compositions: &composition.Stored{Registry: st.registry, Validator: validator},
			Clients: st.clients, Hasher: st.hasher, Keys: s.keyring, Audit: st.audit, Resources: s.resources, Registration: s.registration},
		Console: console.New(console.Config{Users: st.users, Approvals: st.approvals, Clients: lookup,
			Registry: st.registry, Validator: validator, Requests: svc, Audit: st.audit, Revalidator: svc, Authorizer: svc, Secure: strings.HasPrefix(cfg.Issuer, "https://"), Log: s.log}),
		Metrics:        s.metrics,
		Log:            s.log,
		OAuthBodyLimit: cfg.OAuthBodyLimit,
		AdminBodyLimit: cfg.AdminBodyLimit,
		RequestTimeout: cfg.RequestTimeout,
		TrustedProxies: cfg.TrustedProxies,
	})
	return nil
}

// failureLimiter is the bucket of l, the default one for a zero l (a
// Config not made by ParseConfig).
func failureLimiter(l FailureLimit) (*ratelimit.Limiter, error) {
	if l == (FailureLimit{}) {
		l = FailureLimit{Rate: DefaultFailureRate, Burst: DefaultFailureBurst}
	}
	return ratelimit.New(ratelimit.Config{Rate: l.Rate, Burst: l.Burst})
}

// seedEmbedded loads the example registry and makes the demo client (and
// an admin client when none is configured).
func (s *Server) seedEmbedded(ctx context.Context) error {
	st := s.stores
	if s.cfg.Registry != "" {
		n, err := loadRegistryFile(ctx, st.registry, s.cfg.Registry)
		if err != nil {
			return err
		}
		s.log.Info("embedded registry loaded", "file", s.cfg.Registry, "tools", n)
	}
	demo, secret, err := clients.Register(ctx, st.clients, st.hasher, clients.Registration{
		ClientName: "demo (embedded mode)", AllowedTools: []string{"*"}, AllowedAudiences: []string{DemoAudience}, Issuer: s.cfg.Issuer,
		// Read-only pipelines are issued at once, others wait for a person.
		Approval: clients.ApprovalMutating,
	}, time.Now())
	if err != nil {
		return fmt.Errorf("demo client: %w", err)
	}
	s.Demo = Credentials{ID: demo.ID, Secret: secret}
	if s.cfg.AdminClientID == "" {
		admin, secret, err := clients.Register(ctx, st.clients, st.hasher, clients.Registration{
			ClientName: clients.AdminName, AllowedScopes: []string{clients.AdminScope},
		}, time.Now())
		if err != nil {
			return fmt.Errorf("admin client: %w", err)
		}
		s.Admin = Credentials{ID: admin.ID, Secret: secret}
	}
	if s.cfg.ConsoleUser == "" {
		password := users.GeneratePassword()
		if err := users.Add(ctx, st.users, "approver", password, users.Approver, time.Now()); err != nil {
			return fmt.Errorf("console user: %w", err)
		}
		s.Console = Credentials{ID: "approver", Secret: password}
	}
	return nil
}

// PrintEmbeddedCredentials writes the embedded mode's generated
// credentials, once, as shell assignments a developer can paste.
func (s *Server) PrintEmbeddedCredentials(w io.Writer) {
	if s.Demo.ID == "" {
		return
	}
	fmt.Fprintf(w, "typeward: embedded mode: in-memory store, examples loaded, ephemeral signing key; nothing persists.\n")
	fmt.Fprintf(w, "typeward: demo client (every tool, audience %s, approval mutating); this is the only time its secret is shown:\n", DemoAudience)
	fmt.Fprintf(w, "export TYPEWARD_DEMO_CLIENT_ID=%s\nexport TYPEWARD_DEMO_CLIENT_SECRET=%s\n", s.Demo.ID, s.Demo.Secret)
	if s.Admin.ID != "" {
		fmt.Fprintf(w, "typeward: admin client (scope %s):\n", clients.AdminScope)
		fmt.Fprintf(w, "export TYPEWARD_ADMIN_CLIENT_ID=%s\nexport TYPEWARD_ADMIN_CLIENT_SECRET=%s\n", s.Admin.ID, s.Admin.Secret)
	}
	if s.Console.ID != "" {
		fmt.Fprintf(w, "typeward: console approver at %s/console (sign in with these):\n", s.cfg.Issuer)
		fmt.Fprintf(w, "export TYPEWARD_CONSOLE_USER=%s\nexport TYPEWARD_CONSOLE_PASSWORD=%s\n", s.Console.ID, s.Console.Secret)
	}
}

// changeFanout passes registry changes to the registry cache and to the
// OAuth service's validation cache.
type changeFanout struct {
	cache *registry.Cache
	svc   *oauth.Service
}

func (f *changeFanout) Invalidate(c registry.Change) {
	f.cache.Invalidate(c)
	f.svc.RegistryChanged()
}

func (f *changeFanout) Reset() {
	f.cache.Reset()
	f.svc.RegistryChanged()
}

// MetricsAddr is the operator listener's address, "" until Serve opened
// it (or when there is none).
func (s *Server) MetricsAddr() string {
	if p := s.metricsAddr.Load(); p != nil {
		return *p
	}
	return ""
}

// Handler is the router.
func (s *Server) Handler() http.Handler { return s.handler }

// Keyring is the server's signing keyring.
func (s *Server) Keyring() *keys.Keyring { return s.keyring }

// ready is /readyz: not shutting down, the store answers and a key signs.
func (s *Server) ready(ctx context.Context) error {
	if s.draining.Load() {
		return errors.New("shutting down")
	}
	if s.stores.db != nil {
		if err := s.stores.db.Pool.Ping(ctx); err != nil {
			return fmt.Errorf("database: %w", err)
		}
	}
	if _, err := s.keyring.Signer(); err != nil {
		return err
	}
	return nil
}

// listenerStartWait bounds how long Serve waits for the registry listener
// to listen before it answers.
const listenerStartWait = 5 * time.Second

// Serve answers on ln until ctx ends, then stops taking connections and
// waits (up to ShutdownTimeout) for requests in flight. Background jobs
// run meanwhile: key refresh, registry change listening, housekeeping.
func (s *Server) Serve(ctx context.Context, ln net.Listener) error {
	srv := &http.Server{
		Handler:           s.handler,
		ReadHeaderTimeout: readHeaderTimeout,
		ReadTimeout:       readTimeout,
		WriteTimeout:      writeTimeout,
		IdleTimeout:       idleTimeout,
		MaxHeaderBytes:    maxHeaderBytes,
		ErrorLog:          slog.NewLogLogger(s.log.Handler(), slog.LevelWarn),
		BaseContext:       func(net.Listener) context.Context { return context.WithoutCancel(ctx) },
	}
	jobs, stopJobs := context.WithCancel(context.WithoutCancel(ctx))
	var wg sync.WaitGroup
	s.startJobs(jobs, &wg)

	var metricsSrv *http.Server
	if s.cfg.MetricsAddr != "" {
		mln, err := net.Listen("tcp", s.cfg.MetricsAddr)
		if err != nil {
			stopJobs()
			wg.Wait()
			return fmt.Errorf("metrics listener: %w", err)
		}
		addr := mln.Addr().String()
		s.metricsAddr.Store(&addr)
		mux := http.NewServeMux()
		mux.Handle("GET /metrics", s.metrics.Handler())
		metricsSrv = &http.Server{Handler: mux, ReadHeaderTimeout: readHeaderTimeout, ReadTimeout: readTimeout,
			WriteTimeout: writeTimeout, IdleTimeout: idleTimeout, MaxHeaderBytes: maxHeaderBytes,
			ErrorLog: slog.NewLogLogger(s.log.Handler(), slog.LevelWarn)}
		go func() { _ = metricsSrv.Serve(mln) }()
		s.log.Info("metrics listening", "addr", addr)
	}

	// A token is recorded only once the listener knows the registry's
	// generation: wait for its first LISTEN (a bounded while; requests
	// queue in the listen backlog) rather than answer the first ones 503.
	if s.listener != nil {
		for deadline := time.Now().Add(listenerStartWait); s.listener.Generation() == 0 && time.Now().Before(deadline) && ctx.Err() == nil; {
			time.Sleep(5 * time.Millisecond)
		}
	}

	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	s.log.Info("typeward serving", "addr", ln.Addr().String(), "issuer", s.cfg.Issuer, "embedded", s.cfg.Embedded())

	var err error
	select {
	case err = <-served:
	case <-ctx.Done():
		// Readiness goes red first and the listener stays open a while, so
		// that load balancers stop sending before connections are refused.
		s.draining.Store(true)
		if d := s.cfg.DrainDelay; d > 0 {
			s.log.Info("shutting down: not ready, still serving", "drain_delay", d.String())
			time.Sleep(d)
		}
		s.log.Info("shutting down: draining requests in flight", "timeout", s.cfg.ShutdownTimeout.String())
		shutdownCtx, cancel := context.WithTimeout(context.Background(), s.cfg.ShutdownTimeout)
		err = srv.Shutdown(shutdownCtx)
		cancel()
		if serr := <-served; !errors.Is(serr, http.ErrServerClosed) && err == nil {
			err = serr
		}
	}
	if metricsSrv != nil {
		_ = metricsSrv.Close()
	}
	stopJobs()
	wg.Wait()
	// Refusals buffered during a database outage get one last chance; the
	// store logs those it could not write.
	if f, ok := s.stores.audit.(interface{ Flush(context.Context) int }); ok {
		flushCtx, cancel := context.WithTimeout(context.Background(), auditShutdownFlush)
		f.Flush(flushCtx)
		cancel()
	}
	if errors.Is(err, http.ErrServerClosed) {
		err = nil
	}
	return err
}

func (s *Server) startJobs(ctx context.Context, wg *sync.WaitGroup) {
	run := func(f func()) {
		wg.Add(1)
		go func() { defer wg.Done(); f() }()
	}
	run(func() { s.keyring.Run(ctx) })
	if s.listener != nil {
		run(func() { _ = s.listener.Run(ctx) })
	}
	run(func() {
		t := time.NewTicker(housekeepingEvery)
		defer t.Stop()
		for {
			s.housekeeping(ctx)
			select {
			case <-ctx.Done():
				return
			case <-t.C:
			}
		}
	})
}

// housekeeping purges what has expired, revalidates stale stored
// compositions and refreshes the stale gauge.
func (s *Server) housekeeping(ctx context.Context) {
	now := time.Now()
	if _, err := s.stores.revocations.Purge(ctx, now); err != nil && ctx.Err() == nil {
		s.log.Warn("purging expired revocations failed", "err", err)
	}
	if _, err := s.stores.replay.Purge(ctx, now); err != nil && ctx.Err() == nil {
		s.log.Warn("purging expired assertion ids failed", "err", err)
	}
	if err := s.stores.audit.Retain(ctx, now, s.cfg.AuditRetention); err != nil && ctx.Err() == nil {
		s.log.Warn("audit retention failed", "err", err)
	}
	if _, err := s.stores.users.PurgeSessions(ctx, now); err != nil && ctx.Err() == nil {
		s.log.Warn("purging expired console sessions failed", "err", err)
	}
	// A code is remembered an hour past its expiry, so that a replay still
	// revokes what it issued; an ended refresh family an hour too.
	if _, err := s.stores.grants.Purge(ctx, now.Add(-time.Hour)); err != nil && ctx.Err() == nil {
		s.log.Warn("purging expired codes and refresh families failed", "err", err)
	}
	// Expired backchannel requests are kept a day, for the console.
	if _, err := s.stores.approvals.Purge(ctx, now.Add(-24*time.Hour)); err != nil && ctx.Err() == nil {
		s.log.Warn("purging expired backchannel requests failed", "err", err)
	}
	s.sweepRegistrations(ctx)
	s.revalidate(ctx)
	if stale, err := s.stores.registry.StaleCompositions(ctx); err == nil {
		s.metrics.CompositionsStale.Set(float64(len(stale)))
	} else if ctx.Err() == nil {
		s.log.Warn("counting stale compositions failed", "err", err)
	}
}

// revalidate validates again, against the registry as it is now, the
// stored compositions a tool change (or a sub-composition's) left stale,
// and records each result: within a minute of a change every stored
// composition says what it is worth now. It takes at most
// revalidateBudget of each run; what it did not reach stays stale for
// the next.
func (s *Server) revalidate(ctx context.Context) {
	ctx, cancel := context.WithTimeout(ctx, revalidateBudget)
	defer cancel()
	done, err := composition.Revalidate(ctx, s.stores.registry, s.validator)
	invalid := 0
	for _, r := range done {
		if !r.Valid && !r.Skipped {
			invalid++
		}
	}
	switch {
	case err != nil && !errors.Is(err, context.DeadlineExceeded) && !errors.Is(err, context.Canceled):
		s.log.Warn("revalidating stale compositions failed", "err", err, "revalidated", len(done))
	case len(done) > 0:
		s.log.Info("stale compositions revalidated", "revalidated", len(done), "invalid", invalid,
			"unfinished", err != nil)
	}
}

// Close releases the stores.
func (s *Server) Close() {
	if s.stores != nil && s.stores.db != nil {
		s.stores.db.Close()
	}
}
