package compat

import "testing"

// Rule tables for the laws and the keyword families of issue 7, with exact
// answers (no want: proven compatible).

func TestReflexivity(t *testing.T) {
	runRuleCases(t, []ruleCase{
		{name: "unmodeled keywords on both sides", src: `{"type":"string","pattern":"^[a-z]+$","not":{"const":"x"}}`,
			tgt: `{"type":"string","pattern":"^[a-z]+$","not":{"const":"x"}}`},
		{name: "annotations differ", src: `{"title":"a","type":"object","dependentSchemas":{"a":{"required":["b"]}},"properties":{"a":{"pattern":"^q"}}}`,
			tgt: `{"description":"b","type":"object","dependentSchemas":{"a":{"required":["b"]}},"properties":{"a":{"pattern":"^q"}}}`},
		{name: "recursion through differently named definitions", src: `{"$defs":{"n":{"type":"object","properties":{"next":{"$ref":"#/$defs/n"},"v":{"pattern":"^a"}}}},"$ref":"#/$defs/n"}`,
			tgt: `{"$defs":{"tree":{"type":"object","properties":{"next":{"$ref":"#/$defs/tree"},"v":{"pattern":"^a"}}}},"$ref":"#/$defs/tree"}`},
		{name: "$dynamicRef recursion", src: `{"$dynamicAnchor":"node","type":"object","properties":{"kids":{"type":"array","items":{"$dynamicRef":"#node"}},"name":{"pattern":"x"}}}`,
			tgt: `{"$dynamicAnchor":"node","type":"object","properties":{"kids":{"type":"array","items":{"$dynamicRef":"#node"}},"name":{"pattern":"x"}}}`},
		{name: "required in another order", src: `{"type":"object","required":["a","b"],"properties":{"a":{"pattern":"^1"}}}`,
			tgt: `{"type":"object","required":["b","a"],"properties":{"a":{"pattern":"^1"}}}`},
		{name: "the same if/then/else", src: `{"type":"object","if":{"properties":{"k":{"const":"a"}},"required":["k"]},"then":{"required":["a"]},"else":{"required":["b"]}}`,
			tgt: `{"if":{"properties":{"k":{"const":"a"}},"required":["k"]},"then":{"required":["a"]},"else":{"required":["b"]}}`},
		{name: "equal property under a different root", src: `{"type":"object","properties":{"x":{"type":"string","pattern":"^z"}}}`, srcPtr: "/properties/x",
			tgt: `{"type":"string","pattern":"^z"}`},
	})
}

func TestEmptiness(t *testing.T) {
	into := `{"type":"string","const":"never"}`
	runRuleCases(t, []ruleCase{
		{name: "contradictory numeric bounds of two conjuncts", src: `{"allOf":[{"minimum":5},{"maximum":3}],"type":"number"}`, tgt: into},
		{name: "exclusive point interval", src: `{"type":"number","minimum":2,"exclusiveMaximum":2}`, tgt: into},
		{name: "no integer in the interval", src: `{"type":"integer","exclusiveMinimum":1,"exclusiveMaximum":2}`, tgt: into},
		{name: "no multiple in the interval", src: `{"type":"number","multipleOf":5,"minimum":1,"maximum":4}`, tgt: into},
		{name: "contradictory lengths", src: `{"type":"string","minLength":3,"maxLength":2}`, tgt: `{"type":"integer"}`},
		{name: "contradictory item counts", src: `{"type":"array","minItems":3,"maxItems":1}`, tgt: `{"type":"string"}`},
		{name: "contradictory property counts", src: `{"type":"object","minProperties":3,"maxProperties":1}`, tgt: `{"type":"string"}`},
		{name: "disjoint types", src: `{"allOf":[{"type":"string"},{"type":"integer"}]}`, tgt: into},
		{name: "empty enum", src: `{"enum":[]}`, tgt: into},
		{name: "false", src: `false`, tgt: into},
		{name: "const against a conjunct", src: `{"allOf":[{"const":7},{"maximum":3}]}`, tgt: into},
		{name: "a schema and its negation", src: `{"allOf":[{"type":"object","required":["a"]},{"not":{"required":["a"],"type":"object"}}]}`, tgt: into},
		{name: "a schema that implies what it negates", src: `{"type":"string","minLength":3,"not":{"type":"string"}}`, tgt: into},
		{name: "not {}", src: `{"not":{}}`, tgt: into},
		{name: "not true", src: `{"not":true}`, tgt: into},
		{name: "required name a closed object cannot have", src: `{"type":"object","required":["z"],"properties":{"a":{}},"additionalProperties":false}`, tgt: into},
		{name: "required name whose schema is false", src: `{"type":"object","required":["a"],"properties":{"a":false}}`, tgt: into},
		{name: "more required names than maxProperties", src: `{"type":"object","required":["a","b"],"maxProperties":1}`, tgt: into},
		{name: "closed object smaller than minProperties", src: `{"type":"object","properties":{"a":{}},"additionalProperties":false,"minProperties":2}`, tgt: into},
		{name: "unique items from too few values", src: `{"type":"array","items":{"type":"boolean"},"uniqueItems":true,"minItems":3}`, tgt: into},
		{name: "more items than a closed tuple", src: `{"type":"array","prefixItems":[{}],"items":false,"minItems":2}`, tgt: into},
		{name: "contains nothing", src: `{"type":"array","contains":false}`, tgt: into},
		{name: "dependentRequired on a closed object", src: `{"type":"object","required":["a"],"properties":{"a":{}},"additionalProperties":false,"dependentRequired":{"a":["b"]}}`, tgt: into},
		{name: "a type negated", src: `{"type":"string","not":{"type":"string"}}`, tgt: into},
		{name: "non-empty kinds still checked", src: `{"type":["string","integer"],"not":{"type":"string"}}`, tgt: `{"type":"string"}`,
			want: []string{"incompatible type_mismatch /type /type: source is integer but target expects string [witness 0 rejected at /type]"}},
	})
}

