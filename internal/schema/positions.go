package schema

// Position tells where a keyword's value holds subschemas. This is the one
// table of subschema positions: the load walk, $id and anchor collection,
// and the checker's readers (internal/compat) all follow it; values
// anywhere else (const, enum, default, examples, unknown keywords) are data.
type Position uint8

const (
	NotSchema  Position = iota // data: a value, never read as a schema
	Subschema                  // the value is a schema
	SchemaList                 // a list of schemas (items: a list in draft-07, a schema in 2020-12)
	SchemaMap                  // an object whose members are schemas
)

// subschemaPositions lists the keywords whose values are (or contain)
// subschemas, in 2020-12 and draft-07 alike (a keyword of one dialect only
// is data to the other's validator, but may be the target of a $ref, which
// the validator then reads as a schema).
var subschemaPositions = map[string]Position{
	"additionalProperties": Subschema, "unevaluatedProperties": Subschema,
	"additionalItems": Subschema, "unevaluatedItems": Subschema,
	"contains": Subschema, "propertyNames": Subschema, "not": Subschema,
	"if": Subschema, "then": Subschema, "else": Subschema, "contentSchema": Subschema,
	"items": SchemaList, "prefixItems": SchemaList,
	"allOf": SchemaList, "anyOf": SchemaList, "oneOf": SchemaList,
	"$defs": SchemaMap, "definitions": SchemaMap, "properties": SchemaMap,
	"patternProperties": SchemaMap, "dependentSchemas": SchemaMap,
	"dependencies": SchemaMap,
}

// PositionOf tells where the value v of keyword kw (in a subschema) holds
// subschemas: a list keyword whose value is not a list holds one schema
// (2020-12's items).
func PositionOf(kw string, v any) Position {
	p := subschemaPositions[kw]
	if p == SchemaList {
		if _, isList := v.([]any); !isList {
			return Subschema
		}
	}
	return p
}
