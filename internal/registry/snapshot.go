package registry

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/typeward/typeward/internal/schema"
)

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

// ImportAndCompare stores a server's tools/list as a snapshot and returns
// its drift from the server's approved snapshot (with none approved yet,
// every tool is added): what an operator reviews before approving.
func ImportAndCompare(ctx context.Context, s Store, server, source string, tools []Tool) (Snapshot, []Finding, error) {
	var approved []Tool
	switch prev, err := s.ApprovedSnapshot(ctx, server); {
	case err == nil:
		approved = prev.Tools
	case !errors.Is(err, ErrNotFound):
		return Snapshot{}, nil, err
	}
	snap, err := s.ImportSnapshot(ctx, server, source, tools)
	if err != nil {
		return Snapshot{}, nil, err
	}
	return snap, Drift(approved, snap.Tools), nil
}
