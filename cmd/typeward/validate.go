package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"

	"github.com/typeward/typeward/internal/compat"
	"github.com/typeward/typeward/internal/composition"
	"github.com/typeward/typeward/internal/grading"
	"github.com/typeward/typeward/internal/registry"
	"github.com/typeward/typeward/internal/verdict"
)

// validateCommand is `typeward validate --registry TOOLS.json
// COMPOSITION.json [--output text|json] [--strict]`: exit 0 when no issue is
// an ERROR, 1 when one is, 2 when the input cannot be used. --strict grades
// as a strict client's token request is graded: every proven
// incompatibility is an ERROR.
type validateCommand struct {
	m           *Main
	registry    string
	output      string
	strict      bool
	composition string
}

func newValidateCommand(m *Main) subcommand { return &validateCommand{m: m} }

// validateUsage is the command line, repeated in every usage complaint.
const validateUsage = "typeward validate --registry TOOLS.json COMPOSITION.json [--output text|json] [--strict]"

func (c *validateCommand) ParseFlags(args []string) error {
	fs := flag.NewFlagSet("typeward validate", flag.ContinueOnError)
	// A bad flag is reported once, on the one line Main prints; the flag
	// table is printed only when asked for with -h.
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	fs.StringVar(&c.registry, "registry", "", "tools file: a tools/list result, an array of tools, or {\"servers\": [...]}")
	fs.StringVar(&c.output, "output", "text", "report format: text or json")
	fs.BoolVar(&c.strict, "strict", false, "grade as a client with validation strict: every proven incompatibility is an error")
	positional, err := parseInterspersed(fs, args)
	if err != nil {
		var ee *exitError
		if errors.As(err, &ee) && ee.code == exitOK { // -h
			fmt.Fprintln(c.m.Stderr, "usage: "+validateUsage)
			fs.SetOutput(c.m.Stderr)
			fs.PrintDefaults()
			return err
		}
		return usageError("%v (usage: %s)", err, validateUsage)
	}
	switch {
	case len(positional) != 1:
		return usageError("expected one composition file, got %d (usage: %s)", len(positional), validateUsage)
	case c.registry == "":
		return usageError("--registry TOOLS.json is required")
	}
	if err := checkOutput(c.output); err != nil {
		return err
	}
	c.composition = positional[0]
	return nil
}

func (c *validateCommand) Run(ctx context.Context) error {
	servers, err := parseFile(c.registry, registry.ParseToolsFile)
	if err != nil {
		return err
	}
	comp, err := parseFile(c.composition, composition.Parse)
	if err != nil {
		return err
	}
	validator := composition.NewValidator(registry.NewCatalog(servers), nil, compat.NewChecker())
	result, err := validator.Validate(ctx, comp)
	if err != nil {
		return usageError("%v", err)
	}
	if c.strict {
		result = result.Under(grading.Strict)
	}
	if c.output == "json" {
		err = writeJSONReport(c.m.Stdout, result)
	} else {
		err = writeTextReport(c.m.Stdout, result)
	}
	if err != nil {
		return err
	}
	if !result.Valid() {
		return &exitError{code: exitFailure}
	}
	return nil
}

func (c *validateCommand) Close() error { return nil }

// jsonReport is the --output json shape: {"valid": bool, "issues": [...]}.
type jsonReport struct {
	Valid  bool            `json:"valid"`
	Issues []verdict.Issue `json:"issues"`
}

func writeJSONReport(w io.Writer, r *composition.Result) error {
	issues := r.Issues
	if issues == nil {
		issues = []verdict.Issue{}
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(jsonReport{Valid: r.Valid(), Issues: issues})
}
