// Command typeward is the typeward authorization server and its tools.
//
//	typeward <command> [flags] [arguments]
//
// Each command lives in its own file; the table below is the only place
// that lists them.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"
)

// commands is the table of subcommands. A command parses its flags, runs,
// and closes whatever it opened.
var commands = []struct {
	name, summary string
	new           func(*Main) subcommand
}{
	{"validate", "type-check a composition against a tools file", newValidateCommand},
	{"serve", "run the authorization server (embedded in-memory default without DATABASE_URL; --migrate migrates at start)", newServeCommand},
	{"route", "run the MCP router that enforces composition tokens in front of one MCP server", newRouteCommand},
	{"healthcheck", "exit 0 when a typeward answers 200 on its health URL (the container HEALTHCHECK)", newHealthcheckCommand},
	{"clients", "create, list, update (--approval, --validation, --dpop-bound) or disable OAuth clients in the database (DATABASE_URL)", newClientsCommand},
	{"resources", "add, list or delete the protected resources hosts without admin-set audiences may ask for (DATABASE_URL)", newResourcesCommand},
	{"users", "add a console user: users add NAME --role approver|operator (DATABASE_URL)", newUsersCommand},
	{"tools", "check a tools/list for drift against the approved one; fetch or import tools/lists", newToolsCommand},
	{"migrate", "apply pending database migrations (DATABASE_URL)", newMigrateCommand},
	{"keys", "rotate or list the token signing keys in the database (DATABASE_URL)", newKeysCommand},
}

type subcommand interface {
	ParseFlags(args []string) error
	Run(ctx context.Context) error
	Close() error
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := NewMain().Run(ctx, os.Args[1:])
	stop()
	os.Exit(code)
}

// Main is the program with its outside world made explicit, so tests run
// it in-process.
type Main struct {
	Stdin  io.Reader
	Stdout io.Writer
	Stderr io.Writer
	Getenv func(string) string
}

// NewMain returns a Main wired to the process.
func NewMain() *Main {
	return &Main{Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr, Getenv: os.Getenv}
}

// Exit codes shared by every command.
const (
	exitOK       = 0
	exitFailure  = 1 // the command ran and the answer is no (or it failed)
	exitBadInput = 2 // the command could not use its input or flags
)

// exitError carries a command's exit code; its message may be empty when
// the command already printed its answer.
type exitError struct {
	code int
	msg  string
}

func (e *exitError) Error() string { return e.msg }

func usageError(format string, args ...any) error {
	return &exitError{code: exitBadInput, msg: fmt.Sprintf(format, args...)}
}

// Run runs one command line and returns the process exit code.
func (m *Main) Run(ctx context.Context, args []string) int {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		m.usage()
		if len(args) == 0 {
			return exitBadInput
		}
		return exitOK
	}
	for _, c := range commands {
		if c.name != args[0] {
			continue
		}
		cmd := c.new(m)
		err := cmd.ParseFlags(args[1:])
		if err == nil {
			err = cmd.Run(ctx)
		}
		if cerr := cmd.Close(); err == nil {
			err = cerr
		}
		return m.exitCode(c.name, err)
	}
	fmt.Fprintf(m.Stderr, "typeward: unknown command %q (see typeward help)\n", args[0])
	return exitBadInput
}

func (m *Main) exitCode(command string, err error) int {
	if err == nil {
		return exitOK
	}
	var ee *exitError
	if errors.As(err, &ee) {
		if ee.msg != "" {
			fmt.Fprintf(m.Stderr, "typeward %s: %s\n", command, oneLine(ee.msg))
		}
		return ee.code
	}
	fmt.Fprintf(m.Stderr, "typeward %s: %s\n", command, oneLine(err.Error()))
	return exitFailure
}

func (m *Main) usage() {
	fmt.Fprintln(m.Stderr, "usage: typeward <command> [flags] [arguments]\n\ncommands:")
	for _, c := range commands {
		fmt.Fprintf(m.Stderr, "  %-11s %s\n", c.name, c.summary)
	}
	fmt.Fprintln(m.Stderr, "\nRun typeward <command> -h for a command's flags.")
}

// checkOutput refuses an --output format no command prints.
func checkOutput(format string) error {
	if format != "text" && format != "json" {
		return usageError("--output %q: expected text or json", format)
	}
	return nil
}

// oneLine keeps a reason on the single line CI logs and scripts expect.
func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}
