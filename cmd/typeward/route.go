package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"strings"

	"github.com/typeward/typeward/internal/route"
)

// routeCommand is `typeward route`: the reverse proxy that enforces
// composition tokens in front of one MCP server.
type routeCommand struct {
	m   *Main
	cmd *route.Command
}

func newRouteCommand(m *Main) subcommand { return &routeCommand{m: m} }

func (c *routeCommand) ParseFlags(args []string) error {
	cmd, err := route.ParseFlags(args, c.m.Stderr)
	switch {
	case errors.Is(err, flag.ErrHelp):
		return &exitError{code: exitOK}
	case err != nil:
		fmt.Fprintf(c.m.Stderr, "typeward route: invalid configuration:\n  %s\n", strings.ReplaceAll(err.Error(), "\n", "\n  "))
		return &exitError{code: exitBadInput}
	}
	c.cmd = cmd
	return nil
}

func (c *routeCommand) Run(ctx context.Context) error {
	c.cmd.Log = slog.New(slog.NewJSONHandler(c.m.Stderr, &slog.HandlerOptions{Level: logLevel(c.cmd.LogLevel)}))
	rt, err := route.New(ctx, c.cmd.Config)
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", c.cmd.Addr)
	if err != nil {
		return err
	}
	var mln net.Listener
	if c.cmd.MetricsAddr != "" {
		if mln, err = net.Listen("tcp", c.cmd.MetricsAddr); err != nil {
			ln.Close()
			return err
		}
	}
	return rt.Serve(ctx, ln, mln, c.cmd.ShutdownTimeout)
}

func (c *routeCommand) Close() error { return nil }
