package registry

import (
	"context"
	"fmt"
	"slices"
	"strings"
)

// Catalog is an immutable, in-memory Resolver over tool declarations: what
// the CLI validates against and what tests use. Every tool is at version 1.
// Tools whose schemas cannot be used are kept aside with the reason, so that
// resolving one explains itself instead of saying "not found".
type Catalog struct {
	byQualified map[string]*ResolvedTool
	byName      map[string][]*ResolvedTool // bare name -> every server's tool, in load order
	refused     map[string]*RefusedToolError
}

// RefusedToolError says why a declared tool is not in a Catalog. It matches
// ErrNotFound with errors.Is: the tool cannot be resolved.
type RefusedToolError struct {
	Tool   string // qualified name
	Reason error
}

func (e *RefusedToolError) Error() string {
	return fmt.Sprintf("tool %s is declared but refused: %v", e.Tool, e.Reason)
}

func (e *RefusedToolError) Unwrap() []error { return []error{ErrNotFound, e.Reason} }

// NewCatalog loads the schemas of every tool. A tool that Declare refuses
// (its schemas do not load, its name breaks the MCP rule, …) is kept aside
// with the reason; see Refused.
func NewCatalog(servers []ServerTools) *Catalog {
	c := &Catalog{
		byQualified: map[string]*ResolvedTool{},
		byName:      map[string][]*ResolvedTool{},
		refused:     map[string]*RefusedToolError{},
	}
	for _, st := range servers {
		for _, tool := range st.Tools {
			qualified := QualifiedName(st.Server, tool.Name)
			d, err := Declare(st.Server, tool)
			if err != nil {
				c.refused[qualified] = &RefusedToolError{Tool: qualified, Reason: err}
				continue
			}
			resolved := ResolvedFrom(d, 1)
			c.byQualified[qualified] = resolved
			c.byName[resolved.Name] = append(c.byName[resolved.Name], resolved)
		}
	}
	return c
}

// ResolveTool implements Resolver. "server/tool" always resolves to that
// server's tool; a bare name resolves when exactly one server declares it.
// Version 0 (current) and 1 are the only versions a Catalog holds.
func (c *Catalog) ResolveTool(_ context.Context, name string, version int) (*ResolvedTool, error) {
	if version != 0 && version != 1 {
		return nil, fmt.Errorf("tool %s version %d: %w (a catalog holds version 1 only)", name, version, ErrNotFound)
	}
	if t, ok := c.byQualified[name]; ok {
		clone := *t
		return &clone, nil
	}
	if r, ok := c.refused[name]; ok {
		return nil, r
	}
	candidates := c.byName[name]
	switch len(candidates) {
	case 0:
		if r := c.refusedBare(name); r != nil {
			return nil, r
		}
		return nil, NotFound(name)
	case 1:
		clone := *candidates[0]
		return &clone, nil
	}
	qualified := make([]string, len(candidates))
	for i, t := range candidates {
		qualified[i] = t.QualifiedName()
	}
	slices.Sort(qualified)
	return nil, ambiguous(name, qualified)
}

func (c *Catalog) refusedBare(name string) *RefusedToolError {
	var found *RefusedToolError
	for q, r := range c.refused {
		if q == name || strings.HasSuffix(q, "/"+name) {
			if found != nil {
				return nil // several refused candidates: plain not-found is as precise
			}
			found = r
		}
	}
	return found
}

// Len is the number of usable tools.
func (c *Catalog) Len() int { return len(c.byQualified) }

// Refused lists the declared tools that were not loaded, sorted by name.
func (c *Catalog) Refused() []*RefusedToolError {
	out := make([]*RefusedToolError, 0, len(c.refused))
	for _, r := range c.refused {
		out = append(out, r)
	}
	slices.SortFunc(out, func(a, b *RefusedToolError) int { return strings.Compare(a.Tool, b.Tool) })
	return out
}
