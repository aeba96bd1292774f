package composition

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/typeward/typeward/internal/registry"
	"github.com/typeward/typeward/internal/verdict"
)

// Compositions gives the definitions of stored compositions by name; a
// missing one is registry.ErrNotFound (wrapped). The registry Store
// satisfies it.
type Compositions interface {
	Definition(ctx context.Context, name string) (json.RawMessage, error)
}

// CompositionsFunc adapts a function to Compositions, e.g. a Store's
// Composition lookup returning its Definition.
type CompositionsFunc func(ctx context.Context, name string) (json.RawMessage, error)

// Definition calls f.
func (f CompositionsFunc) Definition(ctx context.Context, name string) (json.RawMessage, error) {
	return f(ctx, name)
}

// flatNode is a tool invocation of a flattened composition.
type flatNode struct {
	ID      string // "s.q" for node q of the composition node s references
	Tool    string
	Version int
}

// flatGraph is a composition with every composition reference replaced by
// the nodes and edges of the stored composition.
type flatGraph struct {
	nodes  []flatNode
	edges  []Edge
	issues []verdict.Issue
	// refs are the stored definitions read, by name, with their digests
	// ("" for a name with none stored): what the result depends on
	// besides the document and the tools.
	refs []registry.CompositionRef
}

// subgraph is what a reference to a stored composition became: its entry
// nodes (no incoming edge) and exit nodes (no outgoing edge), which an edge
// to or from the reference connects to. ok is false when it failed, and
// edges touching it are then not checked.
type subgraph struct {
	entries, exits []string
	ok             bool
}

type flattener struct {
	store Compositions
	graph flatGraph
	ids   map[string]bool
	full  bool // MaxNodes reached: stop expanding, it was reported
}

// flatten expands composition references depth first, in document order,
// so the flattened node order is deterministic.
func flatten(ctx context.Context, store Compositions, c *Composition) (flatGraph, error) {
	f := &flattener{store: store, ids: map[string]bool{}}
	if _, err := f.expand(ctx, c, "", nil); err != nil {
		return flatGraph{}, err
	}
	return f.graph, nil
}

func (f *flattener) expand(ctx context.Context, c *Composition, prefix string, stack []string) (subgraph, error) {
	subs := map[string]subgraph{}
	local := map[string]bool{} // ids of this level, qualified
	for _, n := range c.Nodes {
		id := prefix + n.ID
		if n.Tool != "" {
			f.addNode(flatNode{ID: id, Tool: n.Tool, Version: n.Version})
			local[id] = true
			continue
		}
		sub, err := f.reference(ctx, n, id, stack)
		if err != nil {
			return subgraph{}, err
		}
		subs[n.ID] = sub
	}
	incoming, outgoing := map[string]bool{}, map[string]bool{}
	for _, e := range c.Edges {
		from, okFrom := f.endpoint(e, e.From, prefix, subs, true)
		to, okTo := f.endpoint(e, e.To, prefix, subs, false)
		if !okFrom || !okTo {
			continue
		}
		outgoing[from], incoming[to] = true, true
		flat := e
		flat.From, flat.To = from, to
		f.graph.edges = append(f.graph.edges, flat)
	}
	// The ends of this level: its tool nodes and the ends of the
	// compositions it references, less those an edge here connects.
	sg := subgraph{ok: true}
	for _, n := range c.Nodes {
		entries, exits := []string{prefix + n.ID}, []string{prefix + n.ID}
		if n.Tool == "" {
			entries, exits = subs[n.ID].entries, subs[n.ID].exits
		}
		for _, id := range entries {
			if !incoming[id] {
				sg.entries = append(sg.entries, id)
			}
		}
		for _, id := range exits {
			if !outgoing[id] {
				sg.exits = append(sg.exits, id)
			}
		}
	}
	return sg, nil
}

