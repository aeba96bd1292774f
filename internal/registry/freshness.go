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

// IsStale says whether a composition's validation no longer stands: never
// validated, definition changed since, or a tool it was validated against
// is gone or (unless the composition pinned its version) has a newer one.
func IsStale(c Composition, state func(ToolRef) ToolState) bool {
	return FreshnessOf(c, state).Stale
}

// FreshnessOf computes a composition's Freshness from its tools' states.
func FreshnessOf(c Composition, state func(ToolRef) ToolState) Freshness {
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
	return f
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
