package memory

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/typeward/typeward/internal/registry"
)

// PutComposition implements registry.Store.
func (r *Registry) PutComposition(_ context.Context, name string, definition json.RawMessage) (registry.Composition, error) {
	digest, err := registry.CompositionDigest(name, definition)
	if err != nil {
		return registry.Composition{}, err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	c, ok := r.compositions[name]
	if ok && c.Digest == digest {
		return cloneComposition(c), nil
	}
	c = registry.Composition{Name: name, Definition: slices.Clone(definition), Digest: digest, UpdatedAt: r.now(), Validation: c.Validation}
	r.compositions[name] = c
	return cloneComposition(c), nil
}

// Composition implements registry.Store.
func (r *Registry) Composition(_ context.Context, name string) (registry.Composition, error) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	c, ok := r.compositions[name]
	if !ok {
		return registry.Composition{}, compositionNotFound(name)
	}
	return cloneComposition(c), nil
}

// ListCompositions implements registry.Store.
func (r *Registry) ListCompositions(context.Context) ([]registry.Composition, error) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return r.sortedCompositions(func(registry.Composition) bool { return true }), nil
}

// RecordValidation implements registry.Store.
func (r *Registry) RecordValidation(_ context.Context, name string, v registry.Validation) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	c, ok := r.compositions[name]
	if !ok {
		return compositionNotFound(name)
	}
	if v.DefinitionDigest != c.Digest {
		return fmt.Errorf("composition %s: validated definition %s is not the stored one %s: %w", name, v.DefinitionDigest, c.Digest, registry.ErrConflict)
	}
	v.ValidatedAt = r.now()
	v.Issues = slices.Clone(v.Issues)
	v.Tools = registry.NormalizeRefs(v.Tools)
	v.Compositions = registry.NormalizeCompositionRefs(v.Compositions)
	c.Validation = &v
	r.compositions[name] = c
	return nil
}

// StaleCompositions implements registry.Store.
func (r *Registry) StaleCompositions(context.Context) ([]registry.Composition, error) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return r.sortedCompositions(func(c registry.Composition) bool { return registry.IsStale(c, r.toolState, r.compositionState) }), nil
}

// Freshness implements registry.Store.
func (r *Registry) Freshness(context.Context) ([]registry.Freshness, error) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	out := []registry.Freshness{}
	for _, c := range r.sortedCompositions(func(registry.Composition) bool { return true }) {
		out = append(out, registry.FreshnessOf(c, r.toolState, r.compositionState))
	}
	return out, nil
}

// CompositionFreshness implements registry.Store.
func (r *Registry) CompositionFreshness(_ context.Context, name string) (registry.Freshness, error) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	c, ok := r.compositions[name]
	if !ok {
		return registry.Freshness{}, compositionNotFound(name)
	}
	return registry.FreshnessOf(c, r.toolState, r.compositionState), nil
}

// toolState reports a tool's current version and when its schemas last
// changed (its current version's creation, or its removal); r.mu is held.
func (r *Registry) toolState(ref registry.ToolRef) registry.ToolState {
	t := r.tools[toolKey{ref.Server, ref.Name}]
	switch {
	case t == nil:
		return registry.ToolState{}
	case !t.removedAt.IsZero():
		return registry.ToolState{ChangedAt: t.removedAt}
	}
	return registry.ToolState{Version: t.rec.Version, ChangedAt: t.versions[len(t.versions)-1].CreatedAt}
}

// compositionState reports a stored composition's definition digest and
// its last change; r.mu is held.
func (r *Registry) compositionState(name string) registry.CompositionState {
	c, ok := r.compositions[name]
	if !ok {
		return registry.CompositionState{}
	}
	return registry.CompositionState{Digest: c.Digest, UpdatedAt: c.UpdatedAt}
}

func (r *Registry) sortedCompositions(keep func(registry.Composition) bool) []registry.Composition {
	out := []registry.Composition{}
	for _, c := range r.compositions {
		if keep(c) {
			out = append(out, cloneComposition(c))
		}
	}
	slices.SortFunc(out, func(a, b registry.Composition) int { return strings.Compare(a.Name, b.Name) })
	return out
}

func cloneComposition(c registry.Composition) registry.Composition {
	c.Definition = slices.Clone(c.Definition)
	if c.Validation != nil {
		v := *c.Validation
		v.Issues = slices.Clone(v.Issues)
		v.Tools = slices.Clone(v.Tools)
		v.Compositions = slices.Clone(v.Compositions)
		c.Validation = &v
	}
	return c
}

func compositionNotFound(name string) error {
	return fmt.Errorf("composition %s: %w", name, registry.ErrNotFound)
}

// Definition implements registry.Store.
func (r *Registry) Definition(ctx context.Context, name string) (json.RawMessage, error) {
	c, err := r.Composition(ctx, name)
	return c.Definition, err
}
