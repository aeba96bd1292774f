package oauth

import (
	"context"
	"errors"
	"testing"
)

// A composition token carries the scopes that open resources, prompts and
// completions when the client is allowed them and the request asks; a
// client allowed mcp:resources (mcp:prompts) may ask for any narrowing
// mcp:resources:PREFIX (mcp:prompts:NAME), nothing else beyond its list.
func TestMCPScopes(t *testing.T) {
	valid := details(exampleDoc(t, "pipeline-valid.json"))
	tools := "mcp:tool:aggregate_stats mcp:tool:db_query mcp:tool:email_send"
	for _, tt := range []struct {
		client, scope, want string // want "": refused invalid_scope
	}{
		{"reader", "mcp:resources mcp:prompts", tools + " mcp:resources mcp:prompts"},
		{"reader", "mcp:resources:docs:// mcp:prompts:greet", tools + " mcp:resources:docs:// mcp:prompts:greet"},
		{"reader", "", tools},
		{"reader", "mcp:completions", ""},
		{"reader", "mcp:resources:", ""},
		{"reader", "mcp:prompt:greet", ""},
		{"app", "mcp:resources", ""},
		{"app", "mcp:prompts:greet", ""},
	} {
		t.Run(tt.client+" "+tt.scope, func(t *testing.T) {
			f := newFixture(t)
			resp, err := f.svc.Token(context.Background(), form("grant_type", "client_credentials", "scope", tt.scope, "authorization_details", valid), creds(tt.client))
			if tt.want == "" {
				var oe *Error
				if !errors.As(err, &oe) || oe.Code != CodeInvalidScope {
					t.Fatalf("got %+v, %v; want invalid_scope", resp, err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if resp.Scope != tt.want {
				t.Errorf("scope = %q, want %q", resp.Scope, tt.want)
			}
			tok, err := f.verifier.Verify(context.Background(), resp.AccessToken)
			if err != nil || len(tok.Tools) != 3 {
				t.Fatalf("%v %+v", err, tok)
			}
		})
	}
}
