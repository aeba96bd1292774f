package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"strconv"

	"github.com/typeward/typeward/internal/registry"
)

// toolsCommand is `typeward tools <check|fetch|import> …`: the tool
// registry's CI gate and its imports.
type toolsCommand struct {
	m   *Main
	sub subcommand
}

func newToolsCommand(m *Main) subcommand { return &toolsCommand{m: m} }

const toolsUsage = `usage:
  typeward tools check --approved APPROVED.json CURRENT.json [--output text|json]
  typeward tools fetch (--url URL | --command "PROGRAM ARGS…") [--server NAME]
  typeward tools import --server NAME (--url URL | --command "PROGRAM ARGS…" | FILE) [--approve] [--database-url URL]`

func (c *toolsCommand) ParseFlags(args []string) error {
	if len(args) == 0 {
		return usageError("%s", toolsUsage)
	}
	switch args[0] {
	case "check":
		c.sub = &toolsCheckCommand{m: c.m}
	case "fetch":
		c.sub = &toolsFetchCommand{m: c.m}
	case "import":
		c.sub = &toolsImportCommand{m: c.m}
	case "-h", "--help", "help":
		fmt.Fprintln(c.m.Stderr, toolsUsage)
		return &exitError{code: exitOK}
	default:
		return usageError("unknown tools command %q\n%s", args[0], toolsUsage)
	}
	return c.sub.ParseFlags(args[1:])
}

func (c *toolsCommand) Run(ctx context.Context) error { return c.sub.Run(ctx) }

func (c *toolsCommand) Close() error {
	if c.sub == nil {
		return nil
	}
	return c.sub.Close()
}

// parseInterspersed parses flags that may come before or after the
// positional arguments, as people type them.
func parseInterspersed(fs *flag.FlagSet, args []string) ([]string, error) {
	var positional []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return nil, &exitError{code: exitOK}
			}
			return nil, &exitError{code: exitBadInput, msg: err.Error()}
		}
		if fs.NArg() == 0 {
			return positional, nil
		}
		positional = append(positional, fs.Arg(0))
		args = fs.Args()[1:]
	}
}

// toolsCheckCommand compares a current tools/list with the approved one:
// exit 1 and one line per finding on any drift, exit 0 and a one-line
// summary when nothing drifted.
type toolsCheckCommand struct {
	m        *Main
	approved string
	current  string
	output   string
}

func (c *toolsCheckCommand) ParseFlags(args []string) error {
	fs := flag.NewFlagSet("typeward tools check", flag.ContinueOnError)
	fs.SetOutput(c.m.Stderr)
	fs.StringVar(&c.approved, "approved", "", "the approved tools file (any shape typeward reads)")
	fs.StringVar(&c.output, "output", "text", "report format: text or json")
	positional, err := parseInterspersed(fs, args)
	if err != nil {
		return err
	}
	switch {
	case len(positional) != 1:
		return usageError("expected one current tools file, got %d\n%s", len(positional), toolsUsage)
	case c.approved == "":
		return usageError("--approved APPROVED.json is required")
	}
	if err := checkOutput(c.output); err != nil {
		return err
	}
	c.current = positional[0]
	return nil
}

func (c *toolsCheckCommand) Run(context.Context) error {
	approved, err := parseFile(c.approved, registry.ParseSnapshotFile)
	if err != nil {
		return err
	}
	current, err := parseFile(c.current, registry.ParseSnapshotFile)
	if err != nil {
		return err
	}
	findings := registry.DriftByServer(approved, current)
	tools := 0
	for _, s := range current {
		tools += len(s.Tools)
	}
	if c.output == "json" {
		if findings == nil {
			findings = []registry.ServerFinding{}
		}
		enc := json.NewEncoder(c.m.Stdout)
		enc.SetIndent("", "  ")
		enc.SetEscapeHTML(false)
		if err := enc.Encode(map[string]any{"drift": len(findings) > 0, "findings": findings}); err != nil {
			return err
		}
	} else {
		writeFindings(c.m.Stdout, findings)
	}
	if len(findings) > 0 {
		return &exitError{code: exitFailure, msg: fmt.Sprintf("drift: %d findings against %s", len(findings), c.approved)}
	}
	if c.output == "text" {
		fmt.Fprintf(c.m.Stdout, "no drift: %s, %s match %s\n", plural(len(current), "server"), plural(tools, "tool"), c.approved)
	}
	return nil
}

func (c *toolsCheckCommand) Close() error { return nil }

// writeFindings prints one line per finding: tool, code, detail.
func writeFindings(w io.Writer, findings []registry.ServerFinding) {
	for _, f := range findings {
		tool := f.Tool
		switch {
		case f.Code == registry.CodeOrderChanged && f.Server != "":
			tool = f.Server
		case f.Code == registry.CodeOrderChanged:
			tool = "tools/list"
		case !registry.ValidToolName(tool):
			// Quoted, so that the line still splits into tool, code, detail.
			tool = registry.QualifiedName(f.Server, strconv.Quote(tool))
		default:
			tool = registry.QualifiedName(f.Server, tool)
		}
		fmt.Fprintf(w, "%s %s: %s\n", tool, f.Code, f.Detail)
	}
}
