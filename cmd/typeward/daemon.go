package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"strings"
)

// What `typeward serve` and `typeward route`, the two long-running
// commands, share around their own configuration and run.

// configExit maps the error of a long-running command's flag parsing to
// its exit: help exits 0; invalid configuration lists every problem, one
// per line (exitError's message would fold them into one), and exits
// bad input; nil stays nil.
func configExit(stderr io.Writer, command string, err error) error {
	switch {
	case errors.Is(err, flag.ErrHelp):
		return &exitError{code: exitOK}
	case err != nil:
		fmt.Fprintf(stderr, "typeward %s: invalid configuration:\n  %s\n", command, strings.ReplaceAll(err.Error(), "\n", "\n  "))
		return &exitError{code: exitBadInput}
	}
	return nil
}

// jsonLogger is a long-running command's log: JSON lines on stderr at a
// level its configuration has already validated.
func jsonLogger(stderr io.Writer, level string) *slog.Logger {
	var l slog.Level
	_ = l.UnmarshalText([]byte(strings.ToUpper(level))) // validated with the flags
	return slog.New(slog.NewJSONHandler(stderr, &slog.HandlerOptions{Level: l}))
}
