package compat

import "testing"

func TestStrings(t *testing.T) {
	runRuleCases(t, []ruleCase{
		{name: "lengths contained", src: `{"type":"string","minLength":2,"maxLength":5}`, tgt: `{"type":"string","minLength":1,"maxLength":10}`},
		{name: "minLength not guaranteed", src: `{"type":"string"}`, tgt: `{"type":"string","minLength":1}`,
			want: []string{"incompatible length_mismatch  /minLength: source may be shorter than 1 characters, the minLength of target [witness \"\" rejected at /minLength]"}},
		{name: "maxLength exceeded", src: `{"type":"string","maxLength":20}`, tgt: `{"type":"string","maxLength":10}`,
			want: []string{"incompatible length_mismatch /maxLength /maxLength: source may be longer than 10 characters, the maxLength of target [witness \"aaaaaaaaaaaaaaaaaaaa\" rejected at /maxLength]"}},
		{name: "equal pattern proves", src: `{"type":"string","pattern":"^[a-z]+$"}`, tgt: `{"type":"string","pattern":"^[a-z]+$"}`},
		{name: "a pattern inside another proves", src: `{"type":"string","pattern":"^[a-z]+$"}`, tgt: `{"type":"string","pattern":"^[a-z]*$"}`},
		{name: "a pattern with a word boundary cannot be proven", src: `{"type":"string","pattern":"^[a-z]+$"}`, tgt: `{"type":"string","pattern":"\\b[a-z]"}`,
			want: []string{`unknown cannot_prove /pattern /pattern: cannot prove source fits target: the source does not declare the same pattern "\b[a-z]" (pattern)`}},
		{name: "same format", src: `{"type":"string","format":"email"}`, tgt: `{"type":"string","format":"email"}`},
		{name: "format absent in target", src: `{"type":"string","format":"email"}`, tgt: `{"type":"string"}`},
		{name: "format absent in the source of a draft-07 target", src: `{"type":"string"}`, tgt: `{"$schema":"http://json-schema.org/draft-07/schema#","type":"string","format":"email"}`,
			want: []string{`incompatible format_mismatch  /format: source may be a value that target refuses (format) [witness "" rejected at /format]`}},
		{name: "a 2020-12 format proves nothing to draft-07", src: `{"type":"string","format":"email"}`, tgt: `{"$schema":"http://json-schema.org/draft-07/schema#","type":"string","format":"email"}`,
			want: []string{`incompatible format_mismatch /format /format: source may be a value that target refuses (format) [witness "" rejected at /format]`}},
		{name: "draft-07 format into draft-07", src: `{"$schema":"http://json-schema.org/draft-07/schema#","type":"string","format":"email"}`, tgt: `{"$schema":"http://json-schema.org/draft-07/schema#","type":"string","format":"email"}`},
	})
}
