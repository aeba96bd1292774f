package server

import (
	"errors"
	"io"
	"time"

	"github.com/typeward/typeward/internal/keys"
)

// KeysConfig is the configuration of `typeward keys list|rotate`, declared
// on serve's typed flag table with serve's variables and bounds: the
// operator passes rotate what the servers run with.
type KeysConfig struct {
	Action      string // list or rotate
	DatabaseURL string
	Output      string // text or json
	// Rotate only.
	Emergency  bool
	SigningAlg keys.Alg
	JWKSMaxAge time.Duration
	// TokenTTL is the longest lifetime of the tokens the old key signed:
	// it stays published that long after it stops signing.
	TokenTTL time.Duration
}

func (c *KeysConfig) bind(b *binder) {
	b.str(&c.DatabaseURL, "database-url", EnvDatabaseURL, "", "the servers' Postgres `URL`")
	b.value("output", "", "text", "text or json", func(s string) error {
		if s != "text" && s != "json" {
			return errors.New("want text or json")
		}
		c.Output = s
		return nil
	})
	if c.Action != "rotate" {
		return
	}
	b.boolean(&c.Emergency, "emergency", "", false, "sign with the new key at once and withdraw every other key from the JWKS (a compromised key)")
	b.value("alg", EnvSigningAlg, string(keys.ES256), "algorithm of the new key: ES256 or EdDSA", func(s string) (err error) {
		c.SigningAlg, err = keys.ParseAlg(s)
		return err
	})
	b.duration(&c.JWKSMaxAge, "jwks-max-age", EnvJWKSMaxAge, keys.DefaultJWKSMaxAge, "the servers' --jwks-max-age, 1s to 24h: the new key signs this long (plus one refresh interval) after it is published")
	b.duration(&c.TokenTTL, "token-ttl", "", keys.MaxTokenTTL, "the longest lifetime of the tokens the old key signed, 1m to 1h; it stays published this long after it stops signing")
}

// keysEnvOnly is what rotate reads from the environment alone.
var keysEnvOnly = [][2]string{{EnvKEK, "rotate: 32 bytes (base64 or hex) encrypting signing keys at rest, as the servers'"}}

// ParseKeysConfig reads `typeward keys ACTION`'s flags over the
// environment and validates them, reporting every problem at once. With
// -h it writes the help to usage and returns flag.ErrHelp. The key
// encryption key is read when rotating (KEKFromEnv).
func ParseKeysConfig(action string, args []string, getenv func(string) string, usage io.Writer) (*KeysConfig, error) {
	if action != "list" && action != "rotate" {
		return nil, errors.New(`unknown action "` + action + `": want list or rotate`)
	}
	c := &KeysConfig{Action: action}
	b := newBinder("typeward keys " + action)
	if action == "rotate" {
		b.envOnly = keysEnvOnly
	}
	c.bind(b)
	if err := b.parse(args, getenv, usage); err != nil {
		return nil, err
	}
	problems := b.problems
	if c.DatabaseURL == "" {
		problems = append(problems, errors.New("no database: set "+EnvDatabaseURL+" or pass --database-url (the embedded default's keys live in its memory; use its admin API)"))
	} else if err := checkDatabaseURL(c.DatabaseURL); err != nil {
		problems = append(problems, err)
	}
	if action == "rotate" {
		if err := checkJWKSMaxAge(c.JWKSMaxAge); err != nil {
			problems = append(problems, err)
		}
		if err := checkTokenTTL(c.TokenTTL); err != nil {
			problems = append(problems, err)
		}
	}
	if len(problems) > 0 {
		return nil, errors.Join(problems...)
	}
	return c, nil
}
