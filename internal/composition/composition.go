// Package composition models a composition — a DAG of MCP tool calls whose
// edges map output fields of one tool onto input fields of the next — parses
// it strictly, flattens references to stored compositions, and validates
// every mapped field with the structural type checker.
package composition

// Bounds on a composition. It arrives in a token request, so every
// dimension that drives work is capped; exceeding one is a ParseError, or an
// ERROR issue when only flattening reveals it.
const (
	MaxDocumentBytes  = 4 << 20 // a 10,000-edge composition is about 1 MiB
	MaxDocumentDepth  = 32
	MaxNodes          = 10_000 // also bounds a flattened composition
	MaxEdges          = 10_000
	MaxMappingsOfEdge = 256
	MaxPathBytes      = 512
	MaxPathSteps      = 32
	MaxNameBytes      = 256 // node ids, tool and composition names
	MaxNestingDepth   = 16  // compositions referencing compositions
)

// Composition is a parsed composition document.
type Composition struct {
	Nodes []Node
	Edges []Edge
	// Short is set when the document had no "nodes": the edges named tools
	// and the nodes were derived from them.
	Short bool
}

// Node is one tool invocation, or a reference to a stored composition that
// is flattened before validation. Exactly one of Tool and Composition is set.
type Node struct {
	ID          string
	Tool        string // "tool" or "server/tool"
	Version     int    // 0: the current version
	Composition string
}

// Edge feeds fields of From's output into To's input.
type Edge struct {
	From, To string // node ids
	Mappings []Mapping
	// Each runs To once per element of the first [] of each source path.
	Each bool
	// Optional marks a conditional edge: From may not run, so absent or null
	// values are WARNINGs rather than ERRORs.
	Optional bool
}

// Label is "from->to", the edge's name in issues.
func (e Edge) Label() string { return e.From + "->" + e.To }

// Mapping feeds one source path into one target path.
type Mapping struct {
	Source Path
	Target Path
}

// Label is "source->target", the field path of issues.
func (m Mapping) Label() string { return m.Source.String() + "->" + m.Target.String() }
