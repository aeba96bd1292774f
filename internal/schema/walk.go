package schema

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
)

// checkDepth scans raw JSON for nesting beyond MaxDepth before decoding,
// so a hostile document never reaches a recursive decoder or walker.
func checkDepth(data []byte) error {
	depth := 0
	inString := false
	escaped := false
	for _, b := range data {
		if inString {
			switch {
			case escaped:
				escaped = false
			case b == '\\':
				escaped = true
			case b == '"':
				inString = false
			}
			continue
		}
		switch b {
		case '"':
			inString = true
		case '{', '[':
			depth++
			if depth > MaxDepth {
				return &Error{Kind: ErrTooDeep, Detail: fmt.Sprintf("more than %d levels", MaxDepth)}
			}
		case '}', ']':
			depth--
		}
	}
	return nil
}

type refAt struct{ ref, at string }

// walker checks what cannot be left to the compiler: the object count bound
// and that every $ref (and $dynamicRef) stays inside the document.
type walker struct {
	objects int
	refs    []refAt
}

func (w *walker) walk(v any, pointer string, depth int, root bool) error {
	switch v := v.(type) {
	case map[string]any:
		w.objects++
		if w.objects > MaxSubschemas {
			return &Error{Kind: ErrTooManyNodes, Detail: fmt.Sprintf("more than %d objects", MaxSubschemas)}
		}
		for _, kw := range []string{"$ref", "$dynamicRef", "$recursiveRef"} {
			raw, ok := v[kw]
			if !ok {
				continue
			}
			ref, isString := raw.(string)
			if !isString {
				continue // not a keyword position (e.g. a property named "$ref"); the compiler judges
			}
			if !strings.HasPrefix(ref, "#") {
				return &Error{Kind: ErrRemoteRef, Pointer: pointer + "/" + escapeToken(kw), Detail: fmt.Sprintf("%q: only local references (#…) are allowed", ref)}
			}
			if kw == "$ref" {
				w.refs = append(w.refs, refAt{ref, pointer + "/$ref"})
			}
		}
		if id, ok := v["$id"].(string); ok && !root && !strings.HasPrefix(id, "#") {
			return &Error{Kind: ErrRemoteRef, Pointer: pointer + "/$id", Detail: fmt.Sprintf("%q: embedded resources with their own $id are not supported", id)}
		}
		for k, e := range v {
			if err := w.walk(e, pointer+"/"+escapeToken(k), depth+1, false); err != nil {
				return err
			}
		}
	case []any:
		for i, e := range v {
			if err := w.walk(e, pointer+"/"+strconv.Itoa(i), depth+1, false); err != nil {
				return err
			}
		}
	case json.Number:
		if !numberInRange(v) {
			return &Error{Kind: ErrNumberRange, Pointer: pointer, Detail: fmt.Sprintf("%.40s has an exponent beyond ±%d", v, MaxExponent)}
		}
	}
	return nil
}

// numberInRange bounds a literal's decimal exponent: exact arithmetic on
// 1e-99999999 costs unbounded memory (and panics inside the validator).
func numberInRange(n json.Number) bool {
	s := string(n)
	i := strings.IndexAny(s, "eE")
	if i < 0 {
		return len(s) <= MaxExponent
	}
	exp, err := strconv.Atoi(s[i+1:])
	return err == nil && exp >= -MaxExponent && exp <= MaxExponent && i <= MaxExponent
}

func escapeToken(tok string) string {
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

// EscapeToken escapes one JSON pointer reference token (RFC 6901).
func EscapeToken(tok string) string { return escapeToken(tok) }
