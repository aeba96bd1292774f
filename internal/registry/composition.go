package registry

import (
	"bytes"
	"errors"
	"fmt"
	"unicode/utf8"

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
		return "", fmt.Errorf("%w: name %s must be 1 to %d characters of A-Z a-z 0-9 _ - . (letters, digits, underscore, hyphen, dot)", ErrInvalidComposition, quoteName(name), MaxToolNameLength)
	}
	if len(definition) > MaxCompositionBytes {
		return "", fmt.Errorf("%w: %s: definition of %d bytes, at most %d", ErrInvalidComposition, name, len(definition), MaxCompositionBytes)
	}
	trimmed := bytes.TrimSpace(definition)
	canon, ok := canonicalJSON(trimmed)
	if !ok || len(trimmed) == 0 || trimmed[0] != '{' || !utf8.Valid(trimmed) {
		return "", fmt.Errorf("%w: %s: the definition must be one JSON object", ErrInvalidComposition, name)
	}
	return schema.Digest(canon), nil
}
