// Package server wires typeward together: configuration, stores, the
// signing keyring, the OAuth service and the HTTP router, background jobs,
// and an http.Server with timeouts and graceful shutdown.
package server

import (
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net"
	"net/netip"
	"net/url"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/typeward/typeward/internal/approval"
	"github.com/typeward/typeward/internal/clients"
	"github.com/typeward/typeward/internal/keys"
	"github.com/typeward/typeward/internal/oauth"
	"github.com/typeward/typeward/internal/registration"
	"github.com/typeward/typeward/internal/resources"
	"github.com/typeward/typeward/internal/users"
)

// Bounds and defaults of the configuration.
const (
	DefaultAddr     = "127.0.0.1:8080"
	DefaultTokenTTL = 5 * time.Minute
	MinTokenTTL     = time.Minute
	DefaultRegistry = "examples/registry.json"
	// DemoAudience is the resource the embedded mode's demo client may
	// name: the router of DESIGN.md's examples.
	DemoAudience = "https://router.example.com/mcp"
	// DefaultAuditRetention is how long issuance records are kept; a
	// retention under MinAuditRetention would drop the day being written.
	DefaultAuditRetention = 30 * 24 * time.Hour
	MinAuditRetention     = 24 * time.Hour
	// DefaultRequestTimeout is every request's server-side deadline; the
	// largest allowed leaves room under the 30 s write timeout for the
	// answer to go out.
	DefaultRequestTimeout = 15 * time.Second
	MinRequestTimeout     = time.Second
	MaxRequestTimeout     = 25 * time.Second
	// DefaultDrainDelay is how long, after SIGTERM, readiness is red while
	// requests are still served, so that load balancers stop sending
	// before the listener closes.
	DefaultDrainDelay = 5 * time.Second
	MaxDrainDelay     = 30 * time.Second
	// DefaultFailureRate and DefaultFailureBurst limit failed client
	// authentications per remote address and per claimed client id: 20 at
	// once, then one per second (docs/security.md).
	DefaultFailureRate  = 1.0
	DefaultFailureBurst = 20
	// MaxTrustedProxies bounds --trusted-proxies: each request's
	// X-Forwarded-For walk checks every entry against each.
	MaxTrustedProxies = 64
	// DefaultMetricsAddr keeps /metrics off the public listener: only the
	// host (or pod) itself can scrape it unless the operator says otherwise.
	DefaultMetricsAddr = "127.0.0.1:9090"
)

