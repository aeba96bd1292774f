package main

import (
	"encoding/hex"
	"encoding/json"
	"strings"
	"testing"

	"github.com/typeward/typeward/internal/keys"
	"github.com/typeward/typeward/internal/store/postgres/pgtest"
)

func TestKeysCommand(t *testing.T) {
	_, schemaName := pgtest.New(t)
	kek := hex.EncodeToString([]byte(strings.Repeat("k", 32)))
	env := map[string]string{"DATABASE_URL": pgtest.SchemaURL(schemaName), "TYPEWARD_KEY_ENCRYPTION_KEY": kek}

	list := func() []keys.Info {
		t.Helper()
		code, out, errOut := runEnv(env, "keys", "list", "--output", "json")
		if code != 0 {
			t.Fatalf("keys list: exit %d: %s", code, errOut)
		}
		var infos []keys.Info
		if err := json.Unmarshal([]byte(out), &infos); err != nil {
			t.Fatalf("keys list output %q: %v", out, err)
		}
		return infos
	}
	if got := list(); len(got) != 0 {
		t.Fatalf("empty database lists %v", got)
	}

	// The first rotation on an empty database creates a key signing now.
	code, _, errOut := runEnv(env, "keys", "rotate")
	if code != 0 || !strings.Contains(errOut, "created the first one") {
		t.Fatalf("first rotate: exit %d: %s", code, errOut)
	}
	first := list()
	if len(first) != 1 || first[0].State != keys.StateActive || first[0].Alg != keys.ES256 {
		t.Fatalf("after the first rotate: %+v", first)
	}

	code, out, errOut := runEnv(env, "keys", "rotate", "--alg", "EdDSA", "--jwks-max-age", "5m")
	if code != 0 || !strings.Contains(errOut, "published; it signs from") || !strings.Contains(out, "pending") {
		t.Fatalf("rotate: exit %d\n%s\n%s", code, out, errOut)
	}
	second := list()
	if len(second) != 2 || second[0].State != keys.StateActive || second[1].State != keys.StatePending || second[1].Alg != keys.EdDSA {
		t.Fatalf("after rotate: %+v", second)
	}
	if got := second[1].ActivateAt.Sub(second[1].PublishAt); got != 5*60e9+keys.DefaultRefreshEvery {
		t.Errorf("the new key signs %v after publication, want 5m30s", got)
	}

	// An emergency rotation withdraws the others at once, and destroys them.
	code, _, _ = runEnv(env, "keys", "rotate", "--emergency")
	third := list()
	if code != 0 || len(third) != 1 || third[0].State != keys.StateActive || third[0].KID == second[0].KID || third[0].KID == second[1].KID {
		t.Fatalf("after an emergency rotate: exit %d, %+v", code, third)
	}

	code, out, _ = runEnv(env, "keys", "list")
	if code != 0 || !strings.HasPrefix(out, "KID  ") || strings.Count(out, "\n") != 2 || !strings.Contains(out, third[0].KID+"  ES256  active") {
		t.Errorf("text list:\n%s", out)
	}
}

func TestKeysCommandRefuses(t *testing.T) {
	_, schemaName := pgtest.New(t)
	db := pgtest.SchemaURL(schemaName)
	kek := hex.EncodeToString([]byte(strings.Repeat("k", 32)))
	otherKEK := hex.EncodeToString([]byte(strings.Repeat("o", 32)))
	if code, _, errOut := runEnv(map[string]string{"DATABASE_URL": db, "TYPEWARD_KEY_ENCRYPTION_KEY": kek}, "keys", "rotate"); code != 0 {
		t.Fatalf("first rotate: %s", errOut)
	}
	tests := []struct {
		name     string
		env      map[string]string
		args     []string
		wantCode int
		wantErr  string
	}{
		{"no action", nil, []string{"keys"}, 2, "usage:"},
		{"unknown action", nil, []string{"keys", "burn"}, 2, `unknown action "burn": want list or rotate`},
		{"no database", nil, []string{"keys", "list"}, 2, "no database: set DATABASE_URL"},
		{"bad output", map[string]string{"DATABASE_URL": db}, []string{"keys", "list", "--output", "xml"}, 2, `--output "xml"`},
		{"bad alg", map[string]string{"DATABASE_URL": db}, []string{"keys", "rotate", "--alg", "RS256"}, 2, `unsupported signing algorithm "RS256"`},
		{"bad max-age", map[string]string{"DATABASE_URL": db}, []string{"keys", "rotate", "--jwks-max-age", "0s"}, 2, `--jwks-max-age 0s: want a duration from 1s to 24h`},
		{"bad max-age from the servers' variable", map[string]string{"DATABASE_URL": db, "TYPEWARD_JWKS_MAX_AGE": "soon"}, []string{"keys", "rotate"}, 2,
			`TYPEWARD_JWKS_MAX_AGE "soon": not a duration`},
		{"bad token TTL", map[string]string{"DATABASE_URL": db}, []string{"keys", "rotate", "--token-ttl", "3h"}, 2, "--token-ttl 3h0m0s: must be between 1m0s and 1h0m0s"},
		{"bad emergency", map[string]string{"DATABASE_URL": db}, []string{"keys", "rotate", "--emergency=maybe"}, 2, `--emergency "maybe": want true or false`},
		{"rotate flag on list", map[string]string{"DATABASE_URL": db}, []string{"keys", "list", "--emergency"}, 2, "flag provided but not defined: -emergency"},
		{"every problem at once", map[string]string{"DATABASE_URL": db}, []string{"keys", "rotate", "--alg", "RS256", "--output", "xml"}, 2,
			`--output "xml": want text or json`},
		{"not a postgres URL", map[string]string{"DATABASE_URL": "mysql://x"}, []string{"keys", "list"}, 2, "DATABASE_URL: want a postgres:// URL"},
		{"no KEK", map[string]string{"DATABASE_URL": db}, []string{"keys", "rotate"}, 2, "TYPEWARD_KEY_ENCRYPTION_KEY is required"},
		{"bad KEK", map[string]string{"DATABASE_URL": db, "TYPEWARD_KEY_ENCRYPTION_KEY": "abc"}, []string{"keys", "rotate"}, 2, "decodes to 2 bytes, want 32"},
		{"wrong KEK", map[string]string{"DATABASE_URL": db, "TYPEWARD_KEY_ENCRYPTION_KEY": otherKEK}, []string{"keys", "rotate"}, 1, "wrong key encryption key"},
	}
	for _, tc := range tests {
		code, _, errOut := runEnv(tc.env, tc.args...)
		if code != tc.wantCode || !strings.Contains(errOut, tc.wantErr) {
			t.Errorf("%s: exit %d, stderr %q; want exit %d and %q", tc.name, code, errOut, tc.wantCode, tc.wantErr)
		}
	}
	code, out, _ := runEnv(map[string]string{"DATABASE_URL": db}, "keys", "list", "--output", "json")
	var infos []keys.Info
	if code != 0 || json.Unmarshal([]byte(out), &infos) != nil || len(infos) != 1 {
		t.Errorf("refused commands changed the keys: %s", out)
	}
}
