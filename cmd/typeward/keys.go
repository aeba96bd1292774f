package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/typeward/typeward/internal/keys"
	"github.com/typeward/typeward/internal/server"
	"github.com/typeward/typeward/internal/store/postgres"
)

// keysCommand is `typeward keys rotate|list` against the database of
// DATABASE_URL: the operator's way to rotate signing keys with no server
// running, or from a scheduled job. Running servers pick the new key up on
// their next refresh. Its flags are declared with serve's
// (server.ParseKeysConfig).
type keysCommand struct {
	m   *Main
	cfg *server.KeysConfig

	db *postgres.DB
}

func newKeysCommand(m *Main) subcommand { return &keysCommand{m: m} }

const keysUsage = `usage:
  typeward keys list [--output text|json]
  typeward keys rotate [--emergency] [--alg ES256|EdDSA] [--jwks-max-age D] [--token-ttl D] [--output text|json]
Each takes --database-url (default: DATABASE_URL); typeward keys ACTION --help lists the flags and
their variables. rotate reads the key encryption key from ` + server.EnvKEK + `.
A rotated key is published at once and signs after --jwks-max-age (plus one refresh interval);
--emergency makes it sign at once and withdraws every other key from the JWKS (a compromised key).
Give rotate the servers' --jwks-max-age (TYPEWARD_JWKS_MAX_AGE is read like theirs). The old key stays
published for --token-ttl (default 1h, the longest TTL typeward allows) after it stops signing.`

func (c *keysCommand) ParseFlags(args []string) error {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" {
		fmt.Fprintln(c.m.Stderr, keysUsage)
		if len(args) == 0 {
			return &exitError{code: exitBadInput}
		}
		return &exitError{code: exitOK}
	}
	cfg, err := server.ParseKeysConfig(args[0], args[1:], c.m.Getenv, c.m.Stderr)
	switch {
	case errors.Is(err, flag.ErrHelp):
		return &exitError{code: exitOK}
	case err != nil:
		fmt.Fprintf(c.m.Stderr, "typeward keys %s: %s\n", args[0], strings.ReplaceAll(err.Error(), "\n", "\n  "))
		return &exitError{code: exitBadInput}
	}
	c.cfg = cfg
	return nil
}

func (c *keysCommand) Run(ctx context.Context) error {
	db, err := postgres.Open(ctx, c.cfg.DatabaseURL)
	if err != nil {
		return err
	}
	c.db = db
	store := postgres.NewKeys(db)
	if c.cfg.Action == "list" {
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
	ring, err := keys.New(ctx, keys.Config{Store: store, KEK: kek, Alg: c.cfg.SigningAlg, JWKSMaxAge: c.cfg.JWKSMaxAge, MaxTokenTTL: c.cfg.TokenTTL})
	if err != nil {
		return err
	}
	if len(existing) == 0 {
		// keys.New created the first key, signing at once: that is the rotation.
		fmt.Fprintln(c.m.Stderr, "no signing key yet: created the first one, signing now")
		return c.print(ring.Keys())
	}
	rec, err := ring.Rotate(ctx, keys.RotateOptions{Alg: c.cfg.SigningAlg, Emergency: c.cfg.Emergency})
	if err != nil {
		return err
	}
	if !c.cfg.Emergency {
		fmt.Fprintf(c.m.Stderr, "new key %s published; it signs from %s\n", rec.KID, rec.ActivateAt.Format(time.RFC3339))
	}
	return c.print(ring.Keys())
}

func (c *keysCommand) print(infos []keys.Info) error {
	if c.cfg.Output == "json" {
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
