package main

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/typeward/typeward/internal/corpus"
	"github.com/typeward/typeward/internal/store/postgres"
	"github.com/typeward/typeward/internal/store/postgres/pgtest"
)

// The CI gate: exit 1 and one line per finding on drift (golden), exit 0
// and a summary when only the spelling changed.
func TestToolsCheck(t *testing.T) {
	const dir = "testdata/tools-check/"
	tests := []struct {
		name   string
		args   []string
		code   int
		golden string
		stderr string
	}{
		{"drift text", []string{"tools", "check", "--approved", dir + "approved.json", dir + "drifted.json"}, 1, "tools-check/drifted.text.golden", "typeward tools: drift: 12 findings against testdata/tools-check/approved.json\n"},
		{"drift json", []string{"tools", "check", dir + "drifted.json", "--approved", dir + "approved.json", "--output", "json"}, 1, "tools-check/drifted.json.golden", "typeward tools: drift: 12 findings against testdata/tools-check/approved.json\n"},
		{"respelled is not drift", []string{"tools", "check", "--approved", dir + "approved.json", dir + "respelled.json"}, 0, "tools-check/respelled.text.golden", ""},
		{"corpus against itself", []string{"tools", "check", "--approved", dir + "respelled.json", dir + "respelled.json"}, 0, "", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, stdout, stderr := run(tc.args...)
			if code != tc.code || stderr != tc.stderr {
				t.Fatalf("exit %d, stderr %q; want exit %d, stderr %q\nstdout:\n%s", code, stderr, tc.code, tc.stderr, stdout)
			}
			if tc.golden != "" {
				golden(t, tc.golden, stdout)
			}
		})
	}
}

func TestToolsUsageErrors(t *testing.T) {
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"tools"}, "usage:"},
		{[]string{"tools", "frobnicate"}, `unknown tools command "frobnicate"`},
		{[]string{"tools", "check", "current.json"}, "--approved APPROVED.json is required"},
		{[]string{"tools", "check", "--approved", "a.json"}, "expected one current tools file, got 0"},
		{[]string{"tools", "check", "--approved", "a.json", "b.json", "--output", "xml"}, `--output "xml"`},
		{[]string{"tools", "check", "--approved", "testdata/tools-check/missing.json", "testdata/tools-check/drifted.json"}, "no such file"},
		{[]string{"tools", "check", "--approved", "tools_test.go", "testdata/tools-check/drifted.json"}, "invalid tools file"},
		{[]string{"tools", "fetch"}, "one of --url or --command is required"},
		{[]string{"tools", "fetch", "--url", "http://x", "--command", "y"}, "exclude each other"},
		{[]string{"tools", "import", "f.json"}, "--server NAME is required"},
		{[]string{"tools", "import", "--server", "s"}, "exactly one of --url, --command or a FILE"},
		{[]string{"tools", "import", "--server", "s", "--command", "  "}, "exactly one of --url, --command or a FILE"},
		{[]string{"tools", "fetch", "--command", " "}, "one of --url or --command is required"},
		{[]string{"tools", "import", "--server", "s", "testdata/tools-check/approved.json"}, "no database: set DATABASE_URL or pass --database-url (tools import writes"},
		{[]string{"migrate"}, "no database: set DATABASE_URL or pass --database-url (migrations"},
		{[]string{"migrate", "now"}, "migrate takes no arguments"},
	}
	for _, tc := range tests {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			code, _, stderr := run(tc.args...)
			if code != exitBadInput || !strings.Contains(stderr, tc.want) {
				t.Errorf("exit %d, stderr %q; want exit 2 and %q", code, stderr, tc.want)
			}
		})
	}
}

// The real corpus against itself: only its declaration problems remain
// (two sentry tools use draft-04 tuple "items", invalid in 2020-12, and
// sentry's whoami declares an inputSchema {} with no object type).
func TestToolsCheckCorpus(t *testing.T) {
	file := filepath.Join(t.TempDir(), "real-tools.json")
	if err := os.WriteFile(file, corpus.RealTools(), 0o600); err != nil {
		t.Fatal(err)
	}
	code, stdout, _ := run("tools", "check", "--approved", file, file)
	lines := strings.Split(strings.TrimSpace(stdout), "\n")
	if code != exitFailure || len(lines) != 3 {
		t.Fatalf("exit %d, %d lines:\n%s", code, len(lines), stdout)
	}
	for i, want := range []string{"create_uptime_monitor invalid_input_schema: ", "update_uptime_monitor invalid_input_schema: ", "whoami non_object_input_schema: "} {
		if !strings.HasPrefix(lines[i], "sentry-mcp:catalog/"+want) {
			t.Errorf("line %d = %q", i, lines[i])
		}
	}
}

