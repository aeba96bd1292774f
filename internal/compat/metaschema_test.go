package compat

import (
	"testing"

	"github.com/typeward/typeward/internal/verdict"
)

// TestMetaschemaPairs: a pair referencing a standard metaschema is decided
// by the validator (before, both schemas were refused at load). A finite
// source is decided exactly; otherwise only a confirmed witness decides, and
// never a Compatible the rules would reach by dropping the reference they
// cannot follow.
func TestMetaschemaPairs(t *testing.T) {
	const m2020 = `{"$ref":"https://json-schema.org/draft/2020-12/schema"}`
	const m7 = `{"$ref":"http://json-schema.org/draft-07/schema#"}`
	tests := []struct {
		name     string
		src, tgt string
		want     verdict.Verdict
		not      verdict.Verdict // for an undecided pair: the verdict it must never get
	}{
		{name: "a schema const into the metaschema", src: `{"const":{"minLength":1}}`, tgt: m2020, want: verdict.Compatible},
		{name: "a non-schema const into the metaschema", src: `{"const":{"minLength":-1}}`, tgt: m2020, want: verdict.Incompatible},
		{name: "an enum with a number", src: `{"enum":[true,{"type":"string"},3]}`, tgt: m7, want: verdict.Incompatible},
		{name: "booleans are schemas", src: `{"type":"boolean"}`, tgt: m2020, want: verdict.Compatible},
		{name: "a const schema beside the reference", src: `{"type":"object","properties":{"s":` + m2020 + `},"required":["s"]}`, tgt: `{"type":"object","required":["s"]}`, not: verdict.Incompatible},
		{name: "a negated metaschema is not empty", src: `{"not":` + m2020 + `}`, tgt: `{"type":"null"}`, not: verdict.Compatible},
		{name: "a negated metaschema beside its type", src: `{"type":"object","not":{"$ref":"https://json-schema.org/draft/2020-12/schema","type":"object"}}`, tgt: `false`, not: verdict.Compatible},
		{name: "draft-07 siblings of the reference do not apply", src: `{"$schema":"http://json-schema.org/draft-07/schema#","$ref":"http://json-schema.org/draft-07/schema#","type":"string"}`, tgt: `{"type":"string"}`, not: verdict.Compatible},
		{name: "an object source into the metaschema", src: `{"type":"object"}`, tgt: m2020, not: verdict.Compatible},
		{name: "the metaschema into an object", src: m2020, tgt: `{"type":"object"}`, not: verdict.Compatible},
	}
	c := NewChecker()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src, tgt := Node{mustParse(t, tt.src), ""}, Node{mustParse(t, tt.tgt), ""}
			got := c.Check(src, tgt, Options{})
			switch {
			case tt.want != "" && got.Verdict != tt.want:
				t.Errorf("verdict %s, want %s: %v", got.Verdict, tt.want, summarize(got))
			case tt.not != "" && got.Verdict == tt.not:
				t.Errorf("verdict %s: %v", got.Verdict, summarize(got))
			}
			for _, is := range got.Issues {
				if is.Verdict == verdict.Incompatible {
					assertWitness(t, src, tgt, is)
				}
			}
		})
	}
}
