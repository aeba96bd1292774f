package registry

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/typeward/typeward/internal/schema"
)

// ErrInvalidComposition is wrapped when a composition cannot be stored: a
// name outside the tool-name rule or a definition that is not a JSON object.
var ErrInvalidComposition = errors.New("invalid composition")

// MaxCompositionBytes bounds a stored composition definition.
const MaxCompositionBytes = 1 << 20

// CompositionDigest checks a composition's name and definition and returns
// the definition's canonical digest. Names follow the tool-name rule, so
// they fit in a URL path segment and a token claim unescaped.
func CompositionDigest(name string, definition []byte) (string, error) {
	if !ValidToolName(name) {
		return "", fmt.Errorf("%w: name %s is not 1 to %d characters of A-Z a-z 0-9 _ - .", ErrInvalidComposition, quoteName(name), MaxToolNameLength)
	}
	if len(definition) > MaxCompositionBytes {
		return "", fmt.Errorf("%w: %s: definition of %d bytes, at most %d", ErrInvalidComposition, name, len(definition), MaxCompositionBytes)
	}
	trimmed := bytes.TrimSpace(definition)
	canon, ok := canonicalJSON(trimmed)
	if !ok || len(trimmed) == 0 || trimmed[0] != '{' {
		return "", fmt.Errorf("%w: %s: the definition must be one JSON object", ErrInvalidComposition, name)
	}
	return schema.Digest(canon), nil
}

// PickServer chooses which server's tool a bare name means, given every
// server that currently declares a tool of that name (sorted). A tool
// declared without a server is the exact match of its own name and wins,
// as in Catalog; otherwise exactly one server must declare it.
func PickServer(name string, servers []string) (string, error) {
	switch {
	case len(servers) == 0:
		return "", NotFound(name)
	case servers[0] == "":
		return "", nil
	case len(servers) == 1:
		return servers[0], nil
	}
	qualified := make([]string, len(servers))
	for i, s := range servers {
		qualified[i] = QualifiedName(s, name)
	}
	return "", Ambiguous(name, qualified)
}

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

// SnapshotDigest digests an ordered tools/list: the same tools in another
// order digest differently, reordered keys and whitespace do not.
func SnapshotDigest(tools []Tool) string {
	raw, err := json.Marshal(tools)
	if err != nil {
		// A Tool holding bytes that are not JSON: digest them as given.
		var buf bytes.Buffer
		for _, t := range tools {
			fmt.Fprintf(&buf, "%q %s %s\n", t.Name, t.InputSchema, t.OutputSchema)
		}
		return schema.Digest(buf.Bytes())
	}
	if canon, ok := canonicalJSON(raw); ok {
		return schema.Digest(canon)
	}
	return schema.Digest(raw)
}

// CloneTool copies a Tool so that a store never shares its raw schemas'
// backing arrays with a caller.
func CloneTool(t Tool) Tool {
	t.InputSchema = bytes.Clone(t.InputSchema)
	t.OutputSchema = bytes.Clone(t.OutputSchema)
	t.Annotations = bytes.Clone(t.Annotations)
	t.Meta = bytes.Clone(t.Meta)
	return t
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
