package compat

import "testing"

// Literals beyond schema.MaxExponent never reach the checker (schema.Parse
// refuses them); those at the bound still compare exactly.
func TestHugeNumbers(t *testing.T) {
	runRuleCases(t, []ruleCase{
		{name: "target bound at the exponent limit", src: `{"type":"number"}`, tgt: `{"type":"number","maximum":1e400}`,
			want: []string{"incompatible range_mismatch  /maximum: source allows values > 1e+400 but target requires ≤ 1e+400 [witness 10000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000.5 rejected at /maximum]"}},
		{name: "source bounds at the exponent limit fit", src: `{"type":"number","maximum":1e400,"minimum":1e-400}`, tgt: `{"type":"number","minimum":0}`},
	})
}

func TestNumbers(t *testing.T) {
	runRuleCases(t, []ruleCase{
		{name: "interval contained", src: `{"type":"integer","minimum":1,"maximum":10}`, tgt: `{"type":"integer","minimum":0,"maximum":100}`},
		{name: "minimum violated", src: `{"type":"integer","minimum":0}`, tgt: `{"type":"integer","minimum":1}`,
			want: []string{"incompatible range_mismatch /minimum /minimum: source allows values < 1 but target requires ≥ 1 [witness 0 rejected at /minimum]"}},
		{name: "unbounded source", src: `{"type":"number"}`, tgt: `{"type":"number","maximum":5}`,
			want: []string{"incompatible range_mismatch  /maximum: source allows values > 5 but target requires ≤ 5 [witness 6 rejected at /maximum]"}},
		{name: "exclusive integer bound rounds inward", src: `{"type":"integer","exclusiveMinimum":0}`, tgt: `{"type":"integer","minimum":1}`},
		{name: "exclusive number bound does not", src: `{"type":"number","exclusiveMinimum":0}`, tgt: `{"type":"number","minimum":0.5}`,
			want: []string{"incompatible range_mismatch /exclusiveMinimum /minimum: source allows values < 1/2 but target requires ≥ 1/2 [witness 0.499 rejected at /minimum]"}},
		{name: "inclusive into exclusive at the same value", src: `{"type":"number","minimum":0}`, tgt: `{"type":"number","exclusiveMinimum":0}`,
			want: []string{"incompatible range_mismatch /minimum /exclusiveMinimum: source allows values ≤ 0 but target requires > 0 [witness 0 rejected at /exclusiveMinimum]"}},
		{name: "exclusive into exclusive at the same value", src: `{"type":"number","exclusiveMaximum":1}`, tgt: `{"type":"number","exclusiveMaximum":1}`},
		{name: "multipleOf divisible", src: `{"type":"number","multipleOf":0.3}`, tgt: `{"type":"number","multipleOf":0.1}`},
		{name: "multipleOf not divisible", src: `{"type":"number","multipleOf":0.1}`, tgt: `{"type":"number","multipleOf":0.3}`,
			want: []string{"incompatible multiple_of_mismatch /multipleOf /multipleOf: source need not be a multiple of 3/10 as target requires [witness 0.1 rejected at /multipleOf]"}},
		{name: "integer is a multiple of 0.5", src: `{"type":"integer"}`, tgt: `{"type":"number","multipleOf":0.5}`},
		{name: "integer need not be even", src: `{"type":"integer"}`, tgt: `{"type":"integer","multipleOf":2}`,
			want: []string{"incompatible multiple_of_mismatch  /multipleOf: source need not be a multiple of 2 as target requires [witness -1 rejected at /multipleOf]"}},
		{name: "huge exact bounds keep precision", src: `{"type":"number","maximum":9007199254740993}`, tgt: `{"type":"number","maximum":9007199254740992}`,
			want: []string{"incompatible range_mismatch /maximum /maximum: source allows values > 9007199254740992 but target requires ≤ 9007199254740992 [witness 9007199254740993 rejected at /maximum]"}},
	})
}
