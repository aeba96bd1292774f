package compat

import (
	"testing"

	"github.com/typeward/typeward/internal/verdict"
)

func TestObjects(t *testing.T) {
	lbl := Options{SourceLabel: "rows", TargetLabel: "data"}
	runRuleCases(t, []ruleCase{
		{name: "required present and required",
			src: `{"type":"object","properties":{"id":{"type":"integer"}},"required":["id"]}`,
			tgt: `{"type":"object","properties":{"id":{"type":"number"}},"required":["id"]}`},
		{name: "required but undeclared in source",
			src: `{"type":"object","properties":{"id":{"type":"integer"}}}`,
			tgt: `{"type":"object","required":["name"]}`, opts: lbl,
			want: []string{`incompatible missing_required  /required: rows does not provide "name", which data requires [witness {} rejected at /required]`}},
		{name: "required but optional in source",
			src: `{"type":"object","properties":{"id":{"type":"integer"}}}`,
			tgt: `{"type":"object","properties":{"id":{"type":"integer"}},"required":["id"]}`, opts: lbl,
			want: []string{"incompatible may_be_missing /properties/id /required: rows.id is optional but data.id is required [witness {} rejected at /required]"}},
		{name: "nested property mismatch names the full path",
			src: `{"type":"array","items":{"type":"object","properties":{"address":{"type":"object","properties":{"city":{"type":"integer"}},"required":["city"]}},"required":["address"]}}`,
			tgt: `{"type":"array","items":{"type":"object","properties":{"address":{"type":"object","properties":{"city":{"type":"string"}}}}}}`, opts: lbl,
			want: []string{"incompatible type_mismatch /items/properties/address/properties/city/type /items/properties/address/properties/city/type: rows[].address.city is integer but data[].address.city expects string [witness [{\"address\":{\"city\":0}}] rejected at /items/properties/address/properties/city/type]"}},
		{name: "undeclared property of an open source is a warning",
			src: `{"type":"object","properties":{"id":{"type":"integer"}}}`,
			tgt: `{"type":"object","properties":{"note":{"type":"string"}}}`, opts: lbl,
			want: []string{`incompatible undeclared_property  /properties/note: rows does not declare property "note", which data constrains [witness {"note":null} rejected at /properties/note/type]`}},
		{name: "additionalProperties: true declares nothing",
			src:  `{"type":"object","additionalProperties":true}`,
			tgt:  `{"type":"object","properties":{"note":{"type":"string"}}}`,
			want: []string{`incompatible undeclared_property  /properties/note: source does not declare property "note", which target constrains [witness {"note":null} rejected at /properties/note/type]`}},
		{name: "undeclared property of a closed source is fine",
			src: `{"type":"object","properties":{"id":{"type":"integer"}},"additionalProperties":false}`,
			tgt: `{"type":"object","properties":{"note":{"type":"string"}}}`},
		{name: "additionalProperties false against an open source",
			src: `{"type":"object","properties":{"id":{"type":"integer"}},"required":["id"]}`,
			tgt: `{"type":"object","properties":{"id":{"type":"integer"}},"additionalProperties":false}`, opts: lbl,
			want: []string{"incompatible additional_property  /additionalProperties: rows may have properties that data does not allow (additionalProperties: false) [witness {\"extra\":null,\"id\":0} rejected at /additionalProperties]"}},
		{name: "additionalProperties false against a source with an extra declared property",
			src: `{"type":"object","properties":{"id":{"type":"integer"},"x":{"type":"string"}},"additionalProperties":false}`,
			tgt: `{"type":"object","properties":{"id":{"type":"integer"}},"additionalProperties":false}`, opts: lbl,
			want: []string{`incompatible additional_property /properties/x /additionalProperties: rows may have "x", which data does not allow (additionalProperties: false) [witness {"id":0,"x":""} rejected at /additionalProperties]`}},
		{name: "closed source into closed target",
			src: `{"type":"object","properties":{"id":{"type":"integer"}},"additionalProperties":false}`,
			tgt: `{"type":"object","properties":{"id":{"type":"integer"},"x":{}},"additionalProperties":false}`},
		{name: "unevaluatedProperties false acts as additionalProperties",
			src:  `{"type":"object","properties":{"id":{"type":"integer"}}}`,
			tgt:  `{"type":"object","properties":{"id":{"type":"integer"}},"unevaluatedProperties":false}`,
			want: []string{"incompatible additional_property  /unevaluatedProperties: source may have properties that target does not allow (unevaluatedProperties: false) [witness {\"extra\":null} rejected at /unevaluatedProperties]"}},
		{name: "unevaluatedProperties sees through allOf",
			src: `{"type":"object","properties":{"id":{"type":"integer"}},"additionalProperties":false}`,
			tgt: `{"allOf":[{"properties":{"id":{"type":"integer"}}}],"unevaluatedProperties":false}`},
		{name: "additionalProperties schemas compared",
			src: `{"type":"object","additionalProperties":{"type":"integer"}}`,
			tgt: `{"type":"object","additionalProperties":{"type":"number"}}`},
		{name: "additionalProperties schema mismatch",
			src:  `{"type":"object","additionalProperties":{"type":"string"}}`,
			tgt:  `{"type":"object","additionalProperties":{"type":"number"}}`,
			want: []string{"incompatible type_mismatch /additionalProperties/type /additionalProperties/type: source.* is string but target.* expects number [witness {\"*\":\"\"} rejected at /additionalProperties/type]"}},
		{name: "patternProperties same pattern",
			src: `{"type":"object","patternProperties":{"^x-":{"type":"integer"}},"additionalProperties":false}`,
			tgt: `{"type":"object","patternProperties":{"^x-":{"type":"number"}}}`},
		{name: "patternProperties constrain declared source names",
			src:  `{"type":"object","properties":{"x-a":{"type":"string"}},"additionalProperties":false}`,
			tgt:  `{"type":"object","patternProperties":{"^x-":{"type":"number"}}}`,
			want: []string{"incompatible type_mismatch /properties/x-a/type /patternProperties/^x-/type: source.x-a is string but target.x-a expects number [witness {\"x-a\":\"\"} rejected at /patternProperties/^x-/type]"}},
		{name: "minProperties from required",
			src: `{"type":"object","properties":{"a":{},"b":{}},"required":["a","b"]}`,
			tgt: `{"type":"object","minProperties":2}`},
		{name: "minProperties not guaranteed",
			src:  `{"type":"object","required":["a"]}`,
			tgt:  `{"type":"object","minProperties":2}`,
			want: []string{"incompatible size_mismatch /required /minProperties: source may have fewer than 2 properties, the minProperties of target [witness {\"a\":null} rejected at /minProperties]"}},
		{name: "maxProperties from a closed source",
			src: `{"type":"object","properties":{"a":{},"b":{}},"additionalProperties":false}`,
			tgt: `{"type":"object","maxProperties":2}`},
		{name: "maxProperties against an open source",
			src: `{"type":"object"}`, tgt: `{"type":"object","maxProperties":2}`,
			want: []string{"incompatible size_mismatch  /maxProperties: source may have more than 2 properties, the maxProperties of target [witness {\"x0\":null,\"x1\":null,\"x2\":null} rejected at /maxProperties]"}},
		{name: "dependentRequired met by required",
			src: `{"type":"object","properties":{"a":{},"b":{}},"required":["b"]}`,
			tgt: `{"type":"object","dependentRequired":{"a":["b"]}}`},
		{name: "dependentRequired not met",
			src:  `{"type":"object","properties":{"a":{},"b":{}}}`,
			tgt:  `{"type":"object","dependentRequired":{"a":["b"]}}`,
			want: []string{`incompatible dependency_missing  /dependentRequired: source may have "a" without "b", which target requires together (dependentRequired) [witness {"a":null} rejected at /dependentRequired/a]`}},
		{name: "dependentRequired trigger impossible in a closed source",
			src: `{"type":"object","properties":{"b":{}},"additionalProperties":false}`,
			tgt: `{"type":"object","dependentRequired":{"a":["b"]}}`},
		{name: "propertyNames checked name by name on a closed source",
			src:  `{"type":"object","properties":{"ab":{},"Cd":{}},"additionalProperties":false}`,
			tgt:  `{"type":"object","propertyNames":{"pattern":"^[a-z]+$"}}`,
			want: []string{`incompatible additional_property /properties/Cd /propertyNames: source may have "Cd", a name target rejects (propertyNames) [witness {"Cd":null,"ab":null} rejected at /propertyNames/pattern]`}},
		{name: "optional source property must still fit when present",
			src:  `{"type":"object","properties":{"n":{"type":"string"}}}`,
			tgt:  `{"type":"object","properties":{"n":{"type":"integer"}}}`,
			want: []string{"incompatible type_mismatch /properties/n/type /properties/n/type: source.n is string but target.n expects integer [witness {\"n\":\"\"} rejected at /properties/n/type]"}},
	})
}