// A live server's tools/list, fetched and checked: the CI pipeline.
func TestToolsFetchThenCheck(t *testing.T) {
	server := mcp.NewServer(&mcp.Implementation{Name: "fixture", Version: "1"}, &mcp.ServerOptions{PageSize: 1})
	for _, name := range []string{"search_issues", "get_issue"} {
		server.AddTool(&mcp.Tool{Name: name, Description: "d", InputSchema: json.RawMessage(`{"type":"object","properties":{"q":{"type":"string"}}}`)},
			func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				return &mcp.CallToolResult{}, nil
			})
	}
	httpServer := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server }, nil))
	defer httpServer.Close()

	code, stdout, stderr := run("tools", "fetch", "--url", httpServer.URL, "--server", "fixture")
	if code != exitOK {
		t.Fatalf("fetch: exit %d: %s", code, stderr)
	}
	current := filepath.Join(t.TempDir(), "current.json")
	if err := os.WriteFile(current, []byte(stdout), 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, _ = run("tools", "check", "--approved", current, current)
	if code != exitOK || stdout != "no drift: 1 server, 2 tools match "+current+"\n" {
		t.Errorf("check of a fetched list against itself: exit %d, %q", code, stdout)
	}
	code, stdout, _ = run("tools", "check", "--approved", "testdata/tools-check/approved.json", current)
	if code != exitFailure || !strings.Contains(stdout, "create_issue removed") || !strings.Contains(stdout, "fixture order_changed") {
		t.Errorf("check against another list: exit %d\n%s", code, stdout)
	}
}

// tools import writes a snapshot and, with --approve, the registry.
func TestToolsImportApproves(t *testing.T) {
	db, schemaName := pgtest.New(t)
	u, err := url.Parse(pgtest.URL())
	if err != nil {
		t.Fatal(err)
	}
	q := u.Query()
	q.Set("search_path", schemaName)
	u.RawQuery = q.Encode()
	m, out, errOut := mainWithEnv(map[string]string{"DATABASE_URL": u.String()})

	code := m.Run(context.Background(), []string{"tools", "import", "--server", "github", "--approve", "testdata/tools-check/approved.json"})
	if code != exitOK {
		t.Fatalf("import: exit %d: %s", code, errOut)
	}
	want := "imported snapshot 1 of github: 5 tools, 5 findings against the approved snapshot\n" +
		"approved snapshot 1: 5 tools declared (5 new versions), 0 removed\n"
	if got := out.String(); !strings.HasSuffix(got, want) {
		t.Errorf("import output:\n%s\nwant it to end with:\n%s", got, want)
	}
	rt, err := postgres.NewRegistry(db).ResolveTool(context.Background(), "github/search_issues", 0)
	if err != nil || rt.Version != 1 || rt.Output == nil {
		t.Fatalf("after import the registry resolves %+v, %v", rt, err)
	}

	// The drifted list has problems: it imports, shows its drift, and is
	// not approved.
	out.Reset()
	code = m.Run(context.Background(), []string{"tools", "import", "--server", "github", "--approve", "testdata/tools-check/drifted.json"})
	if code != exitFailure || !strings.Contains(out.String(), "imported snapshot 2 of github: 5 tools, 12 findings") ||
		!strings.Contains(errOut.String(), "invalid tool declaration") {
		t.Errorf("import of a drifted list: exit %d\n%s\n%s", code, out, errOut)
	}
}

func mainWithEnv(env map[string]string) (*Main, *bytes.Buffer, *bytes.Buffer) {
	var out, errOut bytes.Buffer
	return &Main{Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errOut, Getenv: func(k string) string { return env[k] }}, &out, &errOut
}