func TestUniversality(t *testing.T) {
	src := `{"type":["object","string","null"],"properties":{"a":{"type":"integer"}}}`
	runRuleCases(t, []ruleCase{
		{name: "true", src: src, tgt: `true`},
		{name: "empty schema", src: src, tgt: `{}`},
		{name: "annotations only", src: src, tgt: `{"title":"t","description":"d","x-vendor":1,"contentMediaType":"text/plain"}`},
		{name: "anyOf a schema and its negation", src: src, tgt: `{"anyOf":[{"type":"string","pattern":"^a"},{"not":{"type":"string","pattern":"^a"}}]}`},
		{name: "oneOf a schema and its negation", src: src, tgt: `{"oneOf":[{"not":{"minLength":2}},{"minLength":2}]}`},
		{name: "not of nothing", src: src, tgt: `{"not":false}`},
		{name: "every type", src: src, tgt: `{"type":["null","boolean","object","array","number","string"]}`},
		{name: "vacuous keywords", src: src, tgt: `{"minLength":0,"required":[],"properties":{"b":true},"items":{},"uniqueItems":false,"allOf":[{}]}`},
	})
}

func TestSourceNegationAndConditions(t *testing.T) {
	runRuleCases(t, []ruleCase{
		{name: "not null removes null", src: `{"type":["string","null"],"not":{"type":"null"}}`, tgt: `{"type":"string"}`},
		{name: "s and not n fits t or n", src: `{"type":["string","integer"],"not":{"type":"integer"},"minLength":1}`, tgt: `{"type":"string","minLength":1}`},
		{name: "negated bound", src: `{"type":"integer","not":{"minimum":10}}`, tgt: `{"type":"integer","exclusiveMaximum":10}`},
		{name: "negated length", src: `{"type":"string","not":{"maxLength":3}}`, tgt: `{"type":"string","minLength":4}`},
		{name: "target not met by a negated source", src: `{"type":"string","not":{"enum":["a","b"]}}`, tgt: `{"not":{"const":"a"}}`},
		{name: "the else branch knows the condition failed", src: `{"type":"integer","if":{"minimum":5},"then":{"maximum":10},"else":{"minimum":0}}`,
			tgt: `{"type":"integer","minimum":0,"maximum":10}`},
		{name: "target if decided by the source's own condition", src: `{"type":"object","required":["k"],"properties":{"k":{"enum":["a","b"]}},"if":{"properties":{"k":{"const":"a"}}},"then":{"required":["x"]},"else":{"required":["y"]}}`,
			tgt: `{"if":{"properties":{"k":{"const":"a"}}},"then":{"required":["x"]},"else":{"required":["y"]}}`},
		{name: "source oneOf branches exclude each other", src: `{"oneOf":[{"type":"string"},{"type":["string","integer"]}]}`, tgt: `{"type":"integer"}`},
		{name: "dependentRequired with required", src: `{"type":"object","required":["a"],"properties":{"a":{},"b":{}},"dependentRequired":{"a":["b"]}}`,
			tgt: `{"type":"object","required":["a","b"]}`},
		{name: "dependentSchemas with required", src: `{"type":"object","required":["a"],"dependentSchemas":{"a":{"properties":{"b":{"type":"integer"}},"required":["b"]}}}`,
			tgt: `{"type":"object","required":["b"],"properties":{"b":{"type":"number"}}}`},
		{name: "target dependentSchemas proven by the source's", src: `{"type":"object","dependentSchemas":{"a":{"required":["b"]}}}`,
			tgt: `{"type":"object","dependentSchemas":{"a":{"required":["b"]}}}`},
		{name: "target dependentRequired proven by the source's dependentSchemas", src: `{"type":"object","dependentSchemas":{"a":{"required":["b"]}}}`,
			tgt: `{"type":"object","dependentRequired":{"a":["b"]}}`},
		{name: "dependentRequired means nothing in a draft-07 target", src: `{"type":"object"}`,
			tgt: `{"$schema":"http://json-schema.org/draft-07/schema#","type":"object","dependentRequired":{"a":["b"]}}`},
	})
}

