package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

// typeward route refuses a bad configuration naming every problem, and
// prints its flags with -h.
func TestRouteFlags(t *testing.T) {
	var stderr bytes.Buffer
	m := &Main{Stdin: strings.NewReader(""), Stdout: &bytes.Buffer{}, Stderr: &stderr, Getenv: func(string) string { return "" }}
	code := m.Run(context.Background(), []string{"route", "--upstream", "ftp://x", "--upstream-timeout", "1h", "--log-level", "loud"})
	out := stderr.String()
	if code != exitBadInput {
		t.Fatalf("exit %d: %s", code, out)
	}
	for _, want := range []string{`upstream "ftp://x" is not an http(s) URL`, "issuer is required", "resource is required",
		"upstream timeout must be between 0 and 10m0s", `--log-level "loud"`} {
		if !strings.Contains(out, want) {
			t.Errorf("missing %q in\n%s", want, out)
		}
	}
	stderr.Reset()
	if code := m.Run(context.Background(), []string{"route", "-h"}); code != exitOK || !strings.Contains(stderr.String(), "-enforce-order") {
		t.Errorf("-h: exit %d\n%s", code, stderr.String())
	}
}