// Environment variables. A flag given on the command line wins over its
// variable; secrets have no flag, so they never show in a process list.
const (
	EnvAddr                = "TYPEWARD_ADDR"
	EnvIssuer              = "TYPEWARD_ISSUER"
	EnvTokenTTL            = "TYPEWARD_TOKEN_TTL"
	EnvDatabaseURL         = "DATABASE_URL"
	EnvMigrate             = "TYPEWARD_MIGRATE"
	EnvSigningAlg          = "TYPEWARD_SIGNING_ALG"
	EnvJWKSMaxAge          = "TYPEWARD_JWKS_MAX_AGE"
	EnvRateLimit           = "TYPEWARD_RATE_LIMIT"
	EnvRateBurst           = "TYPEWARD_RATE_BURST"
	EnvMetricsClients      = "TYPEWARD_METRICS_CLIENTS"
	EnvRegistry            = "TYPEWARD_REGISTRY"
	EnvLogLevel            = "TYPEWARD_LOG_LEVEL"
	EnvKeyRotation         = "TYPEWARD_KEY_ROTATION_INTERVAL"
	EnvAuditRetention      = "TYPEWARD_AUDIT_RETENTION"
	EnvCIBAInterval        = "TYPEWARD_CIBA_INTERVAL"
	EnvRefreshIdle         = "TYPEWARD_REFRESH_IDLE"
	EnvRefreshLifetime     = "TYPEWARD_REFRESH_LIFETIME"
	EnvRequestTimeout      = "TYPEWARD_REQUEST_TIMEOUT"
	EnvDrainDelay          = "TYPEWARD_DRAIN_DELAY"
	EnvMetricsAddr         = "TYPEWARD_METRICS_ADDR"
	EnvAddressFailureRate  = "TYPEWARD_ADDRESS_FAILURE_RATE"
	EnvAddressFailureBurst = "TYPEWARD_ADDRESS_FAILURE_BURST"
	EnvClientFailureRate   = "TYPEWARD_CLIENT_FAILURE_RATE"
	EnvClientFailureBurst  = "TYPEWARD_CLIENT_FAILURE_BURST"
	EnvTrustedProxies      = "TYPEWARD_TRUSTED_PROXIES"
	EnvResources           = "TYPEWARD_RESOURCES"
	EnvRegistration        = "TYPEWARD_REGISTRATION"
	EnvCIMDCAFile          = "TYPEWARD_CIMD_CA_FILE"
	EnvCIMDAllowLoopback   = "TYPEWARD_CIMD_ALLOW_LOOPBACK"
	EnvCIMDTrustedDomains  = "TYPEWARD_CIMD_TRUSTED_DOMAINS"
	EnvDPoPNonce           = "TYPEWARD_DPOP_NONCE"
	// Secrets: environment only.
	EnvKEK               = "TYPEWARD_KEY_ENCRYPTION_KEY"
	EnvPepper            = "TYPEWARD_CLIENT_SECRET_PEPPER"
	EnvAdminClientID     = clients.AdminClientIDEnv
	EnvAdminClientSecret = clients.AdminClientSecretEnv
	EnvConsoleUser       = "TYPEWARD_CONSOLE_USER"
	EnvConsolePassword   = "TYPEWARD_CONSOLE_PASSWORD"
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
	// AuditRetention is how long issuance records are kept (0: forever).
	AuditRetention time.Duration
	// RateLimit is token requests per second per client; RateBurst the
	// bucket size.
	RateLimit float64
	RateBurst int
	// The buckets of failed client authentications: one per remote
	// address, one per claimed client id (oauth.FailureLimits).
	AddressFailures, ClientFailures FailureLimit
	// TrustedProxies are the peers whose X-Forwarded-For names the remote
	// address (the right-most address not itself trusted); none: the TCP
	// peer is the remote address.
	TrustedProxies []netip.Prefix
	MetricsClients []string
	// Registry is the tools file the embedded default loads.
	Registry string
	LogLevel string
	// CIBAInterval is the least time between two polls of one
	// backchannel authentication request.
	CIBAInterval time.Duration
	// DPoPNonce requires a server nonce in every DPoP proof at the token
	// endpoint (RFC 9449 §8).
	DPoPNonce bool
	// RefreshIdle ends a refresh token unused this long; RefreshLifetime
	// ends its family whatever its use (the person consents again).
	RefreshIdle, RefreshLifetime time.Duration
	// RequestTimeout is every request's deadline (DefaultRequestTimeout
	// when zero): past it the database is abandoned and the answer is 503.
	RequestTimeout time.Duration
	// DrainDelay is how long readiness is red before the listener closes
	// on shutdown (0: close at once).
	DrainDelay time.Duration
	// MetricsAddr is the operator listener serving /metrics ("": none).
	MetricsAddr string
	// Resources are the static protected resources (--resources), besides
	// those the store lists.
	Resources []string
	// Registration is who may use dynamic client registration (the
	// default of the mode when unset: open embedded, off with a database).
	Registration registration.Mode
	// CIMD configures the fetching of client ID metadata documents:
	// CIMDRoots (from --cimd-ca-file) replaces the system roots and
	// CIMDAllowLoopback admits 127.0.0.1 documents, for tests only.
	CIMDCAFile         string
	CIMDRoots          *x509.CertPool
	CIMDAllowLoopback  bool
	CIMDTrustedDomains []string

	// From the environment only (secrets).
	// KEK encrypts signing keys at rest; required with a database.
	KEK *keys.KEK
	// Pepper keys the client secret hash; required with a database.
	Pepper []byte
	// AdminClientID and AdminClientSecret bootstrap the admin client.
	AdminClientID, AdminClientSecret string
	// ConsoleUser and ConsolePassword bootstrap an approver of the console.
	ConsoleUser, ConsolePassword string

	// Not configurable: zero means the component's default.
	OAuthBodyLimit, AdminBodyLimit int64
	ShutdownTimeout                time.Duration
	// CIBAMinExpiry is the shortest requested_expiry accepted.
	CIBAMinExpiry time.Duration

	// issuerFromAddr: Issuer was derived from Addr (no --issuer), so
	// Listening may give it the port a port-0 listener got.
	issuerFromAddr bool
}

