package registry

import (
	"fmt"
	"strings"
)

// QualifiedName joins a server and a tool name.
func QualifiedName(server, name string) string {
	if server == "" {
		return name
	}
	return server + "/" + name
}

// SplitName splits "server/tool" at its last slash (server names may hold
// slashes, tool names never do). A bare name has server "" and qualified
// false.
func SplitName(name string) (server, tool string, qualified bool) {
	i := strings.LastIndexByte(name, '/')
	if i < 0 {
		return "", name, false
	}
	return name[:i], name[i+1:], true
}

// NotFound wraps ErrNotFound for a tool name.
func NotFound(name string) error { return fmt.Errorf("tool %s: %w", name, ErrNotFound) }

// ambiguous is the ErrAmbiguous error for a bare name declared by several
// servers, naming them (sorted by the caller).
func ambiguous(name string, qualified []string) error {
	return fmt.Errorf("tool %s: %w: declared by %s; name one as server/tool", name, ErrAmbiguous, strings.Join(qualified, ", "))
}

// PickServer chooses which server's tool a bare name means, given every
// server that currently declares a tool of that name (sorted). A tool
// declared without a server is the exact match of its own name and wins,
// as in Catalog; otherwise exactly one server must declare it.
func PickServer(name string, servers []string) (string, error) {
	switch {
	case len(servers) == 0:
		return "", NotFound(name)
	case servers[0] == "":
		return "", nil
	case len(servers) == 1:
		return servers[0], nil
	}
	qualified := make([]string, len(servers))
	for i, s := range servers {
		qualified[i] = QualifiedName(s, name)
	}
	return "", ambiguous(name, qualified)
}