func TestPatternPropertiesAndDependencies(t *testing.T) {
	runRuleCases(t, []ruleCase{
		{name: "the same pattern governs every undeclared name it matches", src: `{"type":"object","patternProperties":{"^x-":{"type":"integer"}}}`,
			tgt: `{"type":"object","patternProperties":{"^x-":{"type":"number"}}}`},
		{name: "the same pattern with a narrower value", src: `{"type":"object","patternProperties":{"^x-":{"type":"number"}}}`,
			tgt:  `{"type":"object","patternProperties":{"^x-":{"type":"integer"}}}`,
			want: []string{`incompatible type_mismatch /patternProperties/^x-/type /patternProperties/^x-/type: source.^x- is number but target.^x- expects integer [witness {"x-":1.5} rejected at /patternProperties/^x-/type]`}},
		{name: "an undeclared name the target pattern matches", src: `{"type":"object","properties":{"a":{"type":"integer"}}}`,
			tgt:  `{"type":"object","patternProperties":{"^a":{"type":"integer"}}}`,
			want: []string{`incompatible undeclared_property  /patternProperties/^a: source does not declare the names matching "^a", which target constrains [witness {"az":null} rejected at /patternProperties/^a/type]`}},
		{name: "a dependency without its second name", src: `{"type":"object","dependentRequired":{"a":["b"]}}`,
			tgt:  `{"type":"object","dependentRequired":{"a":["b","c"]}}`,
			want: []string{`incompatible dependency_missing  /dependentRequired: source may have "a" without "c", which target requires together (dependentRequired) [witness {"a":null,"b":null} rejected at /dependentRequired/a]`}},
	})
}

