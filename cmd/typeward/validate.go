package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/typeward/typeward/internal/compat"
	"github.com/typeward/typeward/internal/composition"
	"github.com/typeward/typeward/internal/registry"
)

// validateCommand is `typeward validate --registry TOOLS.json
// COMPOSITION.json [--output text|json]`: exit 0 when no issue is an ERROR,
// 1 when one is, 2 when the input cannot be used.
type validateCommand struct {
	m           *Main
	registry    string
	output      string
	composition string
}

func newValidateCommand(m *Main) subcommand { return &validateCommand{m: m} }

func (c *validateCommand) ParseFlags(args []string) error {
	fs := flag.NewFlagSet("typeward validate", flag.ContinueOnError)
	fs.SetOutput(c.m.Stderr)
	fs.StringVar(&c.registry, "registry", "", "tools file: a tools/list result, an array of tools, or {\"servers\": [...]}")
	fs.StringVar(&c.output, "output", "text", "report format: text or json")
	fs.Usage = func() {
		fmt.Fprintln(c.m.Stderr, "usage: typeward validate --registry TOOLS.json COMPOSITION.json [--output text|json]")
		fs.PrintDefaults()
	}
	// Flags may follow the composition file, as people type them.
	var positional []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return &exitError{code: exitOK}
			}
			return &exitError{code: exitBadInput, msg: err.Error()}
		}
		if fs.NArg() == 0 {
			break
		}
		positional = append(positional, fs.Arg(0))
		args = fs.Args()[1:]
	}
	switch {
	case len(positional) != 1:
		return usageError("expected one composition file, got %d (usage: typeward validate --registry TOOLS.json COMPOSITION.json [--output text|json])", len(positional))
	case c.registry == "":
		return usageError("--registry TOOLS.json is required")
	case c.output != "text" && c.output != "json":
		return usageError("--output %q: expected text or json", c.output)
	}
	c.composition = positional[0]
	return nil
}

func (c *validateCommand) Run(ctx context.Context) error {
	toolsData, err := readInput(c.registry)
	if err != nil {
		return err
	}
	servers, err := registry.ParseToolsFile(toolsData)
	if err != nil {
		return usageError("%s: %v", c.registry, err)
	}
	compData, err := readInput(c.composition)
	if err != nil {
		return err
	}
	comp, err := composition.Parse(compData)
	if err != nil {
		return usageError("%s: %v", c.composition, err)
	}
	validator := composition.NewValidator(registry.NewCatalog(servers), nil, compat.NewChecker())
	result, err := validator.Validate(ctx, comp)
	if err != nil {
		return usageError("%v", err)
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

// readInput reads a file, refusing anything larger than any input typeward
// accepts before reading it whole.
func readInput(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, usageError("%v", err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, registry.MaxToolsFileBytes+1))
	if err != nil {
		return nil, usageError("%s: %v", path, err)
	}
	if len(data) > registry.MaxToolsFileBytes {
		return nil, usageError("%s: larger than %d bytes", path, registry.MaxToolsFileBytes)
	}
	return data, nil
}

// jsonReport is the --output json shape: {"valid": bool, "issues": [...]}.
type jsonReport struct {
	Valid  bool           `json:"valid"`
	Issues []compat.Issue `json:"issues"`
}

func writeJSONReport(w io.Writer, r *composition.Result) error {
	issues := r.Issues
	if issues == nil {
		issues = []compat.Issue{}
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(jsonReport{Valid: r.Valid(), Issues: issues})
}
