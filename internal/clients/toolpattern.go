package clients

import (
	"errors"
	"strings"
)

// maxToolPatternLen bounds a pattern: tool names are short (MCP suggests
// at most 128 characters) and server names add a prefix.
const maxToolPatternLen = 256

// MatchTool reports whether a tool pattern admits the qualified tool name
// ("server/tool", or a bare name for a tool without a server):
//
//	"*"          every tool
//	"server/*"   every tool of that server, and of no other
//	"db_query"   exactly that name
//
// Server names may hold "/", tool names never do, so "github/*" does not
// reach the tools of a server named "github/enterprise". Matching is
// case-sensitive, as MCP tool names are.
func MatchTool(pattern, name string) bool {
	switch {
	case name == "":
		return false
	case pattern == "*":
		return true
	case strings.HasSuffix(pattern, "/*"):
		// The server is what precedes the last "/": a tool name is after it.
		i := strings.LastIndexByte(name, '/')
		return i >= 0 && i < len(name)-1 && name[:i] == pattern[:len(pattern)-2]
	default:
		return pattern == name
	}
}

// ValidateToolPattern explains why p is not a tool pattern, or returns nil.
// A pattern is "*", "server/*", or a name; names are visible ASCII without
// "*", so that a wildcard can only ever mean what MatchTool says.
func ValidateToolPattern(p string) error {
	if p == "*" {
		return nil
	}
	if p == "" {
		return errors.New("is empty")
	}
	if len(p) > maxToolPatternLen {
		return errors.New("is longer than 256 characters")
	}
	body := strings.TrimSuffix(p, "/*")
	if body == "" {
		return errors.New(`names no server before "/*"`)
	}
	for _, r := range body {
		switch {
		case r == '*':
			return errors.New(`has "*" other than as "*" or a trailing "/*"`)
		case r <= ' ' || r > '~':
			return errors.New("has a character outside visible ASCII")
		}
	}
	if strings.HasPrefix(body, "/") || strings.HasSuffix(body, "/") || strings.Contains(body, "//") {
		return errors.New("has an empty name segment")
	}
	return nil
}