func TestPatternsAndSizes(t *testing.T) {
	runRuleCases(t, []ruleCase{
		{name: "target pattern every string matches", src: `{"type":"string"}`, tgt: `{"type":"string","pattern":".*"}`},
		{name: "anchored star", src: `{"type":"string"}`, tgt: `{"pattern":"^a*"}`},
		{name: "enum source checked against a pattern", src: `{"enum":["ab","ac"]}`, tgt: `{"pattern":"^a"}`},
		{name: "enum source breaks a pattern", src: `{"enum":["ab","b"]}`, tgt: `{"pattern":"^a"}`,
			want: []string{`incompatible enum_mismatch /enum : source may be "b", which target does not accept [witness "b" rejected at /pattern]`}},
		{name: "the empty string only", src: `{"type":"string","maxLength":0}`, tgt: `{"pattern":"^$"}`},
		{name: "an anchored pattern is not universal", src: `{"type":"string"}`, tgt: `{"pattern":"^$"}`,
			want: []string{`incompatible pattern_mismatch  /pattern: source may be a value that target refuses (pattern) [witness "a" rejected at /pattern]`}},
		{name: "unique items from a finite set bound the length", src: `{"type":"array","items":{"enum":["a","b"]},"uniqueItems":true}`,
			tgt: `{"type":"array","maxItems":2}`},
	})
}

func TestBundledAndDynamic(t *testing.T) {
	bundle := `{"$id":"https://example.com/root","$defs":{"addr":{"$id":"addr","type":"object","required":["zip"],"properties":{"zip":{"$ref":"#/$defs/zip"}},"$defs":{"zip":{"type":"string","maxLength":5}}}},"type":"object","properties":{"home":{"$ref":"addr"}}}`
	runRuleCases(t, []ruleCase{
		{name: "bundled source into a plain target", src: bundle, srcPtr: "/properties/home",
			tgt: `{"type":"object","required":["zip"],"properties":{"zip":{"type":"string","maxLength":10}}}`},
		{name: "bundled source breaks a bound", src: bundle, srcPtr: "/properties/home",
			tgt:  `{"type":"object","properties":{"zip":{"type":"string","maxLength":3}}}`,
			want: []string{"incompatible length_mismatch /$defs/addr/$defs/zip/maxLength /properties/zip/maxLength: source.zip may be longer than 3 characters, the maxLength of target.zip [witness {\"zip\":\"aaaaa\"} rejected at /properties/zip/maxLength]"}},
		{name: "bundled target", src: `{"type":"object","required":["zip"],"properties":{"zip":{"type":"string","maxLength":2}}}`,
			tgt: bundle, tgtPtr: "/properties/home"},
		{name: "a scope-dependent $dynamicRef on the target", src: `{"type":"object","properties":{"v":{"type":"object"}}}`,
			tgt:  `{"$id":"https://x/root","$dynamicAnchor":"m","type":"object","$defs":{"b":{"$id":"https://x/b","$dynamicAnchor":"m","properties":{"v":{"$dynamicRef":"#m"}}}},"$ref":"https://x/b"}`,
			want: []string{"incompatible type_mismatch /properties/v /$defs/b/properties/v/$dynamicRef: source.v may be a value that target.v refuses (type) [witness {\"v\":{\"v\":null}} rejected at /type]"}},
		{name: "the same scope-dependent schema", src: `{"$id":"https://x/root","$dynamicAnchor":"m","type":"object","$defs":{"b":{"$id":"https://x/b","$dynamicAnchor":"m","properties":{"v":{"$dynamicRef":"#m"}}}},"$ref":"https://x/b"}`,
			tgt: `{"$id":"https://x/root","$dynamicAnchor":"m","type":"object","$defs":{"b":{"$id":"https://x/b","$dynamicAnchor":"m","properties":{"v":{"$dynamicRef":"#m"}}}},"$ref":"https://x/b"}`},
	})
}

