package schema

import (
	"fmt"
	"net/url"
	"strconv"
	"strings"
)

// At returns the value at a JSON pointer ("" is the root).
func (s *Schema) At(pointer string) (any, bool) {
	return lookup(s.Root, pointer)
}

// Resolve follows one local reference ("#/…" pointer or "#name" anchor) and
// returns the referenced value with its JSON pointer.
func (s *Schema) Resolve(ref string) (any, string, error) {
	if !strings.HasPrefix(ref, "#") {
		return nil, "", &Error{Kind: ErrRemoteRef, Detail: fmt.Sprintf("%q", ref)}
	}
	frag, err := url.PathUnescape(ref[1:])
	if err != nil {
		return nil, "", &Error{Kind: ErrRefUnresolved, Detail: fmt.Sprintf("%q: %v", ref, err)}
	}
	if frag == "" || strings.HasPrefix(frag, "/") {
		v, ok := lookup(s.Root, frag)
		if !ok {
			return nil, "", &Error{Kind: ErrRefUnresolved, Detail: fmt.Sprintf("%q", ref)}
		}
		return v, frag, nil
	}
	if p, ok := findAnchor(s.Root, frag, ""); ok {
		v, _ := lookup(s.Root, p)
		return v, p, nil
	}
	return nil, "", &Error{Kind: ErrRefUnresolved, Detail: fmt.Sprintf("%q: no such anchor", ref)}
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

func findAnchor(v any, name, pointer string) (string, bool) {
	switch v := v.(type) {
	case map[string]any:
		if a, ok := v["$anchor"].(string); ok && a == name {
			return pointer, true
		}
		if a, ok := v["$dynamicAnchor"].(string); ok && a == name {
			return pointer, true
		}
		if id, ok := v["$id"].(string); ok && id == "#"+name { // draft-07 anchors
			return pointer, true
		}
		for k, e := range v {
			if p, ok := findAnchor(e, name, pointer+"/"+escapeToken(k)); ok {
				return p, true
			}
		}
	case []any:
		for i, e := range v {
			if p, ok := findAnchor(e, name, pointer+"/"+strconv.Itoa(i)); ok {
				return p, true
			}
		}
	}
	return "", false
}
