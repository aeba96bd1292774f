package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"strings"
	"time"

	"github.com/typeward/typeward/internal/server"
	"github.com/typeward/typeward/internal/store/postgres"
	"github.com/typeward/typeward/internal/users"
)

// usersCommand is `typeward users add NAME --role approver|operator`: a
// console account in the database, with the password from
// TYPEWARD_CONSOLE_PASSWORD or, without it, a generated one printed once.
type usersCommand struct {
	m           *Main
	databaseURL string
	name        string
	role        users.Role
	db          *postgres.DB
}

func newUsersCommand(m *Main) subcommand { return &usersCommand{m: m} }

const usersUsage = `usage:
  typeward users add NAME --role approver|operator [--database-url URL]
The password is read from ` + server.EnvConsolePassword + ` (at least 12 characters); without it one is generated and printed once.`

func (c *usersCommand) ParseFlags(args []string) error {
	if len(args) < 2 || args[0] != "add" {
		fmt.Fprintln(c.m.Stderr, usersUsage)
		return &exitError{code: exitBadInput}
	}
	c.name = args[1]
	fs := flag.NewFlagSet("typeward users add", flag.ContinueOnError)
	fs.SetOutput(c.m.Stderr)
	databaseURLFlag(fs, &c.databaseURL)
	role := fs.String("role", "", "approver (decides requests) or operator (watches)")
	if err := fs.Parse(args[2:]); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return &exitError{code: exitOK}
		}
		return &exitError{code: exitBadInput, msg: err.Error()}
	}
	if fs.NArg() != 0 {
		return usageError("add takes one NAME, got extra %s", strings.Join(fs.Args(), " "))
	}
	var err error
	if c.role, err = users.ParseRole(*role); err != nil {
		return usageError("--role: %v", err)
	}
	if err := users.ValidateName(c.name); err != nil {
		return usageError("%v", err)
	}
	return resolveDatabaseURL(c.m, &c.databaseURL, "the embedded default makes its console user at start")
}

func (c *usersCommand) Run(ctx context.Context) error {
	password, generated := c.m.Getenv(server.EnvConsolePassword), false
	if password == "" {
		password, generated = users.GeneratePassword(), true
	}
	if err := users.ValidatePassword(password); err != nil {
		return usageError("%s: %v", server.EnvConsolePassword, err)
	}
	db, err := postgres.Open(ctx, c.databaseURL)
	if err != nil {
		return err
	}
	c.db = db
	if err := users.Add(ctx, postgres.NewUsers(db), c.name, password, c.role, time.Now()); err != nil {
		return err
	}
	fmt.Fprintf(c.m.Stdout, "user %s added (%s)\n", c.name, c.role)
	if generated {
		fmt.Fprintf(c.m.Stdout, "password: %s\n", password)
		fmt.Fprintln(c.m.Stderr, "The password is shown this once: typeward keeps only its argon2id hash.")
	}
	return nil
}

func (c *usersCommand) Close() error {
	if c.db != nil {
		c.db.Close()
	}
	return nil
}
