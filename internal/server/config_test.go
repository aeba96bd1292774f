package server

import (
	"bytes"
	"encoding/base64"
	"errors"
	"flag"
	"io"
	"net"
	"net/netip"
	"os"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/typeward/typeward/internal/keys"
	"github.com/typeward/typeward/internal/registration"
)

func env(kv map[string]string) func(string) string {
	return func(k string) string { return kv[k] }
}

var key32 = base64.StdEncoding.EncodeToString([]byte("0123456789abcdef0123456789abcdef"))

func TestParseConfigDefaults(t *testing.T) {
	c, err := ParseConfig(nil, env(nil), io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if c.Addr != "127.0.0.1:8080" || c.Issuer != "http://127.0.0.1:8080" || c.TokenTTL != 5*time.Minute ||
		!c.Embedded() || c.Migrate || c.SigningAlg != keys.ES256 || c.Registry != DefaultRegistry || c.RateLimit != 50 ||
		c.RateBurst != 100 || c.JWKSMaxAge != keys.DefaultJWKSMaxAge || c.KeyRotationInterval != 0 || c.LogLevel != "info" ||
		c.MetricsClients != nil || c.KEK != nil || c.Pepper != nil || c.AuditRetention != 30*24*time.Hour {
		t.Errorf("defaults %+v", c)
	}
}

// TestRegistrationDefaultsByMode: dynamic registration is open on the
// embedded default, a developer's machine, and off with a database
// unless the operator opens it.
func TestRegistrationDefaultsByMode(t *testing.T) {
	c, err := ParseConfig(nil, env(nil), io.Discard)
	if err != nil || c.Registration != registration.Open {
		t.Errorf("embedded: %q, %v; want open", c.Registration, err)
	}
	db := map[string]string{EnvDatabaseURL: "postgres://db/x", EnvKEK: key32, EnvPepper: key32}
	if c, err = ParseConfig(nil, env(db), io.Discard); err != nil || c.Registration != registration.Off {
		t.Errorf("database: %q, %v; want off", c.Registration, err)
	}
	if c, err = ParseConfig([]string{"--registration", "token"}, env(db), io.Discard); err != nil || c.Registration != registration.Token {
		t.Errorf("database with --registration token: %q, %v", c.Registration, err)
	}
}

func TestParseConfigFlagsOverEnvironment(t *testing.T) {
	c, err := ParseConfig([]string{"--addr", "127.0.0.1:9000", "--token-ttl", "10m", "--migrate"}, env(map[string]string{
		EnvAddr: "127.0.0.1:7000", EnvIssuer: "https://auth.example.com/", EnvTokenTTL: "2m",
		EnvDatabaseURL: "postgres://u@db/typeward", EnvKEK: key32, EnvPepper: key32, EnvSigningAlg: "EdDSA",
	}), io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if c.Addr != "127.0.0.1:9000" || c.Issuer != "https://auth.example.com" || c.TokenTTL != 10*time.Minute ||
		!c.Migrate || c.Embedded() || c.KEK == nil || len(c.Pepper) != 32 || c.SigningAlg != keys.EdDSA {
		t.Errorf("config %+v", c)
	}
}

// TestParseConfigValues: each setting reaches its field with its type,
// from the flag and from its environment variable alike.
func TestParseConfigValues(t *testing.T) {
	db := map[string]string{EnvDatabaseURL: "postgres://db/x", EnvKEK: key32, EnvPepper: key32}
	tests := []struct {
		name string
		args []string
		env  map[string]string
		get  func(*Config) any
		want any
	}{
		{"migrate flag alone", []string{"--migrate"}, db, func(c *Config) any { return c.Migrate }, true},
		{"migrate flag =false", []string{"--migrate=false"}, merge(db, EnvMigrate, "true"), func(c *Config) any { return c.Migrate }, false},
		{"migrate env", nil, merge(db, EnvMigrate, "1"), func(c *Config) any { return c.Migrate }, true},
		{"duration flag", []string{"--jwks-max-age", "90s"}, nil, func(c *Config) any { return c.JWKSMaxAge }, 90 * time.Second},
		{"duration env", nil, map[string]string{EnvKeyRotation: "720h"}, func(c *Config) any { return c.KeyRotationInterval }, 720 * time.Hour},
		{"float env", nil, map[string]string{EnvRateLimit: "2.5"}, func(c *Config) any { return c.RateLimit }, 2.5},
		{"int flag", []string{"-rate-burst=7"}, nil, func(c *Config) any { return c.RateBurst }, 7},
		{"list env", nil, map[string]string{EnvMetricsClients: " a, ,b "}, func(c *Config) any { return c.MetricsClients }, []string{"a", "b"}},
		{"registry env", nil, map[string]string{EnvRegistry: "tools.json"}, func(c *Config) any { return c.Registry }, "tools.json"},
		{"empty host listens everywhere", []string{"--addr", ":0"}, nil, func(c *Config) any { return c.Addr }, "0.0.0.0:0"},
		{"log level env", nil, map[string]string{EnvLogLevel: "debug"}, func(c *Config) any { return c.LogLevel }, "debug"},
		{"failure limit flags", []string{"--address-failure-rate", "0.5", "--address-failure-burst", "500", "--client-failure-burst", "5"},
			map[string]string{EnvClientFailureRate: "0.25"},
			func(c *Config) any { return [2]FailureLimit{c.AddressFailures, c.ClientFailures} }, [2]FailureLimit{{0.5, 500}, {0.25, 5}}},
		{"failure limit defaults", nil, nil,
			func(c *Config) any { return [2]FailureLimit{c.AddressFailures, c.ClientFailures} },
			[2]FailureLimit{{DefaultFailureRate, DefaultFailureBurst}, {DefaultFailureRate, DefaultFailureBurst}}},
		{"trusted proxies env", nil, map[string]string{EnvTrustedProxies: " 10.1.2.3/8, 192.0.2.1 ,2001:db8::/32,::ffff:172.16.0.0/108"},
			func(c *Config) any { return c.TrustedProxies }, []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8"),
				netip.MustParsePrefix("192.0.2.1/32"), netip.MustParsePrefix("2001:db8::/32"), netip.MustParsePrefix("172.16.0.0/12")}},
		{"no trusted proxies by default", nil, nil, func(c *Config) any { return c.TrustedProxies }, []netip.Prefix(nil)},
		{"admin from env", nil, map[string]string{EnvAdminClientID: "ops", EnvAdminClientSecret: strings.Repeat("s", 32)},
			func(c *Config) any { return c.AdminClientID }, "ops"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := ParseConfig(tt.args, env(tt.env), io.Discard)
			if err != nil {
				t.Fatal(err)
			}
			if got := tt.get(c); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got %#v, want %#v", got, tt.want)
			}
		})
	}
}

