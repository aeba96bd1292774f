package schema

import (
	"fmt"
	"strconv"
)

// A draft-04 document is compiled as draft-04 by the validator, and held in
// Root as the draft-07 document that accepts exactly the same instances, so
// that the checker, the witness generator and every other reader of Root
// know one legacy dialect (draft-07) and never two copies of its rules:
//   - boolean exclusiveMinimum/exclusiveMaximum become draft-07's numeric
//     ones (true moves the minimum/maximum there; false is dropped);
//   - id becomes $id (a base URI, or a "#name" anchor, as in draft-07);
//   - keywords draft-07 has and draft-04 has not ($id, const, contains,
//     propertyNames, if/then/else, and the annotations) are dropped: the
//     draft-04 validator ignores them.
// The translation follows the validator's draft-04 subschema positions only;
// anything else is data (enum, default, unknown keywords) and copied as is.
// A $ref must land on a translated subschema (draft4Targets), else the
// document is refused: an untranslated object read as draft-07 could read
// a draft-04 exclusive bound as inclusive.

// notDraft4 lists the draft-07 keywords that are not draft-04 keywords.
var notDraft4 = map[string]bool{
	"$id": true, "const": true, "contains": true, "propertyNames": true,
	"if": true, "then": true, "else": true,
	"$comment": true, "examples": true, "readOnly": true, "writeOnly": true,
	"contentMediaType": true, "contentEncoding": true,
}

// draft4Applicators are the keywords of the subschema-position table
// (PositionOf) that draft-04 has (the validator's Draft4 subschema paths).
var draft4Applicators = map[string]bool{
	"not": true, "additionalProperties": true, "additionalItems": true,
	"items": true, "allOf": true, "anyOf": true, "oneOf": true,
	"definitions": true, "properties": true, "patternProperties": true, "dependencies": true,
}

func draft4Position(kw string, v any) Position {
	if !draft4Applicators[kw] {
		return NotSchema
	}
	return PositionOf(kw, v)
}

// fromDraft4 returns the draft-07 reading of the draft-04 document doc,
// which it does not modify, and the pointers of its subschemas.
func fromDraft4(doc any) (any, map[string]bool) {
	targets := map[string]bool{}
	return draft4Schema(doc, "", targets), targets
}

func draft4Schema(v any, ptr string, targets map[string]bool) any {
	obj, ok := v.(map[string]any)
	if !ok {
		return v // a boolean (additionalProperties: false) or not a schema: the compiler judges
	}
	targets[ptr] = true
	out := make(map[string]any, len(obj))
	for k, val := range obj {
		here := ptr + "/" + EscapeToken(k)
		pos := draft4Position(k, val)
		switch {
		case notDraft4[k]:
		case k == "id":
			out["$id"] = val
		case k == "$schema":
			out[k] = "http://json-schema.org/draft-07/schema#"
		case pos == Subschema:
			out[k] = draft4Schema(val, here, targets)
		case pos == SchemaList:
			list := val.([]any)
			cp := make([]any, len(list))
			for i, e := range list {
				cp[i] = draft4Schema(e, here+"/"+strconv.Itoa(i), targets)
			}
			out[k] = cp
		case pos == SchemaMap:
			m, isMap := val.(map[string]any)
			if !isMap {
				out[k] = val
				continue
			}
			cp := make(map[string]any, len(m))
			for n, e := range m {
				cp[n] = draft4Schema(e, here+"/"+EscapeToken(n), targets) // dependencies' name lists stay lists
			}
			out[k] = cp
		default:
			out[k] = val
		}
	}
	exclusive(obj, out, "minimum", "exclusiveMinimum")
	exclusive(obj, out, "maximum", "exclusiveMaximum")
	return out
}

// exclusive turns draft-04's boolean modifier of bound into draft-07's
// numeric keyword; a non-boolean value is left for the compiler to refuse.
func exclusive(obj, out map[string]any, bound, kw string) {
	b, isBool := obj[kw].(bool)
	if !isBool {
		return
	}
	delete(out, kw)
	if n, has := obj[bound]; b && has {
		out[kw] = n
		delete(out, bound)
	}
}

// checkDraft4Target refuses a $ref that lands outside the draft-04
// subschemas of the document (see fromDraft4).
func checkDraft4Target(targets map[string]bool, at, ref, landed string) error {
	if targets[landed] {
		return nil
	}
	return &Error{Kind: ErrInvalid, Pointer: at, Detail: fmt.Sprintf("%q: a draft-04 $ref must land on a draft-04 subschema (the root, definitions, properties, items, …), not %q", ref, landed)}
}
