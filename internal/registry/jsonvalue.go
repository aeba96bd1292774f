package registry

import (
	"bytes"
	"encoding/json"

	"github.com/typeward/typeward/internal/schema"
)

// absent reports a member that is missing or null: MCP gives both the
// meaning "none" for outputSchema, annotations and _meta.
func absent(raw json.RawMessage) bool {
	raw = bytes.TrimSpace(raw)
	return len(raw) == 0 || string(raw) == "null"
}

// jsonDigest is the canonical digest of any JSON value (key order and
// whitespace do not count), or of the raw bytes when they are not JSON.
func jsonDigest(raw json.RawMessage) string {
	if absent(raw) {
		return ""
	}
	if canon, ok := canonicalJSON(raw); ok {
		return schema.Digest(canon)
	}
	return schema.Digest(raw)
}

func canonicalJSON(raw []byte) ([]byte, bool) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil || dec.More() {
		return nil, false
	}
	canon, err := schema.Canonical(v)
	return canon, err == nil
}

func sameJSON(a, b json.RawMessage) bool { return jsonDigest(a) == jsonDigest(b) }

func compactJSON(raw json.RawMessage) string {
	if absent(raw) {
		return "none"
	}
	if canon, ok := canonicalJSON(raw); ok {
		return string(canon)
	}
	return string(raw)
}
