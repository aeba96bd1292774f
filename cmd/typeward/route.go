package main

import (
	"context"
	"net"

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
	if err != nil {
		return configExit(c.m.Stderr, "route", err)
	}
	c.cmd = cmd
	return nil
}

func (c *routeCommand) Run(ctx context.Context) error {
	c.cmd.Log = jsonLogger(c.m.Stderr, c.cmd.LogLevel)
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
