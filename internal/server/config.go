// Package server wires typeward together: configuration, stores, the
// signing keyring, the OAuth service and the HTTP router, background jobs,
// and an http.Server with timeouts and graceful shutdown.
package server

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/typeward/typeward/internal/clients"
	"github.com/typeward/typeward/internal/keys"
)

// Bounds and defaults of the configuration.
const (
	DefaultAddr     = "127.0.0.1:8080"
	DefaultTokenTTL = 5 * time.Minute
	MinTokenTTL     = time.Minute
	MaxTokenTTL     = time.Hour
	DefaultRegistry = "examples/registry.json"
	// DemoAudience is the resource the embedded mode's demo client may
	// name: the router of DESIGN.md's examples.
	DemoAudience = "https://router.example.com/mcp"
)

// Environment variables. Flags override them.
const (
	EnvAddr           = "TYPEWARD_ADDR"
	EnvIssuer         = "TYPEWARD_ISSUER"
	EnvTokenTTL       = "TYPEWARD_TOKEN_TTL"
	EnvDatabaseURL    = "DATABASE_URL"
	EnvMigrate        = "TYPEWARD_MIGRATE"
	EnvSigningAlg     = "TYPEWARD_SIGNING_ALG"
	EnvJWKSMaxAge     = "TYPEWARD_JWKS_MAX_AGE"
	EnvRateLimit      = "TYPEWARD_RATE_LIMIT"
	EnvRateBurst      = "TYPEWARD_RATE_BURST"
	EnvMetricsClients = "TYPEWARD_METRICS_CLIENTS"
	EnvRegistry       = "TYPEWARD_REGISTRY"
	EnvKEK            = "TYPEWARD_KEY_ENCRYPTION_KEY"
	EnvPepper         = "TYPEWARD_CLIENT_SECRET_PEPPER"
	EnvLogLevel       = "TYPEWARD_LOG_LEVEL"
	EnvKeyRotation    = "TYPEWARD_KEY_ROTATION_INTERVAL"
)

// Config is a validated configuration.
type Config struct {
	Addr        string
	Issuer      string
	TokenTTL    time.Duration
	DatabaseURL string // "": the embedded default
	Migrate     bool
	SigningAlg  keys.Alg
	JWKSMaxAge  time.Duration
	// KeyRotationInterval, when positive, rotates the signing key once the
	// newest key is this old.
	KeyRotationInterval time.Duration
	// RateLimit is token requests per second per client; RateBurst the
	// bucket size.
	RateLimit      float64
	RateBurst      int
	MetricsClients []string
	// Registry is the tools file the embedded default loads.
	Registry string
	// KEK encrypts signing keys at rest; required with a database.
	KEK *keys.KEK
	// Pepper keys the client secret hash; required with a database.
	Pepper []byte
	// AdminClientID and AdminClientSecret bootstrap the admin client.
	AdminClientID, AdminClientSecret string
	LogLevel                         string

	OAuthBodyLimit, AdminBodyLimit int64
	ShutdownTimeout                time.Duration
}

// Embedded reports whether the configuration is the embedded default.
func (c *Config) Embedded() bool { return c.DatabaseURL == "" }

