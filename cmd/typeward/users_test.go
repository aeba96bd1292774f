package main

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/typeward/typeward/internal/store/postgres"
	"github.com/typeward/typeward/internal/store/postgres/pgtest"
	"github.com/typeward/typeward/internal/users"
)

func TestUsersAdd(t *testing.T) {
	db, schemaName := pgtest.New(t)
	env := map[string]string{"DATABASE_URL": pgtest.SchemaURL(schemaName)}
	code, stdout, stderr := runEnv(env, "users", "add", "bob", "--role", "operator")
	if code != exitOK || !strings.HasPrefix(stdout, "user bob added (operator)\npassword: ") {
		t.Fatalf("add: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	password := strings.TrimSpace(strings.TrimPrefix(strings.Split(stdout, "\n")[1], "password: "))
	if _, _, err := users.SignIn(context.Background(), postgres.NewUsers(db), users.NewThrottle(), "bob", password, "127.0.0.1", timeNow()); err != nil {
		t.Errorf("sign-in with the printed password: %v", err)
	}
	env["TYPEWARD_CONSOLE_PASSWORD"] = "a chosen password"
	if code, stdout, _ = runEnv(env, "users", "add", "carol", "--role", "approver"); code != exitOK || strings.Contains(stdout, "password:") {
		t.Errorf("add with a chosen password: exit %d, %q", code, stdout)
	}
	if code, _, stderr = runEnv(env, "users", "add", "carol", "--role", "approver"); code == exitOK || !strings.Contains(stderr, "already exists") {
		t.Errorf("second add: exit %d, %q", code, stderr)
	}
	if code, _, stderr = runEnv(env, "users", "add", "dave", "--role", "admin"); code != exitBadInput || !strings.Contains(stderr, "want approver or operator") {
		t.Errorf("bad role: exit %d, %q", code, stderr)
	}
	env["TYPEWARD_CONSOLE_PASSWORD"] = "short"
	if code, _, stderr = runEnv(env, "users", "add", "erin", "--role", "approver"); code != exitBadInput || !strings.Contains(stderr, "at least 12") {
		t.Errorf("short password: exit %d, %q", code, stderr)
	}
}

func timeNow() time.Time { return time.Now() }