// reference flattens the stored composition a node references.
func (f *flattener) reference(ctx context.Context, n Node, id string, stack []string) (subgraph, error) {
	for _, name := range stack {
		if name == n.Composition {
			cycle := strings.Join(append(append([]string{}, stack...), n.Composition), " -> ")
			f.issue(errorIssue(verdict.CodeCompositionCycle, fmt.Sprintf("node %s: compositions reference each other in a cycle: %s", id, cycle)))
			return subgraph{}, nil
		}
	}
	if len(stack) >= MaxNestingDepth {
		f.issue(errorIssue(verdict.CodeInvalidComposition, fmt.Sprintf("node %s: compositions nest more than %d deep", id, MaxNestingDepth)))
		return subgraph{}, nil
	}
	if f.store == nil {
		f.issue(errorIssue(verdict.CodeUnknownComposition, fmt.Sprintf("node %s: composition %q: no stored compositions here", id, n.Composition)))
		return subgraph{}, nil
	}
	def, err := f.store.Definition(ctx, n.Composition)
	if errors.Is(err, registry.ErrNotFound) {
		f.graph.refs = append(f.graph.refs, registry.CompositionRef{Name: n.Composition})
		f.issue(errorIssue(verdict.CodeUnknownComposition, fmt.Sprintf("node %s: no stored composition %q", id, n.Composition)))
		return subgraph{}, nil
	}
	if err != nil {
		return subgraph{}, fmt.Errorf("composition %q: %w", n.Composition, err)
	}
	digest, _ := registry.CompositionDigest(n.Composition, def) // "" if it no longer digests: never equal to a stored one
	f.graph.refs = append(f.graph.refs, registry.CompositionRef{Name: n.Composition, Digest: digest})
	sub, err := Parse(def)
	if err != nil {
		f.issue(errorIssue(verdict.CodeInvalidComposition, fmt.Sprintf("node %s: stored composition %q: %v", id, n.Composition, err)))
		return subgraph{}, nil
	}
	return f.expand(ctx, sub, id+".", append(stack, n.Composition))
}

func (f *flattener) addNode(n flatNode) {
	if f.full {
		return
	}
	if len(f.graph.nodes) == MaxNodes {
		f.full = true
		f.issue(errorIssue(verdict.CodeInvalidComposition, fmt.Sprintf("flattened composition has more than %d nodes", MaxNodes)))
		return
	}
	if f.ids[n.ID] {
		f.issue(errorIssue(verdict.CodeInvalidComposition, fmt.Sprintf("node id %s is used twice once compositions are flattened; rename one", n.ID)))
		return
	}
	f.ids[n.ID] = true
	f.graph.nodes = append(f.graph.nodes, n)
}

// endpoint resolves one end of an edge to a flattened node id. A reference
// to a composition node means its only exit (as a source) or only entry (as
// a target); "s.q" names node q inside it.
func (f *flattener) endpoint(e Edge, id, prefix string, subs map[string]subgraph, source bool) (string, bool) {
	if sub, isRef := subs[id]; isRef {
		if !sub.ok {
			return "", false // its failure was reported
		}
		ends, role := sub.exits, "exit"
		if !source {
			ends, role = sub.entries, "entry"
		}
		if len(ends) != 1 {
			f.issue(errorIssue(verdict.CodeInvalidComposition, fmt.Sprintf("edge %s: composition node %s has %d %s nodes (%s); name one as %s.<node>", e.Label(), prefix+id, len(ends), role, strings.Join(ends, ", "), id)))
			return "", false
		}
		return ends[0], true
	}
	if f.ids[prefix+id] {
		return prefix + id, true
	}
	if head, _, nested := strings.Cut(id, "."); nested {
		if sub, isRef := subs[head]; isRef && !sub.ok {
			return "", false
		}
	}
	is := errorIssue(verdict.CodeUnknownTool, fmt.Sprintf("edge %s: no node %q", e.Label(), id))
	is.Edge = e.Label()
	f.issue(is)
	return "", false
}

func (f *flattener) issue(is verdict.Issue) { f.graph.issues = append(f.graph.issues, is) }
