package composition

import (
	"bytes"
	"cmp"
	"encoding/json"
	"slices"

	"github.com/typeward/typeward/internal/schema"
)

// toolRefs lists each resolved tool version once.
func (run *validation) toolRefs() []ToolRef {
	seen := map[ToolRef]bool{}
	refs := []ToolRef{}
	for _, t := range run.resolved {
		if t == nil {
			continue
		}
		ref := ToolRef{Name: t.QualifiedName(), Version: t.Version, Digest: t.Digest}
		if !seen[ref] {
			seen[ref] = true
			refs = append(refs, ref)
		}
	}
	slices.SortFunc(refs, func(a, b ToolRef) int {
		return cmp.Or(cmp.Compare(a.Name, b.Name), cmp.Compare(a.Version, b.Version), cmp.Compare(a.Digest, b.Digest))
	})
	return refs
}

// edgeRefs lists each pair of tools an edge connects once.
func (run *validation) edgeRefs() []EdgeRef {
	index := make(map[string]int, len(run.graph.nodes))
	for i, n := range run.graph.nodes {
		index[n.ID] = i
	}
	seen := map[EdgeRef]bool{}
	refs := []EdgeRef{}
	for _, e := range run.graph.edges {
		src, tgt := run.resolved[index[e.From]], run.resolved[index[e.To]]
		if src == nil || tgt == nil {
			continue
		}
		ref := EdgeRef{From: src.QualifiedName(), To: tgt.QualifiedName(), Optional: e.Optional}
		if e.Each && len(e.Mappings) > 0 {
			ref.Each, _ = e.Mappings[0].Source.EachPrefix() // parse made every source iterate over this one array
		}
		if !seen[ref] {
			seen[ref] = true
			refs = append(refs, ref)
		}
	}
	slices.SortFunc(refs, func(a, b EdgeRef) int {
		if c := cmp.Or(cmp.Compare(a.From, b.From), cmp.Compare(a.To, b.To), cmp.Compare(a.Each, b.Each)); c != 0 || a.Optional == b.Optional {
			return c
		}
		if a.Optional {
			return 1
		}
		return -1
	})
	return refs
}

// digestNode and digestEdge spell the canonical flattened composition:
// members in alphabetical order, so encoding/json writes canonical JSON.
type digestNode struct {
	Digest  string `json:"digest,omitempty"`
	ID      string `json:"id"`
	Tool    string `json:"tool"`
	Version int    `json:"version,omitempty"`
}

type digestEdge struct {
	Each     bool        `json:"each"`
	From     string      `json:"from"`
	Map      [][2]string `json:"map"`
	Optional bool        `json:"optional"`
	To       string      `json:"to"`
}

// digest hashes the canonical flattened composition: nodes by id with the
// tool version and digest each resolved to, edges by their ends with their
// mappings sorted. Document order and spelling (short form, field_mappings)
// do not change it; any schema change of a tool does.
func (run *validation) digest() string {
	nodes := make([]digestNode, len(run.graph.nodes))
	for i, n := range run.graph.nodes {
		nodes[i] = digestNode{ID: n.ID, Tool: n.Tool}
		if t := run.resolved[i]; t != nil {
			nodes[i].Tool, nodes[i].Version, nodes[i].Digest = t.QualifiedName(), t.Version, t.Digest
		}
	}
	slices.SortFunc(nodes, func(a, b digestNode) int { return cmp.Compare(a.ID, b.ID) })
	edges := make([]digestEdge, len(run.graph.edges))
	for i, e := range run.graph.edges {
		pairs := make([][2]string, len(e.Mappings))
		for j, m := range e.Mappings {
			pairs[j] = [2]string{m.Source.String(), m.Target.String()}
		}
		slices.SortFunc(pairs, func(a, b [2]string) int { return cmp.Or(cmp.Compare(a[0], b[0]), cmp.Compare(a[1], b[1])) })
		edges[i] = digestEdge{Each: e.Each, From: e.From, Map: pairs, Optional: e.Optional, To: e.To}
	}
	slices.SortFunc(edges, func(a, b digestEdge) int { return cmp.Or(cmp.Compare(a.From, b.From), cmp.Compare(a.To, b.To)) })
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	// Encoding strings, ints, bools, slices and structs cannot fail.
	_ = enc.Encode(struct {
		Edges []digestEdge `json:"edges"`
		Nodes []digestNode `json:"nodes"`
	}{edges, nodes})
	return schema.Digest(bytes.TrimSuffix(buf.Bytes(), []byte("\n")))
}
