package jstest_test

import (
	"context"
	"strconv"
	"strings"
	"testing"

	"github.com/typeward/typeward/internal/jstest"
)

// The installed peers are what the tests rely on: a Node of major version
// 22 or later (the suite calls fs.globSync), and a conformance suite that
// knows the 2025-11-25 requirement set.
func TestInstallMCP(t *testing.T) {
	m := jstest.InstallMCP(t)
	out, err := m.Command(context.Background(), "--version").Output()
	if err != nil {
		t.Fatal(err)
	}
	major, _, _ := strings.Cut(strings.TrimPrefix(strings.TrimSpace(string(out)), "v"), ".")
	if n, err := strconv.Atoi(major); err != nil || n < 22 {
		t.Fatalf("node --version = %s, want >= 22", out)
	}
	out, err = m.Conformance(context.Background(), "list", "--server", "--requirements", "2025-11-25").CombinedOutput()
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	for _, s := range []string{"tools-call-sampling", "resources-read-text", "dns-rebinding-protection"} {
		if !strings.Contains(string(out), "- "+s+"\n") {
			t.Errorf("conformance list lacks %s:\n%s", s, out)
		}
	}
}
