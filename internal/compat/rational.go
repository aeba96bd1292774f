package compat

import (
	"encoding/json"
	"math/big"
	"strconv"
	"strings"

	"github.com/typeward/typeward/internal/schema"
)

// ratOf reads a number literal as an exact rational. A loaded schema has no
// literal beyond schema.MaxExponent; the check is kept here because exact
// arithmetic on 1e99999999 would build a 40 MB integer, and every caller
// treats a failure soundly: an unreadable source bound is ignored (which
// only widens), an unreadable target bound is cannot_prove.
func ratOf(v any) (*big.Rat, bool) {
	switch v := v.(type) {
	case json.Number:
		if i := strings.IndexAny(string(v), "eE"); i >= 0 {
			exp, err := strconv.Atoi(string(v)[i+1:])
			if err != nil || exp > schema.MaxExponent || exp < -schema.MaxExponent {
				return nil, false
			}
		}
		return new(big.Rat).SetString(string(v))
	case float64:
		r := new(big.Rat)
		if r.SetFloat64(v) == nil {
			return nil, false
		}
		return r, true
	}
	return nil, false
}
