package schema

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
)

type refAt struct{ keyword, ref, at string }

// walker checks what cannot be left to the compiler: the object count bound,
// number literals, and that every reference ($ref, $dynamicRef,
// $recursiveRef) stays inside the document.
type walker struct {
	objects     int
	refs        []refAt
	dynamicRefs bool
}

func (w *walker) walk(v any, pointer string) error {
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
			// Where a reference lands (this document, or a resource it
			// embeds; never a remote one) is checked once every $id is known.
			w.refs = append(w.refs, refAt{kw, ref, pointer + "/" + EscapeToken(kw)})
			if kw != "$ref" {
				w.dynamicRefs = true
			}
		}
		// Sorted, so that of two problems the same one is always reported.
		for _, k := range slices.Sorted(maps.Keys(v)) {
			if err := w.walk(v[k], pointer+"/"+EscapeToken(k)); err != nil {
				return err
			}
		}
	case []any:
		for i, e := range v {
			if err := w.walk(e, pointer+"/"+strconv.Itoa(i)); err != nil {
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