// ParseConfig reads flags over environment variables and validates the
// result, reporting every problem at once (errors.Join).
func ParseConfig(args []string, getenv func(string) string, usage io.Writer) (*Config, error) {
	env := func(name, def string) string {
		if v := getenv(name); v != "" {
			return v
		}
		return def
	}
	fs := flag.NewFlagSet("typeward serve", flag.ContinueOnError)
	fs.SetOutput(usage)
	addr := fs.String("addr", env(EnvAddr, DefaultAddr), "listen address (`host:port`)")
	issuer := fs.String("issuer", env(EnvIssuer, ""), "issuer identifier, an http(s) `URL` (default http:// + addr)")
	ttl := fs.String("token-ttl", env(EnvTokenTTL, DefaultTokenTTL.String()), "access token lifetime, 1m to 1h")
	dbURL := fs.String("database-url", env(EnvDatabaseURL, ""), "Postgres `URL`; empty runs the embedded in-memory default")
	migrate := fs.String("migrate", env(EnvMigrate, "false"), "apply database migrations at start (true|false)")
	alg := fs.String("signing-alg", env(EnvSigningAlg, string(keys.ES256)), "signing algorithm of new keys: ES256 or EdDSA")
	maxAge := fs.String("jwks-max-age", env(EnvJWKSMaxAge, keys.DefaultJWKSMaxAge.String()), "JWKS Cache-Control max-age; a new key is published this long before it signs")
	rotation := fs.String("key-rotation-interval", env(EnvKeyRotation, "0"), "rotate the signing key on this schedule (e.g. 720h); 0 rotates only on demand")
	rate := fs.String("rate-limit", env(EnvRateLimit, "50"), "token requests per second per client")
	burst := fs.String("rate-burst", env(EnvRateBurst, "100"), "token requests a client may make at once")
	metricsClients := fs.String("metrics-clients", env(EnvMetricsClients, ""), "comma-separated client ids labelled in typeward_tokens_issued_total (others count as \"other\")")
	registryFile := fs.String("registry", env(EnvRegistry, DefaultRegistry), "tools file the embedded default loads")
	logLevel := fs.String("log-level", env(EnvLogLevel, "info"), "debug, info, warn or error")
	if err := fs.Parse(normaliseBoolFlags(args)); err != nil {
		return nil, err
	}
	if fs.NArg() > 0 {
		return nil, fmt.Errorf("unexpected arguments: %s", strings.Join(fs.Args(), " "))
	}

	var problems []error
	bad := func(format string, args ...any) { problems = append(problems, fmt.Errorf(format, args...)) }
	c := &Config{Addr: *addr, DatabaseURL: *dbURL, Registry: *registryFile, LogLevel: *logLevel,
		AdminClientID: getenv(clients.AdminClientIDEnv), AdminClientSecret: getenv(clients.AdminClientSecretEnv),
		ShutdownTimeout: 20 * time.Second}

	if host, port, err := net.SplitHostPort(c.Addr); err != nil {
		bad("--addr %q: want host:port", c.Addr)
	} else if p, err := strconv.Atoi(port); err != nil || p < 0 || p > 65535 {
		bad("--addr %q: port must be 0 to 65535", c.Addr)
	} else if host == "" {
		c.Addr = net.JoinHostPort("0.0.0.0", port)
	}
	c.Issuer = strings.TrimSuffix(*issuer, "/")
	if c.Issuer == "" {
		c.Issuer = "http://" + c.Addr
	}
	if u, err := url.Parse(c.Issuer); err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" ||
		u.RawQuery != "" || u.Fragment != "" {
		bad("--issuer %q: want an http(s) URL without query or fragment (RFC 8414)", c.Issuer)
	}
	if d, err := time.ParseDuration(*ttl); err != nil {
		bad("--token-ttl %q: not a duration (e.g. 5m)", *ttl)
	} else if d < MinTokenTTL || d > MaxTokenTTL {
		bad("--token-ttl %s: must be between %s and %s", d, MinTokenTTL, MaxTokenTTL)
	} else {
		c.TokenTTL = d
	}
	if b, err := strconv.ParseBool(*migrate); err != nil {
		bad("--migrate %q: want true or false", *migrate)
	} else {
		c.Migrate = b
	}
	if a, err := keys.ParseAlg(*alg); err != nil {
		bad("--signing-alg %q: want ES256 or EdDSA", *alg)
	} else {
		c.SigningAlg = a
	}
	if d, err := time.ParseDuration(*maxAge); err != nil || d < time.Second || d > 24*time.Hour {
		bad("--jwks-max-age %q: want a duration from 1s to 24h", *maxAge)
	} else {
		c.JWKSMaxAge = d
	}
	if d, err := time.ParseDuration(*rotation); err != nil || (d != 0 && d < time.Hour) {
		bad("--key-rotation-interval %q: want 0 (off) or a duration of at least 1h", *rotation)
	} else if d != 0 && d <= c.JWKSMaxAge {
		bad("--key-rotation-interval %s: must exceed --jwks-max-age %s, or keys rotate before they sign", d, c.JWKSMaxAge)
	} else {
		c.KeyRotationInterval = d
	}
	if r, err := strconv.ParseFloat(*rate, 64); err != nil || !(r > 0) || r > 1e6 {
		bad("--rate-limit %q: want a positive number of requests per second", *rate)
	} else {
		c.RateLimit = r
	}
	if b, err := strconv.Atoi(*burst); err != nil || b < 1 {
		bad("--rate-burst %q: want a positive integer", *burst)
	} else {
		c.RateBurst = b
	}
	for _, id := range strings.Split(*metricsClients, ",") {
		if id = strings.TrimSpace(id); id != "" {
			c.MetricsClients = append(c.MetricsClients, id)
		}
	}
	switch c.LogLevel {
	case "debug", "info", "warn", "error":
	default:
		bad("--log-level %q: want debug, info, warn or error", c.LogLevel)
	}

	adminSet := c.AdminClientID != "" || c.AdminClientSecret != ""
	if adminSet {
		problems = append(problems, clients.ValidateAdminCredentials(c.AdminClientID, c.AdminClientSecret)...)
	}
	if c.Migrate && c.Embedded() {
		bad("--migrate needs a database (DATABASE_URL or --database-url)")
	}
	if !c.Embedded() {
		if u, err := url.Parse(c.DatabaseURL); err != nil || (u.Scheme != "postgres" && u.Scheme != "postgresql") {
			// The URL itself is not echoed: it may hold a password.
			bad("DATABASE_URL: want a postgres:// URL")
		}
		if raw := getenv(EnvKEK); raw == "" {
			bad("%s is required with a database: signing keys are stored encrypted under it (generate one with: openssl rand -base64 32)", EnvKEK)
		} else if kek, err := keys.ParseKEK(raw); err != nil {
			bad("%s: %v", EnvKEK, err)
		} else {
			c.KEK = kek
		}
		if raw := getenv(EnvPepper); raw == "" {
			bad("%s is required with a database: client secrets are stored as a keyed hash under it (generate one with: openssl rand -base64 32)", EnvPepper)
		} else if p, err := clients.ParsePepper(raw); err != nil {
			bad("%s: %v", EnvPepper, err)
		} else {
			c.Pepper = p
		}
	}
	if len(problems) > 0 {
		return nil, errors.Join(problems...)
	}
	return c, nil
}

// normaliseBoolFlags lets "--migrate" stand alone as "--migrate=true",
// since the flag is declared as a string to accept the environment's
// spelling too.
func normaliseBoolFlags(args []string) []string {
	out := make([]string, len(args))
	for i, a := range args {
		if a == "--migrate" || a == "-migrate" {
			a = "--migrate=true"
		}
		out[i] = a
	}
	return out
}
