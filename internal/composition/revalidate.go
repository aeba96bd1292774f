package composition

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/typeward/typeward/internal/registry"
	"github.com/typeward/typeward/internal/verdict"
)

// Revalidation is what Revalidate did with one stale composition.
type Revalidation struct {
	Name   string
	Valid  bool
	Issues []verdict.Issue
	// Skipped is set when the definition changed while it was being
	// validated: the result was not recorded and the composition stays
	// stale for the next round.
	Skipped bool
}

// Revalidate re-runs the validator on every stale stored composition (a
// tool it used has a new version or is gone, or it was never validated)
// against the current tool versions, and records each result with the
// versions it used. v must resolve tools from store (or a cache over it)
// and flatten sub-compositions from store.
func Revalidate(ctx context.Context, store registry.Store, v *Validator) ([]Revalidation, error) {
	stale, err := store.StaleCompositions(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]Revalidation, 0, len(stale))
	for _, c := range stale {
		r, err := revalidateOne(ctx, store, v, c)
		if err != nil {
			return out, fmt.Errorf("revalidate %s: %w", c.Name, err)
		}
		out = append(out, r)
	}
	return out, nil
}

func revalidateOne(ctx context.Context, store registry.Store, v *Validator, c registry.Composition) (Revalidation, error) {
	r := Revalidation{Name: c.Name}
	var refs []registry.ToolRef
	parsed, err := Parse(c.Definition)
	if err != nil {
		// Stored before the parser grew stricter: record why it is unusable.
		r.Issues = []verdict.Issue{{Severity: verdict.SeverityError, Code: verdict.CodeInvalidComposition,
			Message: fmt.Sprintf("stored composition %s no longer parses: %v", c.Name, err)}}
	} else {
		result, err := v.Validate(ctx, parsed)
		if err != nil {
			return r, err
		}
		r.Issues = result.Issues
		if refs, err = registryRefs(ctx, store, parsed, result.Tools); err != nil {
			return r, err
		}
	}
	r.Valid = (&Result{Issues: r.Issues}).Valid()
	issues, err := json.Marshal(nonNil(r.Issues))
	if err != nil {
		return r, err
	}
	err = store.RecordValidation(ctx, c.Name, registry.Validation{DefinitionDigest: c.Digest, Valid: r.Valid, Issues: issues, Tools: refs})
	if errors.Is(err, registry.ErrConflict) {
		r.Skipped = true
		return r, nil
	}
	return r, err
}

// registryRefs converts the validated versions for the store, marking
// the ones the composition pinned: newer versions do not make those
// stale. A tool is pinned when its nodes name a version and none takes the
// current one; a version older than the current one can only have been
// named (in a sub-composition, say) and is pinned too.
func registryRefs(ctx context.Context, store registry.Store, c *Composition, tools []ToolRef) ([]registry.ToolRef, error) {
	named := map[string]bool{}    // "server/tool@version" some node names
	floating := map[string]bool{} // "server/tool" some node takes at its current version
	for _, n := range c.Nodes {
		if n.Tool == "" {
			continue
		}
		v, err := store.ToolVersion(ctx, n.Tool, n.Version)
		if err != nil {
			continue // the validator reported it
		}
		if n.Version == 0 {
			floating[v.QualifiedName()] = true
		} else {
			named[fmt.Sprintf("%s@%d", v.QualifiedName(), v.Version)] = true
		}
	}
	refs := make([]registry.ToolRef, 0, len(tools))
	for _, t := range tools {
		server, name, _ := registry.SplitName(t.Name)
		ref := registry.ToolRef{Server: server, Name: name, Version: t.Version, Digest: t.Digest}
		current, err := store.ToolVersion(ctx, t.Name, 0)
		switch {
		case errors.Is(err, registry.ErrNotFound):
			// Removed since: stale again, which the next round sees.
		case err != nil:
			return nil, err
		default:
			older := t.Version < current.Version
			ref.Pinned = !floating[t.Name] && (older || named[fmt.Sprintf("%s@%d", t.Name, t.Version)])
		}
		refs = append(refs, ref)
	}
	return refs, nil
}

func nonNil(issues []verdict.Issue) []verdict.Issue {
	if issues == nil {
		return []verdict.Issue{}
	}
	return issues
}
