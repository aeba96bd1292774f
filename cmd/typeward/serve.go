package main

import (
	"context"
	"net"

	"github.com/typeward/typeward/internal/server"
)

// serveCommand is `typeward serve`: the authorization server. Without a
// database it runs the embedded default (in-memory, examples loaded,
// ephemeral key, demo client printed once on stderr).
type serveCommand struct {
	m   *Main
	cfg *server.Config
	srv *server.Server
}

func newServeCommand(m *Main) subcommand { return &serveCommand{m: m} }

func (c *serveCommand) ParseFlags(args []string) error {
	cfg, err := server.ParseConfig(args, c.m.Getenv, c.m.Stderr)
	if err != nil {
		return configExit(c.m.Stderr, "serve", err)
	}
	c.cfg = cfg
	return nil
}

func (c *serveCommand) Run(ctx context.Context) error {
	// Listen first: with port 0 the issuer takes the port the listener got.
	ln, err := net.Listen("tcp", c.cfg.Addr)
	if err != nil {
		return err
	}
	c.cfg.Listening(ln.Addr())
	srv, err := server.New(ctx, c.cfg, jsonLogger(c.m.Stderr, c.cfg.LogLevel))
	if err != nil {
		ln.Close()
		return err
	}
	c.srv = srv
	srv.PrintEmbeddedCredentials(c.m.Stderr)
	return srv.Serve(ctx, ln)
}

func (c *serveCommand) Close() error {
	if c.srv != nil {
		c.srv.Close()
	}
	return nil
}
