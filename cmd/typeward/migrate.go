package main

import (
	"context"
	"flag"
	"fmt"

	"github.com/typeward/typeward/internal/store/postgres"
)

// migrateCommand is `typeward migrate`: apply every pending migration to
// the database at DATABASE_URL (or --database-url). Replicas starting
// together take turns.
type migrateCommand struct {
	m           *Main
	databaseURL string
	db          *postgres.DB
}

func newMigrateCommand(m *Main) subcommand { return &migrateCommand{m: m} }

func (c *migrateCommand) ParseFlags(args []string) error {
	fs := flag.NewFlagSet("typeward migrate", flag.ContinueOnError)
	fs.SetOutput(c.m.Stderr)
	databaseURLFlag(fs, &c.databaseURL)
	positional, err := parseInterspersed(fs, args)
	if err != nil {
		return err
	}
	if len(positional) != 0 {
		return usageError("migrate takes no arguments (it reads DATABASE_URL or --database-url)")
	}
	return resolveDatabaseURL(c.m, &c.databaseURL, "migrations create typeward's tables there")
}

func (c *migrateCommand) Run(ctx context.Context) error {
	var err error
	if c.db, err = postgres.Open(ctx, c.databaseURL); err != nil {
		return err
	}
	applied, err := c.db.Migrate(ctx)
	for _, name := range applied {
		fmt.Fprintf(c.m.Stdout, "applied %s\n", name)
	}
	if err != nil {
		return err
	}
	for _, v := range c.db.Undigestable {
		fmt.Fprintf(c.m.Stdout, "warning: kept the old digest of %s\n", v)
	}
	if len(applied) == 0 {
		fmt.Fprintln(c.m.Stdout, "database is up to date")
	}
	return nil
}

func (c *migrateCommand) Close() error {
	if c.db != nil {
		c.db.Close()
	}
	return nil
}
