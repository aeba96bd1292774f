package verify_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"testing"
)

// goCommand runs the go command of this toolchain in dir, outside any
// workspace, so that what it sees is this module alone.
func goCommand(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command(filepath.Join(runtime.GOROOT(), "bin", "go"), args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS=-mod=readonly", "GOPROXY=off")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("go %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// The module routers import carries no database, router, metrics or MCP
// SDK package and one JOSE library: its packages and tests, with
// everything they import, and its whole module graph.
func TestModuleDependencies(t *testing.T) {
	deps := goCommand(t, ".", "list", "-deps", "-test", "./...")
	for _, banned := range []string{"github.com/jackc/pgx", "github.com/go-chi/chi", "github.com/prometheus/",
		"github.com/modelcontextprotocol/go-sdk", "github.com/go-jose/", "github.com/typeward/typeward/internal/"} {
		if strings.Contains(deps, banned) {
			t.Errorf("go list -deps -test ./... holds %s", banned)
		}
	}
	if !strings.Contains(deps, "github.com/golang-jwt/jwt/v5\n") {
		t.Errorf("go list -deps does not hold the JOSE library; the test looks at the wrong module:\n%s", deps)
	}
	mods := strings.Fields(goCommand(t, ".", "list", "-m", "-f", "{{.Path}}", "all"))
	if want := []string{"github.com/typeward/typeward/verify", "github.com/golang-jwt/jwt/v5"}; !slices.Equal(mods, want) {
		t.Errorf("module graph %v, want %v", mods, want)
	}
}

// The router of docs/routers.md builds in a module that requires verify
// alone.
func TestRoutersDocExampleBuilds(t *testing.T) {
	doc, err := os.ReadFile("../docs/routers.md")
	if err != nil {
		t.Fatal(err)
	}
	_, section, _ := strings.Cut(string(doc), "## A Go router with `verify`")
	m := regexp.MustCompile("(?s)```go\n(.*?)```").FindStringSubmatch(section)
	if m == nil {
		t.Fatal("docs/routers.md has no Go block under \"A Go router with `verify`\"")
	}
	self, err := filepath.Abs(".")
	if err != nil {
		t.Fatal(err)
	}
	sum, err := os.ReadFile("go.sum")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	gomod := "module example.com/router\n\ngo 1.26.0\n\nrequire (\n\tgithub.com/typeward/typeward/verify v0.0.0\n\tgithub.com/golang-jwt/jwt/v5 v5.3.1 // indirect\n)\n\nreplace github.com/typeward/typeward/verify => " + self + "\n"
	for name, data := range map[string][]byte{"go.mod": []byte(gomod), "go.sum": sum, "main.go": []byte(m[1])} {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	goCommand(t, dir, "vet", ".")
	goCommand(t, dir, "build", "-o", filepath.Join(dir, "router"), ".")
}
