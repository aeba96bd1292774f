package server

import (
	"encoding/base64"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/typeward/typeward/internal/keys"
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
		!c.Embedded() || c.Migrate || c.SigningAlg != keys.ES256 || c.Registry != DefaultRegistry || c.RateLimit != 50 {
		t.Errorf("defaults %+v", c)
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

// TestParseConfigReportsEveryProblem: one start tells the operator
// everything that is wrong.
func TestParseConfigReportsEveryProblem(t *testing.T) {
	_, err := ParseConfig([]string{"--addr", "nohost", "--token-ttl", "2h", "--signing-alg", "RS256", "--rate-limit", "-1",
		"--issuer", "ftp://x", "--log-level", "loud"}, env(map[string]string{
		EnvDatabaseURL: "postgres://user:hunter2@db/typeward", "TYPEWARD_ADMIN_CLIENT_ID": "admin", "TYPEWARD_ADMIN_CLIENT_SECRET": "short",
	}), io.Discard)
	if err == nil {
		t.Fatal("no error")
	}
	msg := err.Error()
	for _, want := range []string{
		`--addr "nohost"`, "--token-ttl 2h0m0s: must be between 1m0s and 1h0m0s", `--signing-alg "RS256"`,
		`--rate-limit "-1"`, `--issuer "ftp://x"`, `--log-level "loud"`,
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
		ok   bool
	}{
		{[]string{"--token-ttl", "1m"}, nil, true},
		{[]string{"--token-ttl", "1h"}, nil, true},
		{[]string{"--token-ttl", "59s"}, nil, false},
		{[]string{"--token-ttl", "soon"}, nil, false},
		{[]string{"--migrate"}, nil, false}, // nothing to migrate without a database
		{nil, map[string]string{EnvDatabaseURL: "mysql://db", EnvKEK: key32, EnvPepper: key32}, false},
		{nil, map[string]string{EnvDatabaseURL: "postgres://db/x", EnvKEK: "c2hvcnQ=", EnvPepper: key32}, false},
		{[]string{"stray"}, nil, false},
		{[]string{"--key-rotation-interval", "720h"}, nil, true},
		{[]string{"--key-rotation-interval", "10m"}, nil, false}, // shorter than a key waits to sign
		{[]string{"--key-rotation-interval", "2h", "--jwks-max-age", "3h"}, nil, false},
	}
	for _, tt := range tests {
		_, err := ParseConfig(tt.args, env(tt.env), io.Discard)
		if (err == nil) != tt.ok {
			t.Errorf("%v %v: err = %v, want ok %v", tt.args, tt.env, err, tt.ok)
		}
	}
}
