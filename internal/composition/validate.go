package composition

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/typeward/typeward/internal/cache"
	"github.com/typeward/typeward/internal/compat"
	"github.com/typeward/typeward/internal/grading"
	"github.com/typeward/typeward/internal/registry"
	"github.com/typeward/typeward/internal/schema"
	"github.com/typeward/typeward/internal/verdict"
	"github.com/typeward/typeward/verify"
)

// typeChecker is what the Validator needs of compat.Checker.
type typeChecker interface {
	Check(src, tgt compat.Node, opts compat.Options) compat.Result
}

// Validator type-checks compositions against a registry. It is safe for
// concurrent use; the checker's memo and the synthesized schemas are shared
// by every validation.
type Validator struct {
	tools        registry.Resolver
	compositions Compositions // nil: no stored compositions
	checker      typeChecker
	synth        synthesizer
	// Path resolutions depend only on the schema and the path.
	sources  *cache.Cache[sourceKey, resolvedSource]
	targets  *cache.Cache[targetKey, resolvedTarget]
	required *cache.Cache[string, []string] // by digest
}

type resolvedSource struct {
	field   sourceField
	problem *fieldProblem
}

type resolvedTarget struct {
	field   targetField
	problem *fieldProblem
}

func (v *Validator) resolveSource(doc *schema.Schema, p Path, each bool) (sourceField, *fieldProblem) {
	key := sourceKey{doc.Digest, p.String(), each}
	r, ok := v.sources.Get(key)
	if !ok {
		r.field, r.problem = resolveSource(newSchemaView(doc), p, each)
		v.sources.Put(key, r)
	}
	return r.field, r.problem
}

func (v *Validator) resolveTarget(doc *schema.Schema, p Path) (targetField, *fieldProblem) {
	key := targetKey{doc.Digest, p.String()}
	r, ok := v.targets.Get(key)
	if !ok {
		r.field, r.problem = resolveTarget(newSchemaView(doc), p)
		v.targets.Put(key, r)
	}
	return r.field, r.problem
}

func (v *Validator) requiredInputs(doc *schema.Schema) []string {
	names, ok := v.required.Get(doc.Digest)
	if !ok {
		names = requiredInputs(newSchemaView(doc))
		v.required.Put(doc.Digest, names)
	}
	return names
}

// NewValidator returns a Validator reading tools from tools and stored
// compositions from compositions (nil when there are none). A nil checker
// gets a fresh one.
func NewValidator(tools registry.Resolver, compositions Compositions, checker *compat.Checker) *Validator {
	if checker == nil {
		checker = compat.NewChecker()
	}
	return &Validator{tools: tools, compositions: compositions, checker: checker, synth: newSynthesizer(),
		sources: newPathCache[sourceKey, resolvedSource](pathCacheBytes), targets: newPathCache[targetKey, resolvedTarget](pathCacheBytes),
		required: newPathCache[string, []string](pathCacheBytes)}
}

// Result is the outcome of one validation: every issue, and what an access
// token for the composition names.
type Result struct {
	// Issues in walk order: node problems, then for each node in
	// topological order its unbound inputs and its outgoing edges, each
	// edge's mappings in document order.
	Issues []verdict.Issue
	Tools  []ToolRef // sorted by name, then version
	Edges  []EdgeRef // sorted, one per pair of tools
	// Digest is "sha256:…" over the canonical flattened composition and
	// the digests of its tools.
	Digest string
	// Compositions are the stored definitions flattened into it, by name
	// with their digests: what a recorded validation depends on besides
	// its own definition and its tools.
	Compositions []registry.CompositionRef
	// places holds, by index into Issues, where each issue policy grades
	// stands (see Under).
	places map[int]grading.Place
}

// ToolRef is a validated tool version, and EdgeRef an edge between two
// tools (with Each, the source array a per-item edge iterates over, and
// Optional, whether the source may not run): the very types the token's
// authorization detail carries, so the two cannot drift apart.
type (
	ToolRef = verify.ToolRef
	EdgeRef = verify.Edge
)

// Valid reports whether no issue is an ERROR.
func (r *Result) Valid() bool { return !grading.Refuses(r.Issues) }