func merge(m map[string]string, k, v string) map[string]string {
	out := map[string]string{k: v}
	for a, b := range m {
		out[a] = b
	}
	return out
}

// TestParseConfigReportsEveryProblem: one start tells the operator
// everything that is wrong, naming the flag or variable it came from.
func TestParseConfigReportsEveryProblem(t *testing.T) {
	_, err := ParseConfig([]string{"--addr", "nohost", "--token-ttl", "2h", "--signing-alg", "RS256", "--rate-limit", "-1",
		"--issuer", "ftp://x", "--log-level", "loud", "--rate-burst", "many", "--address-failure-rate", "0", "--client-failure-burst", "0",
		"--trusted-proxies", "10.0.0.0/8,proxy.local"}, env(map[string]string{
		EnvDatabaseURL: "postgres://user:hunter2@db/typeward", EnvAdminClientID: "admin", EnvAdminClientSecret: "short",
		EnvJWKSMaxAge: "soon", EnvMigrate: "maybe",
	}), io.Discard)
	if err == nil {
		t.Fatal("no error")
	}
	msg := err.Error()
	for _, want := range []string{
		`--addr "nohost"`, "--token-ttl 2h0m0s: must be between 1m0s and 1h0m0s", `--signing-alg "RS256"`,
		"--rate-limit -1:", `--issuer "ftp://x"`, `--log-level "loud"`, `--rate-burst "many": not an integer`,
		`TYPEWARD_JWKS_MAX_AGE "soon": not a duration`, `TYPEWARD_MIGRATE "maybe": want true or false`,
		"--address-failure-rate 0: want a positive number", "--client-failure-burst 0: want an integer from 1 to 1000000",
		`--trusted-proxies "10.0.0.0/8,proxy.local": "proxy.local" is not a CIDR`,
		"TYPEWARD_ADMIN_CLIENT_SECRET has 5 characters", EnvKEK + " is required with a database", EnvPepper + " is required with a database",
	} {
		if !strings.Contains(msg, want) {
			t.Errorf("problems lack %q:\n%s", want, msg)
		}
	}
	if strings.Contains(msg, "hunter2") {
		t.Errorf("the database password is echoed:\n%s", msg)
	}
}