// FailureLimit is a bucket of failed client authentications: Burst at
// once, then Rate per second.
type FailureLimit struct {
	Rate  float64
	Burst int
}

// Embedded reports whether the configuration is the embedded default.
func (c *Config) Embedded() bool { return c.DatabaseURL == "" }

// bind declares every flag of `typeward serve`: its Config field, its
// environment variable and its default. A new setting is one line here and,
// if it has bounds, one check in validate.
func (c *Config) bind(b *binder) {
	b.str(&c.Addr, "addr", EnvAddr, DefaultAddr, "listen `host:port`; port 0 picks a free one")
	b.str(&c.Issuer, "issuer", EnvIssuer, "", "issuer identifier, an http(s) `URL` (default http:// + addr)")
	b.duration(&c.TokenTTL, "token-ttl", EnvTokenTTL, DefaultTokenTTL, "access token lifetime, 1m to 1h")
	b.str(&c.DatabaseURL, "database-url", EnvDatabaseURL, "", "Postgres `URL`; empty runs the embedded in-memory default")
	b.boolean(&c.Migrate, "migrate", EnvMigrate, false, "apply database migrations at start")
	b.value("signing-alg", EnvSigningAlg, string(keys.ES256), "signing algorithm of new keys: ES256 or EdDSA", func(s string) (err error) {
		c.SigningAlg, err = keys.ParseAlg(s)
		return err
	})
	b.duration(&c.JWKSMaxAge, "jwks-max-age", EnvJWKSMaxAge, keys.DefaultJWKSMaxAge, "JWKS Cache-Control max-age, 1s to 24h; a new key is published this long before it signs")
	b.duration(&c.KeyRotationInterval, "key-rotation-interval", EnvKeyRotation, 0, "rotate the signing key on this schedule (e.g. 720h); 0 rotates only on demand")
	b.duration(&c.AuditRetention, "audit-retention", EnvAuditRetention, DefaultAuditRetention, "keep issuance records this long, whole UTC days (at least 24h; 0 keeps them forever)")
	b.float(&c.RateLimit, "rate-limit", EnvRateLimit, 50, "token requests per second per client")
	b.integer(&c.RateBurst, "rate-burst", EnvRateBurst, 100, "token requests a client may make at once")
	b.float(&c.AddressFailures.Rate, "address-failure-rate", EnvAddressFailureRate, DefaultFailureRate, "failed client authentications per second sustained per remote address; past the burst its requests answer 429")
	b.integer(&c.AddressFailures.Burst, "address-failure-burst", EnvAddressFailureBurst, DefaultFailureBurst, "failed client authentications per remote address at once (raise it for many pipelines behind one NAT)")
	b.float(&c.ClientFailures.Rate, "client-failure-rate", EnvClientFailureRate, DefaultFailureRate, "failed client authentications per second sustained per claimed client id; past the burst failures answer 429 (a correct credential never does)")
	b.integer(&c.ClientFailures.Burst, "client-failure-burst", EnvClientFailureBurst, DefaultFailureBurst, "failed client authentications per claimed client id at once")
	b.value("trusted-proxies", EnvTrustedProxies, "", "comma-separated `CIDRs` of proxies whose X-Forwarded-For is believed (default none: the TCP peer is the remote address)", func(s string) (err error) {
		c.TrustedProxies, err = parsePrefixes(s)
		return err
	})
	b.list(&c.MetricsClients, "metrics-clients", EnvMetricsClients, "comma-separated client `ids` labelled in typeward_tokens_issued_total (others count as \"other\")")
	b.str(&c.Registry, "registry", EnvRegistry, DefaultRegistry, "tools `file` the embedded default loads")
	b.str(&c.LogLevel, "log-level", EnvLogLevel, "info", "debug, info, warn or error")
	b.duration(&c.CIBAInterval, "ciba-interval", EnvCIBAInterval, approval.DefaultInterval, "least time between two polls of a backchannel (CIBA) request, 1s to 60s")
	b.duration(&c.RefreshIdle, "refresh-idle", EnvRefreshIdle, oauth.DefaultRefreshIdle, "a refresh token unused this long expires, 1m to the refresh lifetime")
	b.duration(&c.RefreshLifetime, "refresh-lifetime", EnvRefreshLifetime, oauth.DefaultRefreshAbsolute, "a person's consent refreshes at most this long (absolute lifetime of a refresh family), up to 8760h")
	b.duration(&c.DrainDelay, "drain-delay", EnvDrainDelay, DefaultDrainDelay, "on SIGTERM, report not ready and keep serving this long before closing the listener, 0 to 30s")
	b.str(&c.MetricsAddr, "metrics-addr", EnvMetricsAddr, DefaultMetricsAddr, "operator listener for /metrics, `host:port` (empty: no metrics listener); never the public one")
	b.list(&c.Resources, "resources", EnvResources, "comma-separated protected resource `URIs` that clients without admin-set audiences (metadata documents, registered hosts) may ask for, besides those the admin API lists")
	b.value("registration", EnvRegistration, "", "dynamic client registration (RFC 7591): open, token (an initial access token from the admin API) or off (default open embedded, off with a database)", func(v string) error {
		c.Registration = registration.Mode(v)
		return nil
	})
	b.str(&c.CIMDCAFile, "cimd-ca-file", EnvCIMDCAFile, "", "PEM `file` of the only CAs trusted when fetching client ID metadata documents (tests; default the system roots)")
	b.boolean(&c.CIMDAllowLoopback, "cimd-allow-loopback", EnvCIMDAllowLoopback, false, "let client ID metadata documents come from loopback addresses (tests only; private addresses stay refused)")
	b.list(&c.CIMDTrustedDomains, "cimd-trusted-domains", EnvCIMDTrustedDomains, "comma-separated `domains`: client ID metadata documents only from these hosts and their subdomains (default any public host)")
	b.boolean(&c.DPoPNonce, "dpop-nonce", EnvDPoPNonce, false, "require a server nonce in every DPoP proof at the token endpoint (RFC 9449 §8; use_dpop_nonce and DPoP-Nonce), shared by the replicas")
	b.duration(&c.RequestTimeout, "request-timeout", EnvRequestTimeout, DefaultRequestTimeout, "server-side deadline of every request, 1s to 25s; past it the answer is 503")
}