// Under is the result graded for validation mode m: the issues policy
// grades get m's severity, the others keep theirs. Validate grades lenient;
// the result it returns is never changed.
func (r *Result) Under(m grading.Mode) *Result {
	if m == grading.Lenient || len(r.places) == 0 {
		return r
	}
	out := *r
	out.Issues = slices.Clone(r.Issues)
	for i, at := range r.places {
		is := &out.Issues[i]
		is.Severity = grading.Severity(m, is.Code, is.Verdict, at)
	}
	return &out
}

// Validate checks a parsed composition. Problems of the composition are
// issues in the Result; an error means the registry or the composition
// store failed, and says nothing about the composition.
func (v *Validator) Validate(ctx context.Context, c *Composition) (*Result, error) {
	g, err := flatten(ctx, v.compositions, c)
	if err != nil {
		return nil, err
	}
	run := &validation{Validator: v, graph: g, resolved: make([]*registry.ResolvedTool, len(g.nodes))}
	run.issues = append(run.issues, g.issues...)
	if err := run.resolveTools(ctx); err != nil {
		return nil, err
	}
	order, cycles := walkOrder(g.nodes, g.edges)
	for _, cycle := range cycles {
		run.issues = append(run.issues, errorIssue(verdict.CodeCycle, "the edges form a cycle: "+cycle))
	}
	if err := run.walk(ctx, order); err != nil {
		return nil, err
	}
	return &Result{Issues: run.issues, Tools: run.toolRefs(), Edges: run.edgeRefs(), Digest: run.digest(), places: run.places,
		Compositions: registry.NormalizeCompositionRefs(g.refs)}, nil
}

// validation is the state of one Validate call.
type validation struct {
	*Validator
	graph    flatGraph
	resolved []*registry.ResolvedTool // by node index; nil when unresolved
	issues   []verdict.Issue
	places   map[int]grading.Place // the issues policy grades, by index
}

// graded adds an issue whose severity is policy's: a compatibility finding
// or a value a path may not deliver. It is graded lenient here; Result.Under
// grades it again for another mode.
func (run *validation) graded(is verdict.Issue, at grading.Place) {
	is.Severity = grading.Severity(grading.Lenient, is.Code, is.Verdict, at)
	if run.places == nil {
		run.places = map[int]grading.Place{}
	}
	run.places[len(run.issues)] = at
	run.issues = append(run.issues, is)
}

func (run *validation) resolveTools(ctx context.Context) error {
	for i, n := range run.graph.nodes {
		t, err := run.tools.ResolveTool(ctx, n.Tool, n.Version)
		var code string
		switch {
		case err == nil:
			run.resolved[i] = t
			continue
		case errors.Is(err, registry.ErrAmbiguous):
			code = verdict.CodeAmbiguousTool
		case errors.Is(err, registry.ErrNotFound):
			code = verdict.CodeUnknownTool
		default:
			return fmt.Errorf("resolving tool %s of node %s: %w", n.Tool, n.ID, err)
		}
		is := errorIssue(code, fmt.Sprintf("node %s: %v", n.ID, err))
		is.TargetTool = n.Tool
		run.issues = append(run.issues, is)
	}
	return nil
}

// walk visits the nodes in order: first the required inputs nothing feeds,
// then every outgoing edge. It stops when ctx is done: a large composition
// is not worth finishing for a client that left.
func (run *validation) walk(ctx context.Context, order []int) error {
	index := make(map[string]int, len(run.graph.nodes))
	for i, n := range run.graph.nodes {
		index[n.ID] = i
	}
	outgoing := make([][]Edge, len(run.graph.nodes))
	// fed: the top-level input fields each node receives, true when an edge
	// that always runs feeds it, false when only optional edges do.
	fed := make([]map[string]bool, len(run.graph.nodes))
	for _, e := range run.graph.edges {
		from, to := index[e.From], index[e.To]
		outgoing[from] = append(outgoing[from], e)
		if fed[to] == nil {
			fed[to] = map[string]bool{}
		}
		for _, m := range e.Mappings {
			name := m.Target.First()
			fed[to][name] = fed[to][name] || !e.Optional
		}
	}
	for _, n := range order {
		if err := ctx.Err(); err != nil {
			return err
		}
		// A node no edge feeds is an entry: the caller supplies its input.
		if fed[n] != nil && run.resolved[n] != nil {
			run.checkUnbound(n, fed[n])
		}
		for _, e := range outgoing[n] {
			src, tgt := run.resolved[index[e.From]], run.resolved[index[e.To]]
			if src == nil || tgt == nil {
				continue // the unresolved tool was reported
			}
			for _, m := range e.Mappings {
				run.checkMapping(e, m, src, tgt)
			}
		}
	}
	return nil
}

