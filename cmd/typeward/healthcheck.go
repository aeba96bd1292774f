package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"net/http"
	"time"
)

// healthcheckCommand is `typeward healthcheck --url URL`: exit 0 when the
// URL answers 200. The container image has no shell or curl, so its
// HEALTHCHECK runs the binary itself.
type healthcheckCommand struct {
	m   *Main
	url string
}

func newHealthcheckCommand(m *Main) subcommand { return &healthcheckCommand{m: m} }

func (c *healthcheckCommand) ParseFlags(args []string) error {
	fs := flag.NewFlagSet("typeward healthcheck", flag.ContinueOnError)
	fs.SetOutput(c.m.Stderr)
	fs.StringVar(&c.url, "url", "http://127.0.0.1:8080/healthz", "health `URL` to GET")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return &exitError{code: exitOK}
		}
		return &exitError{code: exitBadInput, msg: err.Error()}
	}
	return nil
}

func (c *healthcheckCommand) Run(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, 3*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.url, nil)
	if err != nil {
		return usageError("--url: %v", err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("%s answered %d", c.url, resp.StatusCode)
	}
	return nil
}

func (c *healthcheckCommand) Close() error { return nil }