// envOnly lists the settings read from the environment alone, for --help.
var envOnly = [][2]string{
	{EnvKEK, "with a database: 32 bytes (base64 or hex) encrypting signing keys at rest"},
	{EnvPepper, "with a database: 32 bytes (base64) keying the client secret hash"},
	{EnvAdminClientID + ", " + EnvAdminClientSecret, "bootstrap the admin client (scope " + clients.AdminScope + ")"},
	{EnvConsoleUser + ", " + EnvConsolePassword, "bootstrap a console approver (password of at least 12 characters)"},
}

// ParseConfig reads flags over environment variables and validates the
// result, reporting every problem at once (errors.Join). With -h it writes
// the help to usage and returns flag.ErrHelp.
func ParseConfig(args []string, getenv func(string) string, usage io.Writer) (*Config, error) {
	c := &Config{ShutdownTimeout: 20 * time.Second}
	b := newBinder("typeward serve")
	b.envOnly = envOnly
	c.bind(b)
	if err := b.parse(args, getenv, usage); err != nil {
		return nil, err
	}
	problems := b.problems
	c.AdminClientID, c.AdminClientSecret = getenv(EnvAdminClientID), getenv(EnvAdminClientSecret)
	c.ConsoleUser, c.ConsolePassword = getenv(EnvConsoleUser), getenv(EnvConsolePassword)
	if !c.Embedded() {
		var err error
		if c.KEK, err = KEKFromEnv(getenv); err != nil {
			problems = append(problems, err)
		}
		if c.Pepper, err = PepperFromEnv(getenv); err != nil {
			problems = append(problems, err)
		}
	}
	problems = append(problems, c.validate()...)
	if len(problems) > 0 {
		return nil, errors.Join(problems...)
	}
	return c, nil
}

