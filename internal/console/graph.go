package console

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/typeward/typeward/internal/approval"
	"github.com/typeward/typeward/internal/composition"
	"github.com/typeward/typeward/internal/grading"
	"github.com/typeward/typeward/internal/registry"
	"github.com/typeward/typeward/internal/verdict"
)

// Layout of a drawn composition, in SVG user units.
const (
	nodeW, nodeH = 210, 64
	colGap       = 120
	rowGap       = 46
	margin       = 20
	maxDrawn     = 60 // nodes drawn; a larger composition is listed instead
)

// graph is a composition as the templates draw it. Every string in it
// may come from a client or a tool declaration: html/template escapes it.
type graph struct {
	Width, Height int
	Nodes         []gnode
	Edges         []gedge
	Issues        []verdict.Issue // every issue, warnings included
	Digest        string
	Truncated     int // nodes not drawn
	Problem       string
}

type gnode struct {
	X, Y         int
	ID, Label    string
	Version      string
	Effect       string // read-only, mutating, destructive, composition
	TextX, Mid   int
	Line2, Line3 int
}

type gedge struct {
	X1, Y1, X2, Y2 int
	LX, LY         int
	Label          string // the field mappings
	Verdict        string // ok, warning, error
	Title          string
}

// drawer builds graphs with the registry and the validator.
type drawer struct {
	validator composition.Validates
	requests  Requests
	registry  registry.Store
}

// fromDetails draws the composition an authorization_details parameter
// names, validated now against the registry and graded under the
// requesting client's validation mode.
func (d *drawer) fromDetails(ctx context.Context, details string, mode grading.Mode) *graph {
	doc, err := d.requests.RequestedComposition(ctx, details)
	if err != nil {
		return &graph{Problem: err.Error()}
	}
	return d.fromDocument(ctx, doc, mode)
}

// fromDocument draws a composition, its issues graded under mode.
func (d *drawer) fromDocument(ctx context.Context, doc json.RawMessage, mode grading.Mode) *graph {
	c, res, err := composition.Validate(ctx, d.validator, doc, nil)
	var malformed *composition.ParseError
	switch {
	case errors.As(err, &malformed):
		return &graph{Problem: err.Error()}
	case err != nil:
		return &graph{Problem: "validation failed: " + err.Error()}
	}
	return d.layout(ctx, c, res.Under(mode))
}

// layout places each node in the column of its longest path from a
// source, and colours each edge by the worst issue on it.
func (d *drawer) layout(ctx context.Context, c *composition.Composition, res *composition.Result) *graph {
	g := &graph{Issues: res.Issues, Digest: res.Digest}
	nodes := c.Nodes
	if len(nodes) > maxDrawn {
		g.Truncated, nodes = len(nodes)-maxDrawn, nodes[:maxDrawn]
	}
	index := map[string]int{}
	for i, n := range nodes {
		index[n.ID] = i
	}
	col := make([]int, len(nodes))
	for range len(nodes) { // relax: at most len(nodes) rounds in a DAG
		changed := false
		for _, e := range c.Edges {
			f, okf := index[e.From]
			t, okt := index[e.To]
			if okf && okt && col[t] < col[f]+1 && col[f]+1 < len(nodes) {
				col[t], changed = col[f]+1, true
			}
		}
		if !changed {
			break
		}
	}
	rows := map[int]int{}
	maxCol, maxRow := 0, 0
	for i, n := range nodes {
		r := rows[col[i]]
		rows[col[i]]++
		x, y := margin+col[i]*(nodeW+colGap), margin+r*(nodeH+rowGap)
		gn := gnode{X: x, Y: y, ID: n.ID, TextX: x + 10, Mid: y + 22, Line2: y + 40, Line3: y + 56}
		if n.Composition != "" {
			gn.Label, gn.Effect = "composition "+n.Composition, "composition"
		} else {
			gn.Label = n.Tool
			name, version := d.version(res, n)
			gn.Version = version
			gn.Effect = string(d.effect(ctx, name))
		}
		g.Nodes = append(g.Nodes, gn)
		maxCol, maxRow = max(maxCol, col[i]), max(maxRow, r)
	}
	for _, e := range c.Edges {
		f, okf := index[e.From]
		t, okt := index[e.To]
		if !okf || !okt {
			continue
		}
		a, b := g.Nodes[f], g.Nodes[t]
		ge := gedge{X1: a.X + nodeW, Y1: a.Y + nodeH/2, X2: b.X, Y2: b.Y + nodeH/2, Verdict: "ok"}
		ge.LX, ge.LY = (ge.X1+ge.X2)/2, (ge.Y1+ge.Y2)/2-6
		var maps []string
		for _, m := range e.Mappings {
			maps = append(maps, m.Label())
		}
		ge.Label = strings.Join(maps, ", ")
		if len(ge.Label) > 60 {
			ge.Label = ge.Label[:57] + "..."
		}
		var msgs []string
		for _, is := range res.Issues {
			if is.Edge != e.Label() {
				continue
			}
			msgs = append(msgs, is.Message)
			if is.Severity == verdict.SeverityError {
				ge.Verdict = "error"
			} else if ge.Verdict == "ok" {
				ge.Verdict = "warning"
			}
		}
		ge.Title = e.Label() + ": " + ge.Verdict
		if len(msgs) > 0 {
			ge.Title += " — " + strings.Join(msgs, "; ")
		}
		g.Edges = append(g.Edges, ge)
	}
	g.Width = 2*margin + (maxCol+1)*nodeW + maxCol*colGap
	g.Height = 2*margin + (maxRow+1)*nodeH + maxRow*rowGap
	return g
}

// version finds the validated version of a node's tool: the tool of
// that exact name ("server/tool", or a bare name the registry has
// without a server), else the one server's tool a bare name resolved
// to. Never another server's tool of the same bare name, whose effect
// is not this node's. Of the versions validated, a pinned node's is
// that version and an unpinned node's the newest.
func (d *drawer) version(res *composition.Result, n composition.Node) (string, string) {
	pick := func(match func(composition.ToolRef) bool) []composition.ToolRef {
		var found []composition.ToolRef
		for _, t := range res.Tools {
			if match(t) && (n.Version == 0 || t.Version == n.Version) {
				found = append(found, t)
			}
		}
		return found
	}
	found := pick(func(t composition.ToolRef) bool { return t.Name == n.Tool })
	if len(found) == 0 && !strings.Contains(n.Tool, "/") {
		found = pick(func(t composition.ToolRef) bool { return strings.HasSuffix(t.Name, "/"+n.Tool) })
		for _, t := range found {
			if t.Name != found[0].Name { // more than one server's: not this node's to guess
				return n.Tool, "ambiguous"
			}
		}
	}
	if len(found) == 0 {
		return n.Tool, "unresolved"
	}
	sort.Slice(found, func(i, j int) bool { return found[i].Version > found[j].Version })
	return found[0].Name, fmt.Sprintf("v%d", found[0].Version)
}

func (d *drawer) effect(ctx context.Context, name string) approval.Effect {
	rec, err := d.registry.Tool(ctx, name)
	if errors.Is(err, registry.ErrNotFound) || err != nil {
		return approval.Destructive
	}
	return approval.EffectOf(rec.Declaration.Annotations)
}
