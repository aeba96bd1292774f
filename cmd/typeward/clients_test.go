package main

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"strings"
	"testing"

	"github.com/typeward/typeward/internal/clients"
	"github.com/typeward/typeward/internal/grading"
	"github.com/typeward/typeward/internal/store/postgres"
	"github.com/typeward/typeward/internal/store/postgres/pgtest"
)

// runEnv runs one command line in-process with the given environment.
func runEnv(env map[string]string, args ...string) (code int, stdout, stderr string) {
	var out, errOut bytes.Buffer
	m := &Main{Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errOut, Getenv: func(k string) string { return env[k] }}
	code = m.Run(context.Background(), args)
	return code, out.String(), errOut.String()
}

func TestClientsCommand(t *testing.T) {
	db, schemaName := pgtest.New(t)
	pepper := bytes.Repeat([]byte{3}, 32)
	env := map[string]string{
		"DATABASE_URL":                  pgtest.SchemaURL(schemaName),
		"TYPEWARD_CLIENT_SECRET_PEPPER": base64.StdEncoding.EncodeToString(pepper),
	}

	// Every registration problem at once, nothing stored.
	code, stdout, stderr := runEnv(env, "clients", "create", "--tool", "git*", "--tool", "db_query")
	wantErr := "invalid client:\n  /client_name is required\n  /allowed_tools/0 \"git*\" has \"*\" other than as \"*\" or a trailing \"/*\"\n" +
		"  /allowed_audiences is required when allowed_tools is set (a tool token names its resource)\n"
	if code != exitBadInput || stdout != "" || stderr != wantErr {
		t.Fatalf("invalid create: exit %d\nstdout %q\nstderr %q\nwant   %q", code, stdout, stderr, wantErr)
	}

	code, stdout, stderr = runEnv(env, "clients", "create", "--name", "etl", "--tool", "github/*", "--tool", "db_query",
		"--audience", "https://router.example.com/mcp", "--approval", "destructive", "--validation", "strict", "--dpop-bound", "--output", "json")
	if code != exitOK || stderr != "" {
		t.Fatalf("create: exit %d, stderr %q", code, stderr)
	}
	var created struct {
		ClientID     string `json:"client_id"`
		ClientSecret string `json:"client_secret"`
	}
	if err := json.Unmarshal([]byte(stdout), &created); err != nil {
		t.Fatalf("create output %q: %v", stdout, err)
	}
	stored, err := postgres.NewClients(db).Get(context.Background(), created.ClientID)
	if err != nil {
		t.Fatal(err)
	}
	h, _ := clients.NewHasher(pepper)
	if !h.Verify(created.ClientID, created.ClientSecret, stored.SecretHash) || stored.Name != "etl" ||
		strings.Join(stored.AllowedTools, " ") != "github/* db_query" || stored.Approval != clients.ApprovalDestructive || stored.Validation != grading.Strict || !stored.DPoPBound {
		t.Errorf("stored %+v does not match the created client", stored)
	}
	code, stdout, stderr = runEnv(env, "clients", "update", created.ClientID, "--approval", "always", "--dpop-bound=false")
	if code != exitOK || stdout != "client "+created.ClientID+": approval always, validation strict, dpop_bound_access_tokens false\n" {
		t.Errorf("update: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	if stored, _ = postgres.NewClients(db).Get(context.Background(), created.ClientID); stored.Approval != clients.ApprovalAlways {
		t.Errorf("after update the approval is %q", stored.Approval)
	}
	code, _, stderr = runEnv(env, "clients", "update", created.ClientID, "--approval", "sometimes")
	if code != exitBadInput || !strings.Contains(stderr, "/approval must be one of never, mutating, destructive, always") {
		t.Errorf("update with a bad policy: exit %d, stderr %q", code, stderr)
	}
	code, stdout, stderr = runEnv(env, "clients", "update", "--validation", "lenient", created.ClientID)
	if code != exitOK || stdout != "client "+created.ClientID+": approval always, validation lenient, dpop_bound_access_tokens false\n" {
		t.Errorf("update validation: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	code, stdout, stderr = runEnv(env, "clients", "update", created.ClientID, "--dpop-bound")
	if stored, _ = postgres.NewClients(db).Get(context.Background(), created.ClientID); code != exitOK || !stored.DPoPBound ||
		stdout != "client "+created.ClientID+": approval always, validation lenient, dpop_bound_access_tokens true\n" {
		t.Errorf("update --dpop-bound: exit %d, stdout %q, stderr %q, stored %v", code, stdout, stderr, stored.DPoPBound)
	}
	if code, _, stderr = runEnv(env, "clients", "update", created.ClientID, "--dpop-bound=false"); code != exitOK {
		t.Errorf("update --dpop-bound=false: exit %d, stderr %q", code, stderr)
	}
	if stored, _ = postgres.NewClients(db).Get(context.Background(), created.ClientID); stored.DPoPBound {
		t.Error("--dpop-bound=false left the client DPoP-bound")
	}
	for _, bad := range []string{"paranoid", ""} { // a bad mode, even with a good approval, changes nothing
		code, _, stderr = runEnv(env, "clients", "update", created.ClientID, "--approval", "never", "--validation", bad)
		if code != exitBadInput || !strings.Contains(stderr, "/validation must be one of lenient, strict") {
			t.Errorf("update with validation %q: exit %d, stderr %q", bad, code, stderr)
		}
	}
	if stored, _ = postgres.NewClients(db).Get(context.Background(), created.ClientID); stored.Approval != clients.ApprovalAlways || stored.Validation != grading.Lenient {
		t.Errorf("after the refused updates: approval %q validation %q", stored.Approval, stored.Validation)
	}

	if code, stdout, stderr = runEnv(env, "clients", "disable", created.ClientID); code != exitOK || stdout != "client "+created.ClientID+" disabled\n" {
		t.Errorf("disable: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	code, stdout, _ = runEnv(env, "clients", "list", "--output", "json")
	var listed []map[string]any
	if err := json.Unmarshal([]byte(stdout), &listed); code != exitOK || err != nil || len(listed) != 1 ||
		listed[0]["client_id"] != created.ClientID || listed[0]["disabled"] != true || listed[0]["approval"] != "always" || listed[0]["validation"] != "lenient" || listed[0]["secret_hash"] != nil {
		t.Errorf("list json: exit %d, %v, %s", code, err, stdout)
	}
	code, stdout, _ = runEnv(env, "clients", "list")
	lines := strings.Split(strings.TrimSpace(stdout), "\n")
	if code != exitOK || len(lines) != 2 || !strings.HasPrefix(lines[0], "CLIENT_ID") || !strings.Contains(lines[0], "VALIDATION") || !strings.Contains(lines[1], "lenient") ||
		!strings.Contains(lines[1], "disabled") || !strings.Contains(lines[1], "github/*,db_query") {
		t.Errorf("list text: exit %d\n%s", code, stdout)
	}

	code, _, stderr = runEnv(env, "clients", "disable", "nobody")
	if code != exitFailure || !strings.Contains(stderr, `client "nobody": client not found`) {
		t.Errorf("disable unknown: exit %d, stderr %q", code, stderr)
	}
}

func TestClientsCommandBadInvocations(t *testing.T) {
	withDB := map[string]string{"DATABASE_URL": "postgres://127.0.0.1:1/none"}
	for _, tc := range []struct {
		name    string
		env     map[string]string
		args    []string
		code    int
		wantErr string
	}{
		{"no action", nil, []string{"clients"}, exitBadInput, "usage:"},
		{"unknown action", withDB, []string{"clients", "rotate"}, exitBadInput, `typeward clients: unknown action "rotate": want create, list, update or disable`},
		{"update without policy", withDB, []string{"clients", "update", "c1"}, exitBadInput, "typeward clients: update needs --approval, --validation or --dpop-bound"},
		{"no database", nil, []string{"clients", "list"}, exitBadInput, "typeward clients: no database: set DATABASE_URL or pass --database-url"},
		{"disable without id", withDB, []string{"clients", "disable"}, exitBadInput, "typeward clients: disable takes 1 argument(s), got 0"},
		{"bad output", withDB, []string{"clients", "list", "--output", "yaml"}, exitBadInput, `typeward clients: --output "yaml": expected text or json`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, stdout, stderr := runEnv(tc.env, tc.args...)
			if code != tc.code || stdout != "" || !strings.Contains(stderr, tc.wantErr) {
				t.Errorf("exit %d, stdout %q, stderr %q; want exit %d and %q", code, stdout, stderr, tc.code, tc.wantErr)
			}
		})
	}
}

func TestClientsCreateNeedsThePepper(t *testing.T) {
	_, schemaName := pgtest.New(t)
	env := map[string]string{"DATABASE_URL": pgtest.SchemaURL(schemaName)}
	code, _, stderr := runEnv(env, "clients", "create", "--name", "x", "--allowed-scope", clients.AdminScope)
	if code != exitBadInput || !strings.Contains(stderr, "TYPEWARD_CLIENT_SECRET_PEPPER is required") {
		t.Errorf("exit %d, stderr %q", code, stderr)
	}
}

// DATABASE_URL usually holds a password: usage output never shows it.
func TestHelpDoesNotEchoTheDatabaseURL(t *testing.T) {
	const secret = "postgres://typeward:hunter2@db.internal/typeward"
	env := map[string]string{"DATABASE_URL": secret}
	for _, args := range [][]string{
		{"migrate", "--help"},
		{"clients", "list", "--help"},
		{"keys", "rotate", "--help"},
		{"tools", "import", "--help"},
		{"clients", "list", "--bogus"},
	} {
		_, stdout, stderr := runEnv(env, args...)
		if strings.Contains(stdout+stderr, "hunter2") {
			t.Errorf("%v printed the database URL:\n%s%s", args, stdout, stderr)
		}
		if !strings.Contains(stderr, "-database-url") {
			t.Errorf("%v: usage %q does not name --database-url", args, stderr)
		}
	}
}

// An MCP host: a public client with its redirect URIs and grant types,
// stored as given and listed; a bad redirect is refused before anything
// is stored.
func TestClientsCreatePublicHost(t *testing.T) {
	db, schemaName := pgtest.New(t)
	env := map[string]string{
		"DATABASE_URL":                  pgtest.SchemaURL(schemaName),
		"TYPEWARD_CLIENT_SECRET_PEPPER": base64.StdEncoding.EncodeToString(bytes.Repeat([]byte{3}, 32)),
	}
	code, stdout, stderr := runEnv(env, "clients", "create", "--name", "host", "--auth-method", "none", "--tool", "*",
		"--audience", "https://router.example.com/mcp", "--redirect-uri", "http://example.com/cb")
	if code != exitBadInput || stdout != "" || !strings.Contains(stderr, `/redirect_uris/0 "http://example.com/cb" is http on a host that is not loopback`) {
		t.Fatalf("create with an http redirect: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	code, stdout, stderr = runEnv(env, "clients", "create", "--name", "host", "--auth-method", "none", "--tool", "*",
		"--audience", "https://router.example.com/mcp", "--redirect-uri", "http://127.0.0.1/cb", "--scope", "mcp:tool:db_query openid")
	if code != exitBadInput || stdout != "" || !strings.Contains(stderr, `/scope value 1 "openid" is not mcp:composition:NAME`) {
		t.Fatalf("create with a scope of no known form: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	code, stdout, stderr = runEnv(env, "clients", "create", "--name", "host", "--auth-method", "none", "--tool", "*",
		"--audience", "https://router.example.com/mcp", "--redirect-uri", "http://127.0.0.1/cb",
		"--grant-type", "authorization_code", "--grant-type", "refresh_token", "--output", "json",
		"--scope", "mcp:composition:nightly", "--scope", "offline_access")
	if code != exitOK || stderr != "" {
		t.Fatalf("create: exit %d, stderr %q", code, stderr)
	}
	var created struct {
		ClientID     string `json:"client_id"`
		ClientSecret string `json:"client_secret"`
	}
	if err := json.Unmarshal([]byte(stdout), &created); err != nil || created.ClientSecret != "" {
		t.Fatalf("create output %q: %v (a public client has no secret)", stdout, err)
	}
	stored, err := postgres.NewClients(db).Get(context.Background(), created.ClientID)
	if err != nil {
		t.Fatal(err)
	}
	if stored.TokenEndpointAuthMethod != clients.None || stored.SecretHash != nil ||
		strings.Join(stored.RedirectURIs, " ") != "http://127.0.0.1/cb" || strings.Join(stored.GrantTypes, " ") != "authorization_code refresh_token" ||
		strings.Join(stored.Scope, " ") != "mcp:composition:nightly offline_access" {
		t.Errorf("stored %+v", stored)
	}
	code, stdout, _ = runEnv(env, "clients", "list")
	if code != exitOK || !strings.Contains(stdout, "REDIRECT_URIS") || !strings.Contains(stdout, "authorization_code,refresh_token") || !strings.Contains(stdout, "http://127.0.0.1/cb") ||
		!strings.Contains(stdout, "mcp:composition:nightly,offline_access") {
		t.Errorf("list text: exit %d\n%s", code, stdout)
	}
}
