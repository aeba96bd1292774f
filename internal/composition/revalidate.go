package composition

import (
	"context"
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
// against the current tool versions, and records each result (Record). v
// must resolve tools from store (or a cache over it) and flatten
// sub-compositions from store.
func Revalidate(ctx context.Context, store registry.Store, v Validates) ([]Revalidation, error) {
	stale, err := store.StaleCompositions(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]Revalidation, 0, len(stale))
	for _, c := range stale {
		rec, err := Record(ctx, store, v, c)
		switch {
		case errors.Is(err, registry.ErrConflict):
			out = append(out, Revalidation{Name: c.Name, Skipped: true})
		case err != nil:
			return out, fmt.Errorf("revalidate %s: %w", c.Name, err)
		default:
			out = append(out, Revalidation{Name: c.Name, Valid: rec.Result.Valid(), Issues: rec.Result.Issues})
		}
	}
	return out, nil
}
