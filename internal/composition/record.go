package composition

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/typeward/typeward/internal/registry"
	"github.com/typeward/typeward/internal/verdict"
)

// Recorded is the outcome of validating and recording a stored
// composition: what the validator found, and the composition with the
// validation as the store now holds it.
type Recorded struct {
	Result      *Result
	Composition registry.Composition
}

// Record validates a stored composition against the registry as it is
// now and records the result with the tool versions it used, pinned where
// the composition names the version (newer versions of those do not make
// it stale). It is the one way a validation is recorded: the admin API and
// Revalidate both call it. A definition that no longer parses is recorded
// as invalid, with why. registry.ErrConflict means the definition changed
// while it was validated and nothing was recorded.
func Record(ctx context.Context, store registry.Store, v Validates, c registry.Composition) (*Recorded, error) {
	res := &Result{Tools: []ToolRef{}, Edges: []EdgeRef{}, Compositions: []registry.CompositionRef{}}
	var refs []registry.ToolRef
	parsed, validated, err := Validate(ctx, v, c.Definition, nil)
	var malformed *ParseError
	switch {
	case errors.As(err, &malformed):
		// Stored before the parser grew stricter: record why it is unusable.
		res.Issues = []verdict.Issue{{Severity: verdict.SeverityError, Code: verdict.CodeInvalidComposition,
			Message: fmt.Sprintf("stored composition %s no longer parses: %v", c.Name, err)}}
	case err != nil:
		return nil, err
	default:
		res = validated
		if refs, err = registryRefs(ctx, store, parsed, res.Tools); err != nil {
			return nil, err
		}
	}
	issues, err := json.Marshal(nonNil(res.Issues))
	if err != nil {
		return nil, err
	}
	err = store.RecordValidation(ctx, c.Name, registry.Validation{DefinitionDigest: c.Digest, Valid: res.Valid(), Issues: issues, Tools: refs,
		Compositions: res.Compositions})
	if err != nil {
		return nil, err
	}
	// Read back what the store recorded (its clock, its normal form).
	stored, err := store.Composition(ctx, c.Name)
	if err != nil {
		return nil, err
	}
	if stored.Digest != c.Digest {
		return nil, fmt.Errorf("composition %s changed after it was validated: %w", c.Name, registry.ErrConflict)
	}
	return &Recorded{Result: res, Composition: stored}, nil
}

// registryRefs converts the validated versions for the store, marking
// the ones the composition pinned: newer versions do not make those
// stale. A tool is pinned when its nodes name a version and none takes the
// current one; a version older than the current one can only have been
// named (in a sub-composition, say) and is pinned too. Tools compare by
// qualified name: a/search@1 pins a/search, never b/search.
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
