package compat

import "testing"

// unevaluatedItems seen through in-place applicators (allOf, $ref, the one
// union branch that admits arrays), as unevaluatedProperties is: exact
// verdicts, and every witness re-validated here, apart from Check.
func TestUnevaluatedItemsThroughApplicators(t *testing.T) {
	cases := []ruleCase{
		// Target side.
		{name: "allOf's prefix is evaluated",
			src: `{"type":"array","prefixItems":[{"type":"string"}],"items":false}`,
			tgt: `{"allOf":[{"prefixItems":[{"type":"string"}]}],"unevaluatedItems":false}`},
		{name: "past allOf's prefix nothing is allowed",
			src: `{"type":"array","prefixItems":[{"type":"string"}],"maxItems":2}`,
			tgt: `{"allOf":[{"prefixItems":[{"type":"string"}]}],"unevaluatedItems":false}`,
			want: []string{
				`incompatible size_mismatch /maxItems /unevaluatedItems: source may have more than 1 items but target allows 1 [witness ["",null] rejected at /unevaluatedItems]`,
			}},
		{name: "$ref's prefix is evaluated, the rest typed",
			src: `{"type":"array","prefixItems":[{"type":"string"},{"type":"string"}],"items":{"type":"integer"}}`,
			tgt: `{"$defs":{"p":{"prefixItems":[{},{}]}},"$ref":"#/$defs/p","unevaluatedItems":{"type":"integer"}}`},
		{name: "past $ref's prefix the rest is typed",
			src: `{"type":"array","items":{"type":"string"}}`,
			tgt: `{"$defs":{"p":{"prefixItems":[{},{}]}},"$ref":"#/$defs/p","unevaluatedItems":{"type":"integer"}}`,
			want: []string{
				`incompatible type_mismatch /items/type /unevaluatedItems/type: source[] is string but target[] expects integer [witness ["aa","aa","aa"] rejected at /unevaluatedItems/type]`,
			}},
		{name: "allOf's items evaluate every item",
			src: `{"type":"array","items":{"type":"string"}}`,
			tgt: `{"allOf":[{"items":{"type":"string"}}],"unevaluatedItems":false}`},
		{name: "a union that evaluates no item leaves the rest to unevaluatedItems",
			src: `{"type":"array","items":{"type":"string"},"minItems":1}`,
			tgt: `{"anyOf":[{"minItems":1},{"maxItems":0}],"unevaluatedItems":{"type":"string"}}`},
		{name: "the one branch of a nullable union is applied in place",
			src: `{"type":"array","prefixItems":[{"type":"string"}],"items":false}`,
			tgt: `{"anyOf":[{"type":"null"},{"prefixItems":[{"type":"string"}]}],"unevaluatedItems":false}`},
		// ["s"] passes: the first branch evaluates it. Which branch passes
		// depends on the instance, so the rule does not decide (sound).
		{name: "branches with different tuples depend on the instance",
			src: `{"type":"array","prefixItems":[{"type":"string"}],"minItems":1,"items":false}`,
			tgt: `{"oneOf":[{"prefixItems":[{"type":"string"}],"minItems":1},{"prefixItems":[{"type":"integer"}],"minItems":1}],"unevaluatedItems":false}`,
			want: []string{
				"unknown cannot_prove  /oneOf: cannot prove source fits target: it does not fit exactly one branch provably (oneOf)",
				"unknown cannot_prove  /unevaluatedItems: cannot prove source fits target: it depends on what the target's conditional subschemas evaluate (unevaluatedItems)",
			}},
		// Source side: the rest is typed where the reach is known.
		{name: "source unevaluatedItems past allOf's prefix types the rest",
			src: `{"type":"array","allOf":[{"prefixItems":[{"type":"string"}]}],"unevaluatedItems":{"type":"integer"}}`,
			tgt: `{"type":"array","prefixItems":[{"type":"string"}],"items":{"type":"integer"}}`},
		{name: "source unevaluatedItems false past $ref's prefix bounds the length",
			src: `{"type":"array","$defs":{"p":{"prefixItems":[{"type":"integer"}]}},"$ref":"#/$defs/p","unevaluatedItems":false}`,
			tgt: `{"type":"array","maxItems":1}`},
		{name: "source unevaluatedItems does not type allOf's prefix",
			src: `{"type":"array","allOf":[{"prefixItems":[{}]}],"unevaluatedItems":{"type":"integer"}}`,
			tgt: `{"type":"array","items":{"type":"integer"}}`,
			want: []string{
				`incompatible may_be_null /allOf/0/prefixItems/0 /items/type: source[0] may be null but target[0] does not accept null [witness [null] rejected at /items/type]`,
				`incompatible type_mismatch /allOf/0/prefixItems/0 /items/type: source[0] may be object or array or string or boolean or number but target[0] expects integer [witness [true] rejected at /items/type]`,
			}},
	}
	runRuleCases(t, cases) // which re-validates every witness
}

// A source's unevaluatedProperties closes it (or types its other names)
// through in-place applicators when what it sees evaluated is known and
// every evaluating subschema is a conjunct of the source.
func TestSourceUnevaluatedPropertiesThroughApplicators(t *testing.T) {
	cases := []ruleCase{
		{name: "closed through allOf",
			src: `{"type":"object","allOf":[{"properties":{"a":{"type":"string"}}}],"unevaluatedProperties":false}`,
			tgt: `{"type":"object","properties":{"a":{}},"additionalProperties":false}`},
		{name: "other names typed through $ref",
			src: `{"type":"object","$ref":"#/$defs/b","$defs":{"b":{"properties":{"a":{"type":"string"}}}},"unevaluatedProperties":{"type":"integer"}}`,
			tgt: `{"type":"object","properties":{"a":{"type":"string"}},"additionalProperties":{"type":"integer"}}`},
		{name: "closed sources fit maxProperties",
			src: `{"type":"object","allOf":[{"properties":{"a":{}}}],"unevaluatedProperties":false}`,
			tgt: `{"type":"object","maxProperties":1}`},
		// {"b":1} passes: the branch that evaluates b applies for it, so
		// the source is not closed to b (and the rule does not say so).
		{name: "a union branch's names stay open",
			src: `{"type":"object","anyOf":[{"properties":{"a":{}}},{"properties":{"b":{}}}],"unevaluatedProperties":false}`,
			tgt: `{"type":"object","properties":{"a":{}},"additionalProperties":false}`,
			want: []string{
				`incompatible additional_property  /additionalProperties: source may have properties that target does not allow (additionalProperties: false) [witness {"b":null} rejected at /additionalProperties]`,
				`unknown cannot_prove /anyOf/1/properties/b /additionalProperties: cannot confirm that source may have "b", which target does not allow (additionalProperties: false) (additional_property): no value accepted by source and rejected by target was found`,
			}},
	}
	runRuleCases(t, cases) // which re-validates every witness
}
