package main

import (
	"context"
	"flag"
	"fmt"

	"github.com/typeward/typeward/internal/registry"
	"github.com/typeward/typeward/internal/store/postgres"
)

// toolsImportCommand stores a server's tools/list as a snapshot in the
// registry at DATABASE_URL, prints its drift from the approved snapshot,
// and with --approve makes it the registry's content for that server.
type toolsImportCommand struct {
	m           *Main
	source      liveSource
	file        string
	server      string
	approve     bool
	databaseURL string
	db          *postgres.DB
}

func (c *toolsImportCommand) ParseFlags(args []string) error {
	fs := flag.NewFlagSet("typeward tools import", flag.ContinueOnError)
	fs.SetOutput(c.m.Stderr)
	c.source.flags(fs)
	fs.StringVar(&c.server, "server", "", "the server whose tools these are (required)")
	fs.BoolVar(&c.approve, "approve", false, "approve the snapshot: declare its tools, remove the server's others")
	databaseURLFlag(fs, &c.databaseURL)
	positional, err := parseInterspersed(fs, args)
	if err != nil {
		return err
	}
	switch sources := len(positional) + c.source.count(); {
	case c.server == "":
		return usageError("--server NAME is required")
	case sources != 1:
		return usageError("give exactly one of --url, --command or a FILE\n%s", toolsUsage)
	case len(positional) == 1:
		c.file = positional[0]
	}
	// Before anything is fetched: without a database there is nowhere to import to.
	return resolveDatabaseURL(c.m, &c.databaseURL, "tools import writes to the registry database")
}

func (c *toolsImportCommand) Run(ctx context.Context) error {
	tools, source, err := c.load(ctx)
	if err != nil {
		return err
	}
	if c.db, err = postgres.Open(ctx, c.databaseURL); err != nil {
		return err
	}
	store := postgres.NewRegistry(c.db)
	cmp, err := registry.ImportAndCompare(ctx, store, c.server, source, tools)
	if err != nil {
		return err
	}
	snap, findings := cmp.Snapshot, cmp.Drift
	sf := make([]registry.ServerFinding, len(findings))
	for i, f := range findings {
		sf[i] = registry.ServerFinding{Server: c.server, Finding: f}
	}
	writeFindings(c.m.Stdout, sf)
	fmt.Fprintf(c.m.Stdout, "imported snapshot %d of %s: %d tools, %d findings against the approved snapshot\n", snap.ID, c.server, len(tools), len(findings))
	if !c.approve {
		return nil
	}
	approval, err := store.ApproveSnapshot(ctx, c.server, snap.ID)
	if err != nil {
		return err
	}
	created := 0
	for _, d := range approval.Declared {
		if d.Created {
			created++
		}
	}
	fmt.Fprintf(c.m.Stdout, "approved snapshot %d: %d tools declared (%d new versions), %d removed\n", snap.ID, len(approval.Declared), created, len(approval.Removed))
	return nil
}

// load reads the tools from the live server or the file; a file must hold
// one list, or name the server among several.
func (c *toolsImportCommand) load(ctx context.Context) ([]registry.Tool, string, error) {
	if c.file == "" {
		tools, err := c.source.list(ctx)
		return tools, c.source.describe(), err
	}
	servers, err := parseFile(c.file, registry.ParseSnapshotFile)
	if err != nil {
		return nil, "", err
	}
	tools, err := registry.ServerList(servers, c.server)
	if err != nil {
		return nil, "", usageError("%s: %v", c.file, err)
	}
	return tools, c.file, nil
}

func (c *toolsImportCommand) Close() error {
	if c.db != nil {
		c.db.Close()
	}
	return nil
}
