package main

import (
	"context"
	"flag"
	"fmt"
	"text/tabwriter"
	"time"

	"github.com/typeward/typeward/internal/keys"
	"github.com/typeward/typeward/internal/server"
	"github.com/typeward/typeward/internal/store/postgres"
)

// keysCommand is `typeward keys rotate|list` against the database of
// DATABASE_URL: the operator's way to rotate signing keys with no server
// running, or from a scheduled job. Running servers pick the new key up on
// their next refresh.
type keysCommand struct {
	m           *Main
	action      string
	databaseURL string
	output      string
	emergency   bool
	alg         keys.Alg
	maxAge      time.Duration
	tokenTTL    time.Duration

	db *postgres.DB
}

func newKeysCommand(m *Main) subcommand { return &keysCommand{m: m} }

const keysUsage = `usage:
  typeward keys list [--output text|json]
  typeward keys rotate [--emergency] [--alg ES256|EdDSA] [--jwks-max-age D] [--token-ttl D] [--output text|json]
Each takes --database-url (default: DATABASE_URL). rotate reads the key encryption key from ` + server.EnvKEK + `.
A rotated key is published at once and signs after --jwks-max-age (plus one refresh interval);
--emergency makes it sign at once and withdraws every other key from the JWKS (a compromised key).
Give rotate the servers' --jwks-max-age. The old key stays published for --token-ttl (default 1h, the
longest TTL typeward allows) after it stops signing.`

func (c *keysCommand) ParseFlags(args []string) error {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" {
		fmt.Fprintln(c.m.Stderr, keysUsage)
		if len(args) == 0 {
			return &exitError{code: exitBadInput}
		}
		return &exitError{code: exitOK}
	}
	c.action = args[0]
	fs := flag.NewFlagSet("typeward keys "+c.action, flag.ContinueOnError)
	fs.SetOutput(c.m.Stderr)
	fs.Usage = func() { fmt.Fprintln(c.m.Stderr, keysUsage) }
	databaseURLFlag(fs, &c.databaseURL)
	fs.StringVar(&c.output, "output", "text", "text or json")
	var alg, maxAge, ttl string
	switch c.action {
	case "list":
	case "rotate":
		fs.BoolVar(&c.emergency, "emergency", false, "sign with the new key at once and withdraw the others")
		fs.StringVar(&alg, "alg", c.envOr(server.EnvSigningAlg, string(keys.ES256)), "algorithm of the new key: ES256 or EdDSA")
		fs.StringVar(&maxAge, "jwks-max-age", c.envOr(server.EnvJWKSMaxAge, keys.DefaultJWKSMaxAge.String()), "the servers' JWKS max-age")
		fs.StringVar(&ttl, "token-ttl", keys.MaxTokenTTL.String(), "the longest lifetime of the tokens the old key signed")
	default:
		return usageError("unknown action %q: want list or rotate", c.action)
	}
	positional, err := parseInterspersed(fs, args[1:])
	if err != nil {
		return err
	}
	if len(positional) != 0 {
		return usageError("keys %s takes no arguments, got %v", c.action, positional)
	}
	if err := checkOutput(c.output); err != nil {
		return err
	}
	if c.action == "rotate" {
		if c.alg, err = keys.ParseAlg(alg); err != nil {
			return usageError("--alg: %v", err)
		}
		if c.maxAge, err = positiveDuration("--jwks-max-age", maxAge); err != nil {
			return err
		}
		if c.tokenTTL, err = positiveDuration("--token-ttl", ttl); err != nil {
			return err
		}
	}
	return resolveDatabaseURL(c.m, &c.databaseURL, "the embedded default's keys live in its memory; use its admin API")
}

func (c *keysCommand) envOr(name, def string) string {
	if v := c.m.Getenv(name); v != "" {
		return v
	}
	return def
}

func positiveDuration(flagName, s string) (time.Duration, error) {
	d, err := time.ParseDuration(s)
	if err != nil || d <= 0 {
		return 0, usageError("%s %q: want a positive duration such as 15m", flagName, s)
	}
	return d, nil
}

func (c *keysCommand) Run(ctx context.Context) error {
	db, err := postgres.Open(ctx, c.databaseURL)
	if err != nil {
		return err
	}
	c.db = db
	store := postgres.NewKeys(db)
	if c.action == "list" {
		recs, err := store.List(ctx)
		if err != nil {
			return err
		}
		return c.print(keys.Describe(recs, time.Now()))
	}
	return c.rotate(ctx, store)
}

func (c *keysCommand) rotate(ctx context.Context, store keys.Store) error {
	kek, err := server.KEKFromEnv(c.m.Getenv)
	if err != nil {
		return usageError("%v", err)
	}
	existing, err := store.List(ctx)
	if err != nil {
		return err
	}
	ring, err := keys.New(ctx, keys.Config{Store: store, KEK: kek, Alg: c.alg, JWKSMaxAge: c.maxAge, MaxTokenTTL: c.tokenTTL})
	if err != nil {
		return err
	}
	if len(existing) == 0 {
		// keys.New created the first key, signing at once: that is the rotation.
		fmt.Fprintln(c.m.Stderr, "no signing key yet: created the first one, signing now")
		return c.print(ring.Keys())
	}
	rec, err := ring.Rotate(ctx, keys.RotateOptions{Alg: c.alg, Emergency: c.emergency})
	if err != nil {
		return err
	}
	if !c.emergency {
		fmt.Fprintf(c.m.Stderr, "new key %s published; it signs from %s\n", rec.KID, rec.ActivateAt.Format(time.RFC3339))
	}
	return c.print(ring.Keys())
}

func (c *keysCommand) print(infos []keys.Info) error {
	if c.output == "json" {
		return writeIndentedJSON(c.m.Stdout, infos)
	}
	tw := tabwriter.NewWriter(c.m.Stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "KID\tALG\tSTATE\tCREATED\tPUBLISHED\tSIGNS_FROM\tSIGNS_UNTIL\tPUBLISHED_UNTIL")
	for _, k := range infos {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", k.KID, k.Alg, k.State,
			stamp(k.CreatedAt), stamp(k.PublishAt), stamp(k.ActivateAt), stamp(k.RetireAt), stamp(k.ExpiresAt))
	}
	return tw.Flush()
}

// stamp is t in RFC 3339, "-" when unset.
func stamp(t time.Time) string {
	if t.IsZero() {
		return "-"
	}
	return t.UTC().Format(time.RFC3339)
}

func (c *keysCommand) Close() error {
	if c.db != nil {
		c.db.Close()
	}
	return nil
}
