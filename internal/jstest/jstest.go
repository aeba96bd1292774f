// Package jstest runs JavaScript peers from tests: typeward's Node interop
// script (scripts/node-interop.sh: independent implementations, npm jose
// and canonicalize, checking what typeward signs and digests) and the MCP
// peers of scripts/mcp (InstallMCP: Node 22, the official conformance
// suite and TypeScript SDK). Without node or npm a test skips, except in
// CI (CI set), where a missing peer is a failure.
package jstest

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sync"
	"testing"
)

// installMu serialises the first npm install across a package's tests.
var installMu sync.Mutex

// Run runs the script with args and stdin, and returns its stdout.
func Run(t testing.TB, stdin string, args ...string) []byte {
	t.Helper()
	for _, tool := range []string{"node", "npm"} {
		if _, err := exec.LookPath(tool); err != nil {
			if os.Getenv("CI") != "" {
				t.Fatalf("CI is set but %s is not installed: the Node interop tests must run", tool)
			}
			t.Skipf("SKIPPING NODE INTEROP: %s not installed (CI would fail)", tool)
		}
	}
	installMu.Lock()
	defer installMu.Unlock()
	cmd := exec.Command("bash", append([]string{Script()}, args...)...)
	cmd.Stdin = bytes.NewBufferString(stdin)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("node-interop.sh %v: %v\n%s", args, err, stderr.String())
	}
	return stdout.Bytes()
}

// Script is the path of scripts/node-interop.sh.
func Script() string { return filepath.Join(Root(), "scripts", "node-interop.sh") }

// Root is the repository's root directory.
func Root() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..")
}
