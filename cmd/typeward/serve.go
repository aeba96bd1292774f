package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"strings"

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
	switch {
	case errors.Is(err, flag.ErrHelp):
		return &exitError{code: exitOK}
	case err != nil:
		// Every configuration problem, one per line (exitError's message
		// would fold them into one).
		fmt.Fprintf(c.m.Stderr, "typeward serve: invalid configuration:\n  %s\n", strings.ReplaceAll(err.Error(), "\n", "\n  "))
		return &exitError{code: exitBadInput}
	}
	c.cfg = cfg
	return nil
}

func (c *serveCommand) Run(ctx context.Context) error {
	log := slog.New(slog.NewJSONHandler(c.m.Stderr, &slog.HandlerOptions{Level: logLevel(c.cfg.LogLevel)}))
	srv, err := server.New(ctx, c.cfg, log)
	if err != nil {
		return err
	}
	c.srv = srv
	ln, err := net.Listen("tcp", c.cfg.Addr)
	if err != nil {
		return err
	}
	srv.PrintEmbeddedCredentials(c.m.Stderr)
	return srv.Serve(ctx, ln)
}

func (c *serveCommand) Close() error {
	if c.srv != nil {
		c.srv.Close()
	}
	return nil
}

func logLevel(s string) slog.Level {
	var l slog.Level
	_ = l.UnmarshalText([]byte(strings.ToUpper(s))) // validated by ParseConfig
	return l
}
