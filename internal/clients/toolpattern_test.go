package clients_test

import (
	"testing"

	"github.com/typeward/typeward/internal/clients"
)

func TestMatchTool(t *testing.T) {
	for _, tc := range []struct {
		pattern, name string
		want          bool
	}{
		{"*", "db_query", true},
		{"*", "github/search_issues", true},
		{"*", "", false},
		{"db_query", "db_query", true},
		{"db_query", "db_query2", false},
		{"db_query", "examples/db_query", false}, // exact means the qualified name
		{"db_query", "DB_QUERY", false},          // MCP names are case-sensitive
		{"github/*", "github/search_issues", true},
		{"github/*", "github/", false}, // a server prefix alone names no tool
		{"github/*", "github", false},
		{"github/*", "githubx/search", false},
		{"github/*", "gitlab/search", false},
		{"github/*", "other/github/x", false},
		{"github/*", "github/enterprise/deploy", false}, // another server's tool
		{"modelcontextprotocol/*", "modelcontextprotocol/servers:git/git_status", false},
		{"modelcontextprotocol/servers:git/*", "modelcontextprotocol/servers:git/git_status", true},
		{"modelcontextprotocol/servers:git/*", "modelcontextprotocol/servers:gitx/git_status", false},
		{"github/search", "github/search", true},
		{"github/search", "github/search_code", false},
	} {
		if got := clients.MatchTool(tc.pattern, tc.name); got != tc.want {
			t.Errorf("clients.MatchTool(%q, %q) = %v, want %v", tc.pattern, tc.name, got, tc.want)
		}
	}
}

func TestValidateToolPattern(t *testing.T) {
	for _, tc := range []struct {
		pattern string
		wantErr string
	}{
		{"*", ""},
		{"db_query", ""},
		{"github/*", ""},
		{"github/search_issues", ""},
		{"modelcontextprotocol/servers:git/*", ""},
		{"", "is empty"},
		{"/*", `names no server before "/*"`},
		{"git*", `has "*" other than as "*" or a trailing "/*"`},
		{"*/search", `has "*" other than as "*" or a trailing "/*"`},
		{"github/**", `has "*" other than as "*" or a trailing "/*"`},
		{"db query", "has a character outside visible ASCII"},
		{"dbé", "has a character outside visible ASCII"},
		{"/db", "has an empty name segment"},
		{"a//b", "has an empty name segment"},
		{"github//*", "has an empty name segment"},
		{string(make([]byte, 257)), "is longer than 256 characters"},
	} {
		err := clients.ValidateToolPattern(tc.pattern)
		got := ""
		if err != nil {
			got = err.Error()
		}
		if got != tc.wantErr {
			t.Errorf("clients.ValidateToolPattern(%q) = %q, want %q", tc.pattern, got, tc.wantErr)
		}
	}
}