// checkMapping checks one mapping on its own: fan-out and fan-in are just
// several mappings, each proven independently.
func (run *validation) checkMapping(e Edge, m Mapping, src, tgt *registry.ResolvedTool) {
	label := func(is verdict.Issue) verdict.Issue {
		is.SourceTool, is.TargetTool = src.QualifiedName(), tgt.QualifiedName()
		is.Edge, is.FieldPath = e.Label(), m.Label()
		return is
	}
	add := func(is verdict.Issue) { run.issues = append(run.issues, label(is)) }
	at := grading.Place{Optional: e.Optional}
	target, tprob := run.Validator.resolveTarget(tgt.Input, m.Target)
	if tprob != nil {
		add(problemIssue(tprob, false))
	}
	if src.Output == nil {
		add(warningIssue(verdict.CodeUntypedSource, fmt.Sprintf("%s declares no outputSchema: %s is unchecked", src.QualifiedName(), m.Source)))
		return
	}
	source, sprob := run.Validator.resolveSource(src.Output, m.Source, e.Each)
	if sprob != nil {
		add(problemIssue(sprob, true))
	}
	if tprob != nil || sprob != nil {
		return
	}
	for _, h := range []*hazard{source.missing, source.null, source.undeclared} {
		// An absent source leaves an optional target field unset, which is
		// fine; a hole inside a projected array is not, nor is a value the
		// output schema does not describe.
		undeclared := h != nil && h.code == verdict.CodeUndeclaredProperty
		if h == nil || !(target.required || h.inElement || undeclared) {
			continue
		}
		msg := fmt.Sprintf("%s in the source output, but the target input requires %s", h.reason, m.Target)
		switch {
		case undeclared:
			msg = fmt.Sprintf("%s: there it may have any value, unchecked against %s", h.reason, m.Target)
		case h.inElement:
			msg = fmt.Sprintf("%s, so an element of %s may have no value", h.reason, m.Source)
		}
		is := verdict.Issue{Code: h.code, SourcePointer: h.pointer, Message: msg}
		if undeclared {
			run.proveUndeclared(&is, src.Output, m.Source, e.Each, tgt.Input, target.ptrs)
		} else {
			run.provePath(&is, src.Output, m.Source, strictFrom(m.Source, e.Each, target.required))
		}
		run.graded(label(is), at)
	}
	node, err := run.synth.node(src.Output, source)
	if err != nil {
		add(verdict.Issue{Severity: verdict.SeverityWarning, Code: verdict.CodeCannotProve,
			Message: fmt.Sprintf("%s cannot be described as one schema: %v", m.Source, err)})
		return
	}
	opts := compat.Options{SourceLabel: m.Source.String(), TargetLabel: m.Target.String()}
	for _, ptr := range target.ptrs {
		for _, is := range run.checker.Check(node, compat.Node{Schema: tgt.Input, Pointer: ptr}, opts).Issues {
			if node.Schema != src.Output {
				is.SourcePointer = originalPointer(src.Output, source, is.SourcePointer)
				if lost := source.lost(); lost != "" && is.Verdict == verdict.Incompatible {
					is = unprovenProjection(is, lost)
				}
			}
			run.graded(label(is), at)
		}
	}
}

func problemIssue(p *fieldProblem, source bool) verdict.Issue {
	is := verdict.Issue{Severity: verdict.SeverityError, Code: p.code, Message: p.msg}
	if p.code == verdict.CodeCannotProve {
		is.Severity = verdict.SeverityWarning
	}
	if source {
		is.SourcePointer = p.pointer
	} else {
		is.TargetPointer = p.pointer
	}
	return is
}