func TestParseConfigBounds(t *testing.T) {
	tests := []struct {
		args []string
		env  map[string]string
		want string // "" when the configuration is valid
	}{
		{[]string{"--token-ttl", "1m"}, nil, ""},
		{[]string{"--token-ttl", "1h"}, nil, ""},
		{[]string{"--token-ttl", "59s"}, nil, "--token-ttl 59s: must be between"},
		{[]string{"--token-ttl", "soon"}, nil, `--token-ttl "soon": not a duration`},
		{[]string{"--migrate"}, nil, "--migrate needs a database"},
		{nil, map[string]string{EnvDatabaseURL: "mysql://db", EnvKEK: key32, EnvPepper: key32}, "DATABASE_URL: want a postgres:// URL"},
		{nil, map[string]string{EnvDatabaseURL: "postgres://db/x", EnvKEK: "c2hvcnQ=", EnvPepper: key32}, EnvKEK + ":"},
		{nil, map[string]string{EnvDatabaseURL: "postgres://db/x", EnvKEK: key32, EnvPepper: "c2hvcnQ="}, EnvPepper + ":"},
		{[]string{"stray"}, nil, "unexpected arguments: stray"},
		{[]string{"--frobnicate"}, nil, "flag provided but not defined: -frobnicate (see typeward serve --help)"},
		{[]string{"--key-rotation-interval", "720h"}, nil, ""},
		{[]string{"--key-rotation-interval", "10m"}, nil, "want 0 (off) or a duration of at least 1h"}, // shorter than a key waits to sign
		{[]string{"--key-rotation-interval", "2h", "--jwks-max-age", "3h"}, nil, "must exceed --jwks-max-age"},
		{[]string{"--audit-retention", "0"}, nil, ""}, // keep forever
		{[]string{"--audit-retention", "24h"}, nil, ""},
		{nil, map[string]string{EnvAuditRetention: "2160h"}, ""},
		{[]string{"--audit-retention", "23h"}, nil, "--audit-retention 23h0m0s: want 0 (keep forever) or a duration of at least 24h"},
		{[]string{"--audit-retention", "-1h"}, nil, "--audit-retention -1h0m0s"},
		{[]string{"--jwks-max-age", "25h"}, nil, "--jwks-max-age 25h0m0s: want a duration from 1s to 24h"},
		{[]string{"--rate-limit", "NaN"}, nil, "--rate-limit NaN"},
		{[]string{"--rate-burst", "0"}, nil, "--rate-burst 0: want a positive integer"},
		{[]string{"--addr", "127.0.0.1:70000"}, nil, "port must be 0 to 65535"},
		{[]string{"--issuer", "https://a.example/?q=1"}, nil, "without query or fragment"},
		{[]string{"--resources", "https://r.example/mcp,http://127.0.0.1:1/mcp"}, nil, ""},
		{[]string{"--resources", "r.example/mcp"}, nil, `--resources: invalid protected resource: resource "r.example/mcp" is not an absolute http(s) URI`},
		{[]string{"--resources", "http://127.0.0.1:8080"}, nil, "is this server's issuer"},
		{[]string{"--registration", "open"}, nil, ""},
		{[]string{"--registration", "sometimes"}, nil, `--registration "sometimes": want open, token or off`},
		{[]string{"--cimd-ca-file", "/nonexistent/ca.pem"}, nil, "--cimd-ca-file: open /nonexistent/ca.pem"},
		{[]string{"--cimd-ca-file", "config_test.go"}, nil, "no PEM certificate in it"},
		{[]string{"--cimd-trusted-domains", "example.com,https://x"}, nil, `"https://x" is not a domain name`},
	}
	for _, tt := range tests {
		_, err := ParseConfig(tt.args, env(tt.env), io.Discard)
		switch {
		case tt.want == "" && err != nil:
			t.Errorf("%v %v: %v", tt.args, tt.env, err)
		case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
			t.Errorf("%v %v: err = %v, want %q", tt.args, tt.env, err, tt.want)
		}
	}
}

