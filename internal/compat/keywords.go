package compat

// The keyword table: every keyword of draft 2020-12 and draft-07, as the
// validator (santhosh-tekuri/jsonschema v6, default options) treats it, and
// whether the rules model it. A keyword the validator asserts but the rules
// do not model is cannot_prove wherever it appears on the target side;
// annotations and unknown keywords never make an instance invalid.
// TestKeywordTableCoversMetaschemas ties the table to the metaschemas,
// TestKeywordTableMatchesValidator to the validator's options.

type keywordClassKind uint8

const (
	classUnknown    keywordClassKind = iota // not a keyword of the dialect: ignored by the validator
	classModeled                            // validating, and the rules decide it
	classAnnotation                         // the validator collects or ignores it, never rejects by it
	classUnmodeled                          // validating, not modeled: cannot_prove on the target
)

// dialectClass is a keyword's class in each dialect.
type dialectClass struct{ d2020, d7 keywordClassKind }

var (
	both       = dialectClass{classModeled, classModeled}
	only2020   = dialectClass{classModeled, classUnknown}
	annotation = dialectClass{classAnnotation, classAnnotation}
	annot2020  = dialectClass{classAnnotation, classUnknown}
)

var keywordTable = map[string]dialectClass{
	// core
	"$schema": annotation, "$id": annotation, "$comment": annotation,
	"$ref":        both,
	"$anchor":     annot2020,
	"$defs":       annot2020, // a container; its schemas matter only through references
	"definitions": annotation,
	"$vocabulary": annot2020,
	// $dynamicRef/$recursiveRef are followed where they are static (one
	// resource); a scope-dependent one is cannot_prove, see dynamicRef.
	"$dynamicRef": only2020, "$dynamicAnchor": annot2020,
	"$recursiveRef": only2020, "$recursiveAnchor": annot2020,
	// applicators
	"allOf": both, "anyOf": both, "oneOf": both, "not": both,
	"if": both, "then": both, "else": both,
	"properties": both, "patternProperties": both, "additionalProperties": both,
	"propertyNames": both, "dependentSchemas": only2020,
	// The validator honours draft-07's dependencies in 2020-12 too.
	"dependencies": both,
	"items":        both, "prefixItems": only2020, "contains": both,
	// 2020-12 replaced additionalItems by items; the validator ignores it there.
	"additionalItems":       {classUnknown, classModeled},
	"unevaluatedProperties": only2020, "unevaluatedItems": only2020,
	// validation
	"type": both, "enum": both, "const": both,
	"multipleOf": both, "maximum": both, "exclusiveMaximum": both, "minimum": both, "exclusiveMinimum": both,
	"maxLength": both, "minLength": both, "pattern": both,
	"maxItems": both, "minItems": both, "uniqueItems": both,
	"maxContains": only2020, "minContains": only2020,
	"maxProperties": both, "minProperties": both, "required": both,
	"dependentRequired": only2020,
	// format: an assertion in draft-07, an annotation in 2020-12 (the
	// validator's default, format-annotation vocabulary).
	"format": {classAnnotation, classModeled},
	// content: annotations in both (the validator does not assert content).
	"contentEncoding": annotation, "contentMediaType": annotation, "contentSchema": annot2020,
	// meta-data
	"title": annotation, "description": annotation, "default": annotation,
	"deprecated": annot2020, "readOnly": annotation, "writeOnly": annotation, "examples": annotation,
}

func keywordClass(kw string, d7 bool) keywordClassKind {
	c, ok := keywordTable[kw]
	if !ok {
		return classUnknown
	}
	if d7 {
		return c.d7
	}
	return c.d2020
}

// asserts: the validator may reject an instance by this keyword.
func asserts(kw string, d7 bool) bool {
	c := keywordClass(kw, d7)
	return c == classModeled || c == classUnmodeled
}

// constrains: the checker must treat kw as narrowing a target. It is
// asserts plus format, which typeward's validator annotates in 2020-12 but
// draft-07, ajv with formats and the format-assertion vocabulary assert: a
// target's format is never taken as vacuous (see the format rule in
// string.go).
func constrains(kw string, d7 bool) bool {
	return asserts(kw, d7) || kw == "format"
}

// numericKeywords take a number; a target value we cannot read exactly is
// reported rather than dropped.
var numericKeywords = []string{
	"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf",
	"minLength", "maxLength", "minItems", "maxItems", "minProperties", "maxProperties",
	"minContains", "maxContains",
}
