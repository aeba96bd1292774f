package main

import (
	"strings"
	"testing"

	"github.com/typeward/typeward/internal/store/postgres/pgtest"
)

func TestResourcesCommand(t *testing.T) {
	_, schemaName := pgtest.New(t)
	env := map[string]string{"DATABASE_URL": pgtest.SchemaURL(schemaName), "TYPEWARD_ISSUER": "https://auth.example"}
	for _, tc := range []struct {
		args       []string
		code       int
		out, error string
	}{
		{[]string{"resources", "add", "https://router.example/mcp", "--name", "Router"}, exitOK, "resource https://router.example/mcp listed\n", ""},
		{[]string{"resources", "add", "https://router.example/mcp"}, exitBadInput, "", "already listed"},
		{[]string{"resources", "add", "router.example/mcp"}, exitBadInput, "", "is not an absolute http(s) URI"},
		{[]string{"resources", "add", "https://auth.example/"}, exitBadInput, "", "is this server's issuer"},
		{[]string{"resources", "add"}, exitBadInput, "", "add takes one URI"},
		{[]string{"resources", "list", "--output", "json"}, exitOK, `"name": "Router"`, ""},
		{[]string{"resources", "delete", "https://nowhere.example/mcp"}, exitBadInput, "", "not found"},
		{[]string{"resources", "delete", "https://router.example/mcp"}, exitOK, "deleted", ""},
		{[]string{"resources", "list"}, exitOK, "RESOURCE", ""},
		{[]string{"resources", "frob"}, exitBadInput, "", "unknown action"},
	} {
		code, stdout, stderr := runEnv(env, tc.args...)
		if code != tc.code || !strings.Contains(stdout, tc.out) || !strings.Contains(stderr, tc.error) {
			t.Errorf("%v: exit %d\nstdout %q\nstderr %q", tc.args, code, stdout, stderr)
		}
	}
	if _, stdout, _ := runEnv(env, "resources", "list"); strings.Contains(stdout, "router.example") {
		t.Errorf("a deleted resource is still listed:\n%s", stdout)
	}
}
