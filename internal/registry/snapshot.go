package registry

import (
	"bytes"
	"encoding/json"
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