func TestFinitePropertyNames(t *testing.T) {
	runRuleCases(t, []ruleCase{
		{name: "names from an enum, all declared by the target", src: `{"type":"object","propertyNames":{"enum":["a","b"]}}`,
			tgt: `{"type":"object","properties":{"a":{},"b":{}},"additionalProperties":false}`},
		{name: "a name the target does not allow", src: `{"type":"object","propertyNames":{"enum":["a","c"]}}`,
			tgt:  `{"type":"object","properties":{"a":{}},"additionalProperties":false}`,
			want: []string{`incompatible additional_property  /additionalProperties: source may have properties that target does not allow (additionalProperties: false) [witness {"c":null} rejected at /additionalProperties]`}},
		{name: "no name allowed", src: `{"type":"object","propertyNames":false}`, tgt: `{"type":"object","maxProperties":0}`},
	})
}

func TestNoUndeclaredNames(t *testing.T) {
	runRuleCases(t, []ruleCase{
		{name: "a match-all source pattern governs every name", src: `{"type":"object","patternProperties":{".*":{"type":"string"}}}`,
			tgt: `{"type":"object","additionalProperties":{"type":"string"}}`},
		{name: "required names fill maxProperties", src: `{"type":"object","required":["a","b"],"maxProperties":2,"properties":{"a":{"type":"string"},"b":{"type":"string"}}}`,
			tgt: `{"type":"object","additionalProperties":{"type":"string"}}`},
		{name: "a required name the source does not declare", src: `{"type":"object","required":["a","b"],"maxProperties":2,"properties":{"a":{"type":"string"}}}`,
			tgt:  `{"type":"object","additionalProperties":{"type":"string"}}`,
			want: []string{`incompatible undeclared_property  /additionalProperties: source.* does not declare its other properties, which target.* constrains [witness {"a":"","b":null} rejected at /additionalProperties/type]`}},
		{name: "closed source patterns inside the target's name pattern", src: `{"type":"object","patternProperties":{"^ab":{}},"additionalProperties":false}`,
			tgt: `{"type":"object","propertyNames":{"pattern":"^a"}}`},
	})
}

func TestNonStringPropertyNames(t *testing.T) {
	runRuleCases(t, []ruleCase{
		{name: "a non-string const name allows no property", src: `{"type":"object","propertyNames":{"const":1}}`, tgt: `{"type":"object","maxProperties":0}`},
	})
}

func TestBiggerObjectCandidate(t *testing.T) {
	runRuleCases(t, []ruleCase{
		{name: "pattern names make a closed object large", src: `{"type":"object","patternProperties":{"^a":{"const":1}},"properties":{"a":{"const":1}},"additionalProperties":false}`,
			tgt:  `{"type":"object","maxProperties":1}`,
			want: []string{`incompatible size_mismatch  /maxProperties: source may have more than 1 properties, the maxProperties of target [witness {"a":1,"az":1} rejected at /maxProperties]`}},
	})
}

// TestNegatedRequired: a source negating {required: [a]} has no member a,
// so a target's constraint on a is vacuous for it (containment negation#32
// was unknown before); a negation of two names forbids neither.
func TestNegatedRequired(t *testing.T) {
	runRuleCases(t, []ruleCase{
		{name: "objects without a", src: `{"type":"object","not":{"type":"object","required":["a"]}}`, tgt: `{"type":"object","properties":{"a":false}}`},
		{name: "a bare negated required", src: `{"type":"object","not":{"required":["a"]}}`, tgt: `{"type":"object","properties":{"a":{"type":"string"}},"additionalProperties":true}`},
		{name: "a required and negated member is empty", src: `{"type":"object","required":["a"],"not":{"required":["a"]}}`, tgt: `false`},
	})
	c := NewChecker()
	for _, p := range [][2]string{
		{`{"type":"object","not":{"required":["a","b"]}}`, `{"type":"object","properties":{"a":false}}`},
		{`{"type":"object","not":{"required":["a"],"minProperties":2}}`, `{"type":"object","properties":{"a":false}}`},
		{`{"type":"object","not":{"not":{"required":["a"]}}}`, `{"type":"object","properties":{"a":false}}`},
	} {
		if got := c.Check(Node{mustParse(t, p[0]), ""}, Node{mustParse(t, p[1]), ""}, Options{}); got.Verdict == verdict.Compatible {
			t.Errorf("%s into %s: compatible, yet a may be there", p[0], p[1])
		}
	}
}