// validate checks bounds and combinations of parsed values, and fills in
// what derives from others (the issuer from the address).
func (c *Config) validate() []error {
	var problems []error
	bad := func(format string, args ...any) { problems = append(problems, fmt.Errorf(format, args...)) }
	if host, port, err := net.SplitHostPort(c.Addr); err != nil {
		bad("--addr %q: want host:port", c.Addr)
	} else if p, err := strconv.Atoi(port); err != nil || p < 0 || p > 65535 {
		bad("--addr %q: port must be 0 to 65535", c.Addr)
	} else if host == "" {
		c.Addr = net.JoinHostPort("0.0.0.0", port)
	}
	c.Issuer = strings.TrimSuffix(c.Issuer, "/")
	if c.Issuer == "" {
		c.Issuer, c.issuerFromAddr = "http://"+c.Addr, true
	}
	if u, err := url.Parse(c.Issuer); err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" ||
		u.RawQuery != "" || u.Fragment != "" {
		bad("--issuer %q: want an http(s) URL without query or fragment (RFC 8414)", c.Issuer)
	}
	if err := checkTokenTTL(c.TokenTTL); err != nil {
		problems = append(problems, err)
	}
	if err := checkJWKSMaxAge(c.JWKSMaxAge); err != nil {
		problems = append(problems, err)
	}
	switch d := c.KeyRotationInterval; {
	case d != 0 && d < time.Hour:
		bad("--key-rotation-interval %s: want 0 (off) or a duration of at least 1h", d)
	case d != 0 && d <= c.JWKSMaxAge:
		bad("--key-rotation-interval %s: must exceed --jwks-max-age %s, or keys rotate before they sign", d, c.JWKSMaxAge)
	}
	if d := c.AuditRetention; d < 0 || (d != 0 && d < MinAuditRetention) {
		bad("--audit-retention %s: want 0 (keep forever) or a duration of at least %s", d, MinAuditRetention)
	}
	if !(c.RateLimit > 0) || c.RateLimit > 1e6 {
		bad("--rate-limit %v: want a positive number of requests per second, at most 1e6", c.RateLimit)
	}
	for _, l := range []struct {
		flag string
		FailureLimit
	}{{"address", c.AddressFailures}, {"client", c.ClientFailures}} {
		if !(l.Rate > 0) || l.Rate > 1e6 {
			bad("--%s-failure-rate %v: want a positive number of failures per second, at most 1e6", l.flag, l.Rate)
		}
		if l.Burst < 1 || l.Burst > 1e6 {
			bad("--%s-failure-burst %d: want an integer from 1 to 1000000", l.flag, l.Burst)
		}
	}
	if len(c.TrustedProxies) > MaxTrustedProxies {
		bad("--trusted-proxies: %d ranges, at most %d", len(c.TrustedProxies), MaxTrustedProxies)
	}
	if c.RefreshIdle < time.Minute || c.RefreshIdle > c.RefreshLifetime || c.RefreshLifetime > 365*24*time.Hour {
		bad("--refresh-idle %s, --refresh-lifetime %s: want 1m <= idle <= lifetime <= 8760h", c.RefreshIdle, c.RefreshLifetime)
	}
	if c.CIBAInterval < time.Second || c.CIBAInterval > time.Minute {
		bad("--ciba-interval %s: want a duration from 1s to 60s", c.CIBAInterval)
	}
	if c.RateBurst < 1 {
		bad("--rate-burst %d: want a positive integer", c.RateBurst)
	}
	if c.DrainDelay < 0 || c.DrainDelay > MaxDrainDelay {
		bad("--drain-delay %s: want a duration from 0 to %s", c.DrainDelay, MaxDrainDelay)
	}
	if c.MetricsAddr != "" {
		if _, _, err := net.SplitHostPort(c.MetricsAddr); err != nil {
			bad("--metrics-addr %q: want host:port", c.MetricsAddr)
		}
	}
	if c.RequestTimeout < MinRequestTimeout || c.RequestTimeout > MaxRequestTimeout {
		bad("--request-timeout %s: want a duration from %s to %s", c.RequestTimeout, MinRequestTimeout, MaxRequestTimeout)
	}
	if _, err := resources.ParseStatic(c.Resources, c.Issuer); err != nil {
		bad("--resources: %v", err)
	}
	switch c.Registration {
	case "":
		c.Registration = registration.Off
		if c.Embedded() {
			c.Registration = registration.Open
		}
	case registration.Open, registration.Token, registration.Off:
	default:
		bad("--registration %q: want open, token or off", c.Registration)
	}
	if c.CIMDCAFile != "" {
		pem, err := os.ReadFile(c.CIMDCAFile)
		c.CIMDRoots = x509.NewCertPool()
		if err != nil {
			bad("--cimd-ca-file: %v", err)
		} else if !c.CIMDRoots.AppendCertsFromPEM(pem) {
			bad("--cimd-ca-file %s: no PEM certificate in it", c.CIMDCAFile)
		}
	}
	for _, d := range c.CIMDTrustedDomains {
		if strings.ContainsAny(d, "/:@ ") || strings.Trim(d, ".") == "" {
			bad("--cimd-trusted-domains: %q is not a domain name", d)
		}
	}
	switch c.LogLevel {
	case "debug", "info", "warn", "error":
	default:
		bad("--log-level %q: want debug, info, warn or error", c.LogLevel)
	}
	if c.AdminClientID != "" || c.AdminClientSecret != "" {
		problems = append(problems, clients.ValidateAdminCredentials(c.AdminClientID, c.AdminClientSecret)...)
	}
	if c.ConsoleUser != "" || c.ConsolePassword != "" {
		if err := users.ValidateName(c.ConsoleUser); err != nil {
			bad("%s: %v", EnvConsoleUser, err)
		}
		if err := users.ValidatePassword(c.ConsolePassword); err != nil {
			bad("%s: %v", EnvConsolePassword, err)
		}
	}
	if c.Migrate && c.Embedded() {
		bad("--migrate needs a database (DATABASE_URL or --database-url)")
	}
	if !c.Embedded() {
		if err := checkDatabaseURL(c.DatabaseURL); err != nil {
			problems = append(problems, err)
		}
	}
	return problems
}

