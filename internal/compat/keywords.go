package compat

// targetModeled lists the keywords whose meaning on the target side the
// checker decides (or reports cannot_prove for, with a reason).
var targetModeled = map[string]bool{
	"$ref": true, "allOf": true, "anyOf": true, "oneOf": true, "not": true,
	"if": true, "then": true, "else": true,
	"type": true, "enum": true, "const": true,
	"properties": true, "required": true, "additionalProperties": true,
	"patternProperties": true, "propertyNames": true, "minProperties": true,
	"maxProperties": true, "dependentRequired": true, "dependentSchemas": true,
	"dependencies": true, "unevaluatedProperties": true,
	"items": true, "prefixItems": true, "additionalItems": true,
	"minItems": true, "maxItems": true, "uniqueItems": true, "contains": true,
	"minContains": true, "maxContains": true, "unevaluatedItems": true,
	"minimum": true, "maximum": true, "exclusiveMinimum": true,
	"exclusiveMaximum": true, "multipleOf": true,
	"minLength": true, "maxLength": true, "pattern": true, "format": true,
}

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
