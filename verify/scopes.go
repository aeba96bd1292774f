package verify

import "strings"

// The scopes that open the rest of MCP to a token, beside its tools:
// resources, prompts and completions reach what no composition proof
// covers, so a router passes their methods only with the scope. A
// narrowed form opens part: ScopeResources+":"+PREFIX the resources whose
// URI starts with PREFIX, ScopePrompts+":"+NAME one prompt.
const (
	ScopeResources   = "mcp:resources"   // resources/list, read, templates/list, subscribe, unsubscribe
	ScopePrompts     = "mcp:prompts"     // prompts/list, get
	ScopeCompletions = "mcp:completions" // completion/complete
)

// NarrowedScope splits a narrowed scope into the scope it narrows and
// what it narrows it to ("mcp:resources:docs://" is ScopeResources and
// "docs://"); ok is false for any other scope. A client allowed the broad
// scope may be granted any narrowing of it.
func NarrowedScope(scope string) (broad, part string, ok bool) {
	for _, b := range []string{ScopeResources, ScopePrompts} {
		if p, found := strings.CutPrefix(scope, b+":"); found && p != "" {
			return b, p, true
		}
	}
	return "", "", false
}