func TestUnevaluatedThroughApplicators(t *testing.T) {
	runRuleCases(t, []ruleCase{
		{name: "properties of an allOf branch are evaluated", src: `{"type":"object","properties":{"a":{"type":"string"},"b":{"type":"integer"}},"additionalProperties":false}`,
			tgt: `{"allOf":[{"properties":{"a":{"type":"string"}}}],"properties":{"b":{"type":"integer"}},"unevaluatedProperties":false}`},
		{name: "through a $ref", src: `{"type":"object","properties":{"a":{"type":"string"}},"additionalProperties":false}`,
			tgt: `{"$defs":{"base":{"properties":{"a":{}}}},"$ref":"#/$defs/base","unevaluatedProperties":false}`},
		{name: "a name nothing evaluates", src: `{"type":"object","properties":{"a":{"type":"string"},"c":{}},"required":["c"],"additionalProperties":false}`,
			tgt:  `{"allOf":[{"properties":{"a":{"type":"string"}}}],"unevaluatedProperties":false}`,
			want: []string{`incompatible additional_property /properties/c /unevaluatedProperties: source may have "c", which target does not allow (unevaluatedProperties: false) [witness {"c":null} rejected at /unevaluatedProperties]`}},
		{name: "an allOf branch with additionalProperties evaluates everything", src: `{"type":"object"}`,
			tgt: `{"allOf":[{"additionalProperties":{}}],"unevaluatedProperties":false}`},
		{name: "conditional evaluation stays unproven", src: `{"type":"object","properties":{"a":{}},"additionalProperties":false}`,
			tgt:  `{"anyOf":[{"properties":{"a":{}}},{"required":["z"]}],"unevaluatedProperties":false}`,
			want: []string{"unknown cannot_prove  /unevaluatedProperties: cannot prove source fits target: it depends on what the target's conditional subschemas evaluate (unevaluatedProperties)"}},
	})
}

func TestContainsCounts(t *testing.T) {
	runRuleCases(t, []ruleCase{
		{name: "short arrays meet maxContains", src: `{"type":"array","items":{"type":"integer"},"maxItems":2}`,
			tgt: `{"type":"array","contains":{"type":"integer"},"minContains":0,"maxContains":2}`},
		{name: "no item can match", src: `{"type":"array","items":{"type":"string"}}`,
			tgt: `{"type":"array","contains":{"type":"integer"},"minContains":0,"maxContains":1}`},
		{name: "the same contains with fewer matches", src: `{"type":"array","contains":{"type":"integer"},"minContains":2,"maxContains":3}`,
			tgt: `{"type":"array","contains":{"type":"integer"},"minContains":1,"maxContains":4}`},
		{name: "enough matching items", src: `{"type":"array","items":{"type":"integer"},"minItems":2}`,
			tgt: `{"type":"array","contains":{"type":"number"},"minContains":2}`},
		{name: "too many matching items", src: `{"type":"array","items":{"type":"integer"},"minItems":3}`,
			tgt:  `{"type":"array","contains":{"type":"number"},"maxContains":2}`,
			want: []string{"incompatible contains_mismatch  /contains: source has more than 2 matching items but target allows at most 2 (maxContains) [witness [0,-1,1] rejected at /maxContains]"}},
		{name: "items that never match", src: `{"type":"array","items":{"type":"string"},"minItems":1}`,
			tgt:  `{"type":"array","contains":{"type":"integer"}}`,
			want: []string{"incompatible contains_mismatch  /contains: source may have fewer than 1 matching items but target requires them (contains) [witness [\"\"] rejected at /contains/type]"}},
	})
}