// TestParseConfigHelp: --help lists every flag with its variable and
// built-in default, and the environment-only secrets, but never a value
// the environment holds.
func TestParseConfigHelp(t *testing.T) {
	var out bytes.Buffer
	_, err := ParseConfig([]string{"--help"}, env(map[string]string{EnvDatabaseURL: "postgres://u:hunter2@db/x"}), &out)
	if !errors.Is(err, flag.ErrHelp) {
		t.Fatalf("err = %v, want flag.ErrHelp", err)
	}
	help := out.String()
	b := newBinder("x")
	(&Config{}).bind(b)
	if len(b.fields) < 13 {
		t.Fatalf("only %d flags bound", len(b.fields))
	}
	for _, f := range b.fields {
		if !strings.Contains(help, "--"+f.name) || !strings.Contains(help, "env "+f.env) {
			t.Errorf("help lacks --%s or its variable %s", f.name, f.env)
		}
	}
	for _, want := range []string{"--addr host:port\n", "--token-ttl duration\n", "--migrate\n", "default 127.0.0.1:8080",
		"default 5m0s", EnvKEK, EnvPepper, EnvAdminClientSecret} {
		if !strings.Contains(help, want) {
			t.Errorf("help lacks %q:\n%s", want, help)
		}
	}
	if strings.Contains(help, "hunter2") {
		t.Errorf("help shows the environment's database URL:\n%s", help)
	}
}

// TestEnvExampleDocumentsEverySetting: .env.example names every variable
// typeward serve reads, so a new flag cannot go undocumented there.
func TestEnvExampleDocumentsEverySetting(t *testing.T) {
	example, err := os.ReadFile("../../.env.example")
	if err != nil {
		t.Fatal(err)
	}
	b := newBinder("x")
	(&Config{}).bind(b)
	names := []string{EnvKEK, EnvPepper, EnvAdminClientID, EnvAdminClientSecret, EnvConsoleUser, EnvConsolePassword}
	for _, f := range b.fields {
		names = append(names, f.env)
	}
	for _, name := range names {
		if !regexp.MustCompile(`(?m)^#? ?` + name + `=`).Match(example) {
			t.Errorf(".env.example does not document %s", name)
		}
	}
}

// TestParseKeysConfig: `typeward keys` reads serve's variables with
// serve's bounds, flags over them.
func TestParseKeysConfig(t *testing.T) {
	vars := env(map[string]string{EnvDatabaseURL: "postgres://db/x", EnvSigningAlg: "EdDSA", EnvJWKSMaxAge: "5m"})
	c, err := ParseKeysConfig("rotate", []string{"--emergency", "--token-ttl", "10m"}, vars, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	want := KeysConfig{Action: "rotate", DatabaseURL: "postgres://db/x", Output: "text", Emergency: true,
		SigningAlg: keys.EdDSA, JWKSMaxAge: 5 * time.Minute, TokenTTL: 10 * time.Minute}
	if *c != want {
		t.Errorf("config %+v, want %+v", *c, want)
	}
	if c, err := ParseKeysConfig("rotate", []string{"--jwks-max-age=1m"}, vars, io.Discard); err != nil || c.JWKSMaxAge != time.Minute {
		t.Errorf("the flag did not win over the variable: %+v, %v", c, err)
	}
	_, err = ParseKeysConfig("rotate", []string{"--jwks-max-age", "48h", "--token-ttl", "0s"}, env(nil), io.Discard)
	for _, want := range []string{"no database", "--jwks-max-age 48h0m0s: want a duration from 1s to 24h", "--token-ttl 0s: must be between"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("problems %v lack %q", err, want)
		}
	}
	var help bytes.Buffer
	if _, err := ParseKeysConfig("list", []string{"-h"}, env(nil), &help); !errors.Is(err, flag.ErrHelp) ||
		!strings.Contains(help.String(), "--database-url URL") || strings.Contains(help.String(), "--emergency") {
		t.Errorf("list help (%v):\n%s", err, help.String())
	}
}

// TestListeningFixesADerivedPortZeroIssuer: --addr with port 0 gets an
// issuer with the listener's port; an explicit issuer or port stays.
func TestListeningFixesADerivedPortZeroIssuer(t *testing.T) {
	got := &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 41234}
	tests := []struct {
		args       []string
		wantIssuer string
	}{
		{[]string{"--addr", "127.0.0.1:0"}, "http://127.0.0.1:41234"},
		{[]string{"--addr", ":0"}, "http://0.0.0.0:41234"},
		{[]string{"--addr", "127.0.0.1:0", "--issuer", "https://auth.example.com"}, "https://auth.example.com"},
		{[]string{"--addr", "127.0.0.1:8080"}, "http://127.0.0.1:8080"},
	}
	for _, tt := range tests {
		c, err := ParseConfig(tt.args, env(nil), io.Discard)
		if err != nil {
			t.Fatal(err)
		}
		c.Listening(got)
		if c.Issuer != tt.wantIssuer {
			t.Errorf("%v: issuer %q, want %q", tt.args, c.Issuer, tt.wantIssuer)
		}
	}
}
