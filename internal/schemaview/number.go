package schemaview

import (
	"encoding/json"
	"math/big"
)

// Less compares two JSON numbers exactly (a float64 rounds large and long
// ones); false when either is not a number.
func Less(a, b json.Number) bool {
	x, okA := new(big.Rat).SetString(string(a))
	y, okB := new(big.Rat).SetString(string(b))
	return okA && okB && x.Cmp(y) < 0
}
