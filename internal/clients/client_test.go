package clients_test

import (
	"testing"

	"github.com/typeward/typeward/internal/clients"
)

func TestClientAllowLists(t *testing.T) {
	c := &clients.Client{
		AllowedTools:     []string{"github/*", "db_query"},
		AllowedAudiences: []string{"https://router.example.com/mcp"},
		AllowedScopes:    []string{clients.AdminScope},
	}
	for _, tc := range []struct {
		name string
		got  bool
		want bool
	}{
		{"tool under a server pattern", c.AllowsTool("github/search_issues"), true},
		{"exact tool", c.AllowsTool("db_query"), true},
		{"tool outside every pattern", c.AllowsTool("email_send"), false},
		{"exact audience", c.AllowsAudience("https://router.example.com/mcp"), true},
		// Resources compare as exact strings: no normalisation.
		{"audience with trailing slash", c.AllowsAudience("https://router.example.com/mcp/"), false},
		{"audience differing in case", c.AllowsAudience("https://Router.example.com/mcp"), false},
		{"granted scope", c.AllowsScope(clients.AdminScope), true},
		{"other scope", c.AllowsScope("typeward:read"), false},
	} {
		if tc.got != tc.want {
			t.Errorf("%s: %v, want %v", tc.name, tc.got, tc.want)
		}
	}
}

func TestCloneSharesNothing(t *testing.T) {
	c := &clients.Client{SecretHash: []byte{1}, JWKS: []byte(`{}`), AllowedTools: []string{"a"}, AllowedAudiences: []string{"b"}, AllowedScopes: []string{"c"}}
	d := c.Clone()
	d.SecretHash[0], d.JWKS[0], d.AllowedTools[0], d.AllowedAudiences[0], d.AllowedScopes[0] = 9, '[', "x", "y", "z"
	if c.SecretHash[0] != 1 || c.JWKS[0] != '{' || c.AllowedTools[0] != "a" || c.AllowedAudiences[0] != "b" || c.AllowedScopes[0] != "c" {
		t.Errorf("clone shares state with the original: %+v", c)
	}
}

func TestAuthMethods(t *testing.T) {
	for _, tc := range []struct {
		m                 clients.AuthMethod
		valid, usesSecret bool
	}{
		{clients.SecretBasic, true, true},
		{clients.SecretPost, true, true},
		{clients.PrivateKeyJWT, true, false},
		{clients.None, true, false},
		{"client_secret_jwt", false, false},
		{"", false, false},
	} {
		if tc.m.Valid() != tc.valid || tc.m.UsesSecret() != tc.usesSecret {
			t.Errorf("%q: Valid %v UsesSecret %v", tc.m, tc.m.Valid(), tc.m.UsesSecret())
		}
	}
}
