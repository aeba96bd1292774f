package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/typeward/typeward/internal/resources"
	"github.com/typeward/typeward/internal/server"
	"github.com/typeward/typeward/internal/store/postgres"
)

// resourcesCommand is `typeward resources add|list|delete` against the
// database: the protected resources hosts without admin-set audiences may
// ask tokens for (the admin API's /admin/v1/resources).
type resourcesCommand struct {
	m           *Main
	action      string
	databaseURL string
	output      string
	res         resources.Resource

	db *postgres.DB
}

func newResourcesCommand(m *Main) subcommand { return &resourcesCommand{m: m} }

const resourcesUsage = `usage:
  typeward resources add URI [--name NAME]
  typeward resources list [--output text|json]
  typeward resources delete URI
Each takes --database-url (default: DATABASE_URL); add reads ` + server.EnvIssuer + ` to refuse the issuer itself.`

func (c *resourcesCommand) ParseFlags(args []string) error {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" {
		fmt.Fprintln(c.m.Stderr, resourcesUsage)
		if len(args) == 0 {
			return &exitError{code: exitBadInput}
		}
		return &exitError{code: exitOK}
	}
	c.action = args[0]
	fs := flag.NewFlagSet("typeward resources "+c.action, flag.ContinueOnError)
	fs.SetOutput(c.m.Stderr)
	fs.Usage = func() { fmt.Fprintln(c.m.Stderr, resourcesUsage) }
	databaseURLFlag(fs, &c.databaseURL)
	rest, positional := args[1:], 1
	switch c.action {
	case "add":
		fs.StringVar(&c.res.Name, "name", "", "a `NAME` for people (default the URI)")
	case "list":
		fs.StringVar(&c.output, "output", "text", "text or json")
		positional = 0
	case "delete":
	default:
		return usageError("unknown action %q: want add, list or delete", c.action)
	}
	if len(rest) > 0 && !strings.HasPrefix(rest[0], "-") { // the URI may come before the flags
		c.res.URI, rest, positional = rest[0], rest[1:], 0
	}
	if err := fs.Parse(rest); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return &exitError{code: exitOK}
		}
		return &exitError{code: exitBadInput, msg: err.Error()}
	}
	if fs.NArg() != positional {
		return usageError("%s takes %s, got: %s", c.action, map[bool]string{true: "one URI", false: "no argument"}[c.action != "list"], strings.Join(fs.Args(), " "))
	}
	if positional == 1 {
		c.res.URI = fs.Arg(0)
	}
	if c.output != "" {
		if err := checkOutput(c.output); err != nil {
			return err
		}
	}
	return resolveDatabaseURL(c.m, &c.databaseURL, "the embedded default lists its resources in memory; use its admin API or --resources")
}

func (c *resourcesCommand) Run(ctx context.Context) error {
	db, err := postgres.Open(ctx, c.databaseURL)
	if err != nil {
		return err
	}
	c.db = db
	list := &resources.List{Store: postgres.NewResources(db), Issuer: c.m.Getenv(server.EnvIssuer)}
	switch c.action {
	case "add":
		r, err := list.Add(ctx, c.res, time.Now())
		if errors.Is(err, resources.ErrInvalid) || errors.Is(err, resources.ErrConflict) {
			return usageError("%v", err)
		}
		if err != nil {
			return err
		}
		fmt.Fprintf(c.m.Stdout, "resource %s listed\n", r.URI)
		return nil
	case "delete":
		err := list.Delete(ctx, c.res.URI)
		if errors.Is(err, resources.ErrNotFound) {
			return usageError("%v", err)
		}
		if err != nil {
			return err
		}
		fmt.Fprintf(c.m.Stdout, "resource %s deleted\n", c.res.URI)
		return nil
	}
	all, err := list.All(ctx)
	if err != nil {
		return err
	}
	if c.output == "json" {
		return writeIndentedJSON(c.m.Stdout, map[string]any{"resources": all})
	}
	tw := tabwriter.NewWriter(c.m.Stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "RESOURCE\tNAME\tCREATED")
	for _, r := range all {
		fmt.Fprintf(tw, "%s\t%s\t%s\n", r.URI, r.Name, r.CreatedAt.Format(time.RFC3339))
	}
	return tw.Flush()
}

func (c *resourcesCommand) Close() error {
	if c.db != nil {
		c.db.Close()
	}
	return nil
}
