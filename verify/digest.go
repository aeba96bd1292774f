package verify

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"

	"github.com/typeward/typeward/verify/jcs"
)

// DeclarationDigest is the digest typeward pins a tool version by (the
// digest of each tool in authorization_details): "sha256:" and the hex
// SHA-256 of the RFC 8785 (JCS) canonical JSON of
// {"inputSchema": …, "outputSchema": …}, outputSchema left out when absent
// or null. A router recomputes it from the tool's tools/list entry, in any
// language with a JCS implementation, to check the upstream still declares
// what typeward proved. The schemas must be I-JSON: a number that is not
// exactly a double, or a lone surrogate, is an error.
func DeclarationDigest(inputSchema, outputSchema json.RawMessage) (string, error) {
	var doc bytes.Buffer
	doc.WriteString(`{"inputSchema":`)
	doc.Write(inputSchema)
	if out := bytes.TrimSpace(outputSchema); len(out) > 0 && !bytes.Equal(out, []byte("null")) {
		doc.WriteString(`,"outputSchema":`)
		doc.Write(out)
	}
	doc.WriteByte('}')
	if len(bytes.TrimSpace(inputSchema)) == 0 {
		return "", fmt.Errorf("digest: no inputSchema")
	}
	canon, err := jcs.Canonicalize(doc.Bytes())
	if err != nil {
		return "", fmt.Errorf("digest: %w", err)
	}
	sum := sha256.Sum256(canon)
	return "sha256:" + hex.EncodeToString(sum[:]), nil
}
