package compat

import (
	"errors"

	"github.com/typeward/typeward/internal/schema"
)

// validates asks the real validator whether v is an instance of the
// subschema at ptr. decided is false when it could not answer: the
// subschema does not compile on its own, or the validator failed on the
// value (it dereferences a nil rational for numbers beyond big.Rat's
// reach). Callers treat an undecided answer as "unknown", never as a pass.
func validates(doc *schema.Schema, ptr string, v any) (valid, decided bool) {
	defer func() {
		if recover() != nil {
			valid, decided = false, false
		}
	}()
	err := doc.ValidateAt(ptr, v)
	if err == nil {
		return true, true
	}
	var loadErr *schema.Error
	if errors.As(err, &loadErr) {
		return false, false
	}
	return false, true
}

// exactValue reports whether every number inside v can be read exactly;
// only such values are handed to the validator.
func exactValue(v any) bool {
	switch v := v.(type) {
	case []any:
		for _, e := range v {
			if !exactValue(e) {
				return false
			}
		}
	case map[string]any:
		for _, e := range v {
			if !exactValue(e) {
				return false
			}
		}
	default:
		if KindOf(v) == KindNumber {
			return false
		}
	}
	return true
}
