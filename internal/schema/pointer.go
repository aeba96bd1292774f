package schema

import (
	"strconv"
	"strings"
)

// EscapeToken escapes one JSON pointer reference token (RFC 6901).
func EscapeToken(tok string) string {
	if !strings.ContainsAny(tok, "~/") {
		return tok
	}
	return strings.NewReplacer("~", "~0", "/", "~1").Replace(tok)
}

func unescapeToken(tok string) string {
	if !strings.Contains(tok, "~") {
		return tok
	}
	return strings.NewReplacer("~1", "/", "~0", "~").Replace(tok)
}

func lookup(v any, pointer string) (any, bool) {
	if pointer == "" {
		return v, true
	}
	if !strings.HasPrefix(pointer, "/") {
		return nil, false
	}
	for _, tok := range strings.Split(pointer[1:], "/") {
		tok = unescapeToken(tok)
		switch cur := v.(type) {
		case map[string]any:
			next, ok := cur[tok]
			if !ok {
				return nil, false
			}
			v = next
		case []any:
			i, err := strconv.Atoi(tok)
			if err != nil || i < 0 || i >= len(cur) {
				return nil, false
			}
			v = cur[i]
		default:
			return nil, false
		}
	}
	return v, true
}
