package compat

import "testing"

// A target's format is proven only by the same format in the source, in
// both dialects: typeward's validator annotates a 2020-12 format, but a
// router's validator may assert it, so "compatible" would not be safe.
func TestFormatNeedsTheSameFormat(t *testing.T) {
	runRuleCases(t, []ruleCase{
		{name: "plain string into 2020-12 format", src: `{"type":"string"}`, tgt: `{"type":"string","format":"email"}`,
			want: []string{"unknown cannot_prove  /format: cannot prove source fits target: the source does not declare format \"email\" (format)"}},
		{name: "plain string into a format-only target", src: `{"type":"string"}`, tgt: `{"format":"email"}`,
			want: []string{"unknown cannot_prove  /format: cannot prove source fits target: the source does not declare format \"email\" (format)"}},
		{name: "same 2020-12 format", src: `{"type":"string","format":"email"}`, tgt: `{"type":"string","format":"email"}`},
		{name: "other 2020-12 format", src: `{"type":"string","format":"uri"}`, tgt: `{"type":"string","format":"email"}`,
			want: []string{"unknown cannot_prove /format /format: cannot prove source fits target: the source does not declare format \"email\" (format)"}},
	})
}
