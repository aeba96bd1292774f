package composition

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
)

// scanJSON checks the whole document before it is decoded: it is JSON,
// nested at most MaxDocumentDepth deep, with no object key twice
// (encoding/json would silently keep the last one).
func scanJSON(data []byte) error {
	if !json.Valid(data) {
		var v any
		err := json.Unmarshal(data, &v) // for its description of the fault
		var syntax *json.SyntaxError
		if errors.As(err, &syntax) {
			// Offset counts the bytes read, the faulty one included.
			return parseErr("", "not JSON at %s: %v", lineColumn(data, int(syntax.Offset)-1), err)
		}
		return parseErr("", "not JSON: %v", err)
	}
	type frame struct {
		object  bool
		wantKey bool
		keys    keySet
	}
	var stack []frame
	for i := 0; i < len(data); i++ {
		switch b := data[i]; b {
		case '{', '[':
			if len(stack) == MaxDocumentDepth {
				return parseErr("", "nested more than %d deep at %s", MaxDocumentDepth, lineColumn(data, i))
			}
			stack = append(stack, frame{object: b == '{', wantKey: b == '{'})
		case '}', ']':
			stack = stack[:len(stack)-1]
		case ',':
			if top := len(stack) - 1; stack[top].object {
				stack[top].wantKey = true
			}
		case '"':
			end := stringEnd(data, i)
			if top := len(stack) - 1; top >= 0 && stack[top].object && stack[top].wantKey {
				key, err := decodeKey(data[i : end+1])
				if err != nil {
					return parseErr("", "not JSON at %s: %v", lineColumn(data, i), err)
				}
				if !stack[top].keys.add(key) {
					return parseErr("", "duplicate key %q at %s", key, lineColumn(data, i))
				}
				stack[top].wantKey = false
			}
			i = end
		}
	}
	return nil
}

// lineColumn places byte i of data for a person editing the document: the
// whole-document errors above have no member path to name.
func lineColumn(data []byte, i int) string {
	i = min(max(i, 0), len(data))
	return fmt.Sprintf("line %d, column %d", bytes.Count(data[:i], []byte("\n"))+1, i-bytes.LastIndexByte(data[:i], '\n'))
}

// stringEnd is the index of the quote closing the string opened at start;
// data is valid JSON.
func stringEnd(data []byte, start int) int {
	for i := start + 1; i < len(data); i++ {
		switch data[i] {
		case '\\':
			i++
		case '"':
			return i
		}
	}
	return len(data) - 1
}

// decodeKey unquotes a JSON string, without allocating a decoder for the
// common key without escapes.
func decodeKey(quoted []byte) (string, error) {
	if !slices.Contains(quoted, '\\') {
		return string(quoted[1 : len(quoted)-1]), nil
	}
	var s string
	err := json.Unmarshal(quoted, &s)
	return s, err
}

// keySet holds the keys of one object: a slice while small, which is every
// object of a composition but a large map, then a map.
type keySet struct {
	few  []string
	many map[string]bool
}

func (k *keySet) add(key string) bool {
	if k.many != nil {
		if k.many[key] {
			return false
		}
		k.many[key] = true
		return true
	}
	if slices.Contains(k.few, key) {
		return false
	}
	k.few = append(k.few, key)
	if len(k.few) > 16 {
		k.many = make(map[string]bool, 2*len(k.few))
		for _, f := range k.few {
			k.many[f] = true
		}
		k.few = nil
	}
	return true
}
