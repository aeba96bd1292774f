package compat

// targetUnmodeled are validating keywords the checker does not model: on
// the target they always yield cannot_prove. Every other keyword is either
// an annotation or unknown to the validator, which ignores it, so it cannot
// make an instance invalid.
var targetUnmodeled = map[string]bool{
	"$dynamicRef": true, "$recursiveRef": true,
}

// applicators evaluate properties or items "in place"; with one present,
// unevaluated* depends on what the subschemas evaluated, which we do not
// track.
var applicators = []string{"$ref", "$dynamicRef", "$recursiveRef", "allOf", "anyOf", "oneOf", "not", "if", "then", "else", "dependentSchemas", "dependencies"}

func hasApplicator(m map[string]any) bool {
	for _, k := range applicators {
		if _, ok := m[k]; ok {
			return true
		}
	}
	return false
}

// numericKeywords take a number; a target value we cannot read exactly is
// reported rather than dropped.
var numericKeywords = []string{
	"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf",
	"minLength", "maxLength", "minItems", "maxItems", "minProperties", "maxProperties",
	"minContains", "maxContains",
}
