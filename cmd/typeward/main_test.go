package main

import (
	"bytes"
	"context"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

// run runs one command line in-process.
func run(args ...string) (code int, stdout, stderr string) {
	var out, errOut bytes.Buffer
	m := &Main{Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errOut, Getenv: func(string) string { return "" }}
	code = m.Run(context.Background(), args)
	return code, out.String(), errOut.String()
}

func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if got != string(want) {
		t.Errorf("%s differs (go test -update rewrites it)\ngot:\n%s\nwant:\n%s", path, got, want)
	}
}

// The reference pipeline: the text and JSON reports are golden, the exit
// code says whether a token would be issued.
func TestValidateExamples(t *testing.T) {
	tests := []struct {
		pipeline string
		code     int
	}{
		{"pipeline-valid", 0},
		{"pipeline-invalid", 1},
	}
	for _, tt := range tests {
		for _, format := range []string{"text", "json"} {
			t.Run(tt.pipeline+"/"+format, func(t *testing.T) {
				code, stdout, stderr := run("validate", "--registry", "../../examples/registry.json", "../../examples/"+tt.pipeline+".json", "--output", format)
				if code != tt.code || stderr != "" {
					t.Errorf("exit %d, stderr %q; want exit %d and no stderr", code, stderr, tt.code)
				}
				golden(t, tt.pipeline+"."+format+".golden", stdout)
			})
		}
	}
}

func TestValidateUnusableInput(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	tools := "../../examples/registry.json"
	comp := "../../examples/pipeline-valid.json"
	badComp := write("bad.json", `{"nodes":[{"id":"a","tool":"t","colour":"red"}]}`)
	badTools := write("tools.json", `{"tools":[{"name":"x"}]}`)
	tests := []struct {
		name   string
		args   []string
		reason string
	}{
		{"no registry", []string{"validate", comp}, "--registry TOOLS.json is required"},
		{"no composition", []string{"validate", "--registry", tools}, "expected one composition file, got 0"},
		{"two compositions", []string{"validate", "--registry", tools, comp, comp}, "expected one composition file, got 2"},
		{"bad output", []string{"validate", "--registry", tools, comp, "--output", "yaml"}, `--output "yaml": expected text or json`},
		{"unknown flag", []string{"validate", "--verbose", "--registry", tools, comp}, "flag provided but not defined: -verbose"},
		{"missing file", []string{"validate", "--registry", tools, filepath.Join(dir, "nope.json")}, "no such file or directory"},
		{"malformed composition", []string{"validate", "--registry", tools, badComp}, `nodes[0]: unknown member "colour"`},
		{"malformed tools file", []string{"validate", "--registry", badTools, comp}, "[0] (x): no inputSchema"},
		{"unknown command", []string{"valdiate"}, `unknown command "valdiate"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, stdout, stderr := run(tt.args...)
			lines := strings.Split(strings.TrimSuffix(stderr, "\n"), "\n")
			if code != 2 || stdout != "" || !strings.Contains(stderr, tt.reason) {
				t.Errorf("exit %d, stdout %q, stderr %q; want exit 2 and a reason containing %q", code, stdout, stderr, tt.reason)
			}
			if len(lines) != 1 {
				t.Errorf("the reason takes %d lines: %q", len(lines), stderr)
			}
		})
	}
}

func TestHelp(t *testing.T) {
	code, _, stderr := run("help")
	if code != 0 || !strings.Contains(stderr, "validate") {
		t.Errorf("exit %d, %q", code, stderr)
	}
	if code, _, _ := run(); code != 2 {
		t.Errorf("no command: exit %d, want 2", code)
	}
	if code, _, stderr := run("validate", "-h"); code != 0 || !strings.Contains(stderr, "usage: typeward validate") || !strings.Contains(stderr, "-registry") {
		t.Errorf("validate -h: exit %d, %q", code, stderr)
	}
}

// TestCLIDocUsage: docs/cli.md's Usage block is what `typeward help`
// prints, so a command or a summary cannot change without its page.
func TestCLIDocUsage(t *testing.T) {
	_, _, stderr := run("help")
	doc, err := os.ReadFile("../../docs/cli.md")
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(doc), "\n## Usage\n")
	_, rest, opened := strings.Cut(section, "\n```\n")
	block, _, closed := strings.Cut(rest, "```\n")
	if !ok || !opened || !closed {
		t.Fatal("docs/cli.md has no ## Usage code block")
	}
	if block != stderr {
		t.Errorf("docs/cli.md's Usage block differs from typeward help:\ndocs/cli.md:\n%s\ntypeward help:\n%s", block, stderr)
	}
}
