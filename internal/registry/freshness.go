package registry

import (
	"cmp"
	"slices"
	"time"
)

// ToolState is what staleness needs to know about a tool now.
type ToolState struct {
	Version   int       // current version; 0 when the tool is gone
	ChangedAt time.Time // current version's creation, or the removal
}

// CompositionState is what staleness needs to know about a stored
// composition now.
type CompositionState struct {
	Digest    string    // "" when none is stored under the name
	UpdatedAt time.Time // when the definition last changed
}

// IsStale says whether a composition's validation no longer stands: never
// validated, definition changed since, a tool it was validated against
// is gone or (unless the composition pinned its version) has a newer one,
// or a stored composition it references has another definition now.
func IsStale(c Composition, state func(ToolRef) ToolState, subs func(name string) CompositionState) bool {
	return FreshnessOf(c, state, subs).Stale
}

// FreshnessOf computes a composition's Freshness from its tools' states
// and those of the stored compositions it references.
func FreshnessOf(c Composition, state func(ToolRef) ToolState, subs func(name string) CompositionState) Freshness {
	f := Freshness{Composition: c.Name}
	v := c.Validation
	if v == nil {
		f.Stale = true
		return f
	}
	f.ValidatedAt = v.ValidatedAt
	f.Stale = v.DefinitionDigest != c.Digest
	for _, ref := range v.Tools {
		st := state(ref)
		gone := st.Version == 0
		if gone || !ref.Pinned && st.Version != ref.Version {
			f.Stale = true
		}
		if (gone || !ref.Pinned) && st.ChangedAt.After(f.ToolsChangedAt) {
			f.ToolsChangedAt = st.ChangedAt
		}
	}
	for _, ref := range v.Compositions {
		if st := subs(ref.Name); st.Digest != ref.Digest {
			f.Stale = true
			if st.UpdatedAt.After(f.ToolsChangedAt) {
				f.ToolsChangedAt = st.UpdatedAt
			}
		}
	}
	return f
}

// NormalizeCompositionRefs sorts references by name and drops repeats:
// how every Store records a validation's compositions. Never nil.
func NormalizeCompositionRefs(refs []CompositionRef) []CompositionRef {
	out := append([]CompositionRef{}, refs...)
	slices.SortFunc(out, func(a, b CompositionRef) int { return cmp.Compare(a.Name, b.Name) })
	return slices.Compact(out)
}

// NormalizeRefs sorts tool references by server, name and version and
// drops repeats: how every Store records a validation's tools.
func NormalizeRefs(refs []ToolRef) []ToolRef {
	out := slices.Clone(refs)
	slices.SortFunc(out, func(a, b ToolRef) int {
		return cmp.Or(cmp.Compare(a.Server, b.Server), cmp.Compare(a.Name, b.Name), cmp.Compare(a.Version, b.Version))
	})
	return slices.CompactFunc(out, func(a, b ToolRef) bool {
		return a.Server == b.Server && a.Name == b.Name && a.Version == b.Version
	})
}
