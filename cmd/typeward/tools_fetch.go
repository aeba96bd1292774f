package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os/exec"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/typeward/typeward/internal/registry"
	"github.com/typeward/typeward/internal/registry/mcplist"
)

// liveSource is where a tools/list comes from: a live server by URL or
// command, or a file.
type liveSource struct {
	url, command string
	timeout      time.Duration
}

func (s *liveSource) flags(fs *flag.FlagSet) {
	fs.StringVar(&s.url, "url", "", "a live MCP server's Streamable HTTP endpoint")
	fs.StringVar(&s.command, "command", "", `a live MCP server started as a command speaking stdio (split on spaces, no shell)`)
	fs.DurationVar(&s.timeout, "timeout", 30*time.Second, "give up on a live server after this long")
}

// count is how many live sources were given (after trimming).
func (s *liveSource) count() int {
	s.url, s.command = strings.TrimSpace(s.url), strings.TrimSpace(s.command)
	n := 0
	if s.url != "" {
		n++
	}
	if s.command != "" {
		n++
	}
	return n
}

// describe names the source in snapshots and messages.
func (s *liveSource) describe() string {
	if s.url != "" {
		return s.url
	}
	return "command: " + s.command
}

func (s *liveSource) list(ctx context.Context) ([]registry.Tool, error) {
	if s.timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, s.timeout)
		defer cancel()
	}
	var transport mcp.Transport
	if s.url != "" {
		transport = mcplist.HTTP(s.url, nil)
	} else {
		argv := strings.Fields(s.command)
		transport = mcplist.Command(exec.CommandContext(ctx, argv[0], argv[1:]...))
	}
	tools, err := mcplist.List(ctx, transport)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", s.describe(), err)
	}
	return tools, nil
}

// toolsFetchCommand writes a live server's tools/list, in the shape
// `tools check` reads, so CI can compare it with the approved one.
type toolsFetchCommand struct {
	m      *Main
	source liveSource
	server string
}

func (c *toolsFetchCommand) ParseFlags(args []string) error {
	fs := flag.NewFlagSet("typeward tools fetch", flag.ContinueOnError)
	fs.SetOutput(c.m.Stderr)
	c.source.flags(fs)
	fs.StringVar(&c.server, "server", "", `name the server: write {"servers":[{"server":NAME,"tools":[…]}]}`)
	positional, err := parseInterspersed(fs, args)
	if err != nil {
		return err
	}
	switch n := c.source.count(); {
	case len(positional) != 0:
		return usageError("unexpected arguments %v\n%s", positional, toolsUsage)
	case n == 2:
		return usageError("--url and --command exclude each other")
	case n == 0:
		return usageError("one of --url or --command is required")
	}
	return nil
}

func (c *toolsFetchCommand) Run(ctx context.Context) error {
	tools, err := c.source.list(ctx)
	if err != nil {
		return err
	}
	var doc any = map[string]any{"tools": tools}
	if c.server != "" {
		doc = map[string]any{"servers": []any{map[string]any{"server": c.server, "tools": tools}}}
	}
	enc := json.NewEncoder(c.m.Stdout)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(doc)
}

func (c *toolsFetchCommand) Close() error { return nil }
