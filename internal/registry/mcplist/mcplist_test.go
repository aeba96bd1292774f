package mcplist_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/typeward/typeward/internal/registry"
	"github.com/typeward/typeward/internal/registry/mcplist"
	"github.com/typeward/typeward/internal/store/storetest"
)

// serverEnv makes the test binary an MCP stdio server (see TestMain).
const serverEnv = "TYPEWARD_MCPLIST_TEST_SERVER"

func TestMain(m *testing.M) {
	if os.Getenv(serverEnv) == "1" {
		server := newServer(loadTools())
		if err := server.Run(context.Background(), &mcp.StdioTransport{}); err != nil {
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// verbatim has key order, a number literal and an escape that a decode
// into map[string]any and back would all change.
const verbatim = `{"type":"object","properties":{"zeta":{"type":"number","multipleOf":1.50},"alpha":{"type":"string","pattern":"^\u00e9$"}}}`

// loadTools is the corpus server "everything" (16 real tools, some with an
// outputSchema) plus one tool whose spelling must survive.
func loadTools() []registry.Tool {
	var tools []registry.Tool
	for _, s := range storetest.Corpus(&fatalTB{}) {
		if s.Server == "modelcontextprotocol/servers:everything" {
			tools = append(tools, s.Tools...)
		}
	}
	return append(tools, registry.Tool{Name: "verbatim", Description: "keeps its spelling", InputSchema: json.RawMessage(verbatim)})
}

// newServer serves the tools raw, five per tools/list page.
func newServer(tools []registry.Tool) *mcp.Server {
	server := mcp.NewServer(&mcp.Implementation{Name: "fixture", Version: "1"}, &mcp.ServerOptions{PageSize: 5})
	for _, t := range tools {
		mt := &mcp.Tool{Name: t.Name, Title: t.Title, Description: t.Description, InputSchema: t.InputSchema}
		if t.OutputSchema != nil {
			mt.OutputSchema = t.OutputSchema
		}
		if t.Annotations != nil {
			mt.Annotations = new(mcp.ToolAnnotations)
			if err := json.Unmarshal(t.Annotations, mt.Annotations); err != nil {
				panic(err)
			}
		}
		server.AddTool(mt, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{}, nil
		})
	}
	return server
}

func TestListOverStreamableHTTP(t *testing.T) {
	tools := loadTools()
	server := newServer(tools)
	httpServer := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server }, nil))
	defer httpServer.Close()

	got, err := mcplist.List(context.Background(), mcplist.HTTP(httpServer.URL, httpServer.Client()))
	if err != nil {
		t.Fatal(err)
	}
	assertSameTools(t, got, tools)
}

func TestListOverStdio(t *testing.T) {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(self, "-test.run=^$")
	cmd.Env = append(os.Environ(), serverEnv+"=1")
	got, err := mcplist.List(context.Background(), mcplist.Command(cmd))
	if err != nil {
		t.Fatal(err)
	}
	assertSameTools(t, got, loadTools())
}

func TestListReportsAServerThatIsNotThere(t *testing.T) {
	httpServer := httptest.NewServer(http.NotFoundHandler())
	url := httpServer.URL
	httpServer.Close()
	if _, err := mcplist.List(context.Background(), mcplist.HTTP(url, nil)); err == nil {
		t.Fatal("listing a closed server succeeded")
	}
	cmd := exec.Command("false")
	if _, err := mcplist.List(context.Background(), mcplist.Command(cmd)); err == nil {
		t.Fatal("listing a command that exits succeeded")
	}
}

// assertSameTools: every page was followed (go-sdk servers list by name),
// and every schema arrived as declared, byte for byte but whitespace.
func assertSameTools(t *testing.T, got, declared []registry.Tool) {
	t.Helper()
	want := slices.Clone(declared)
	slices.SortFunc(want, func(a, b registry.Tool) int { return strings.Compare(a.Name, b.Name) })
	if len(got) != len(want) {
		t.Fatalf("listed %d tools, want %d (pagination not followed?)", len(got), len(want))
	}
	for i := range want {
		g, w := got[i], want[i]
		if g.Name != w.Name || g.Description != w.Description || g.Title != w.Title {
			t.Errorf("tool %d = %q, want %q", i, g.Name, w.Name)
		}
		if !bytes.Equal(compact(t, g.InputSchema), compact(t, w.InputSchema)) {
			t.Errorf("%s inputSchema\n got %s\nwant %s", w.Name, g.InputSchema, w.InputSchema)
		}
		if !bytes.Equal(compact(t, g.OutputSchema), compact(t, w.OutputSchema)) {
			t.Errorf("%s outputSchema\n got %s\nwant %s", w.Name, g.OutputSchema, w.OutputSchema)
		}
	}
	if fs := registry.Drift(want, got); len(fs) != 0 {
		t.Errorf("the listed tools drift from the declared ones: %v", fs)
	}
}

func compact(t *testing.T, raw json.RawMessage) []byte {
	t.Helper()
	if raw == nil {
		return nil
	}
	var buf bytes.Buffer
	if err := json.Compact(&buf, raw); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// fatalTB lets the stdio server process load the corpus outside a test.
type fatalTB struct{ testing.TB }

func (fatalTB) Helper()                           {}
func (fatalTB) Fatal(args ...any)                 { panic(fmt.Sprint(args...)) }
func (fatalTB) Fatalf(format string, args ...any) { panic(fmt.Sprintf(format, args...)) }