// Checks shared by serve and `typeward keys`: one bound each.

func checkTokenTTL(d time.Duration) error {
	if d < MinTokenTTL || d > keys.MaxTokenTTL {
		return fmt.Errorf("--token-ttl %s: must be between %s and %s", d, MinTokenTTL, keys.MaxTokenTTL)
	}
	return nil
}

func checkJWKSMaxAge(d time.Duration) error {
	if d < time.Second || d > 24*time.Hour {
		return fmt.Errorf("--jwks-max-age %s: want a duration from 1s to 24h", d)
	}
	return nil
}

func checkDatabaseURL(s string) error {
	if u, err := url.Parse(s); err != nil || (u.Scheme != "postgres" && u.Scheme != "postgresql") {
		// The URL itself is not echoed: it may hold a password.
		return errors.New("DATABASE_URL: want a postgres:// URL")
	}
	return nil
}

// parsePrefixes reads comma-separated CIDRs; a bare address is its own
// range (/32 or /128).
func parsePrefixes(s string) ([]netip.Prefix, error) {
	var out []netip.Prefix
	for _, v := range strings.Split(s, ",") {
		if v = strings.TrimSpace(v); v == "" {
			continue
		}
		p, err := netip.ParsePrefix(v)
		if err != nil {
			a, aerr := netip.ParseAddr(v)
			if aerr != nil {
				return nil, fmt.Errorf("%q is not a CIDR (e.g. 10.0.0.0/8) or an IP address", v)
			}
			p = netip.PrefixFrom(a, a.BitLen())
		}
		// A mapped IPv4 range is the IPv4 range: peers are unmapped.
		if a := p.Addr(); a.Is4In6() {
			if bits := p.Bits() - 96; bits >= 0 {
				p = netip.PrefixFrom(a.Unmap(), bits)
			}
		}
		out = append(out, p.Masked())
	}
	return out, nil
}

// Listening tells the configuration where the listener is: an issuer
// derived from --addr with port 0 would otherwise name port 0 in every
// token's iss and in the metadata. An explicit --issuer is kept as given.
func (c *Config) Listening(addr net.Addr) {
	host, port, err := net.SplitHostPort(c.Addr)
	if !c.issuerFromAddr || err != nil || port != "0" {
		return
	}
	if _, got, err := net.SplitHostPort(addr.String()); err == nil {
		c.Addr = net.JoinHostPort(host, got)
		c.Issuer = "http://" + c.Addr
	}
}
