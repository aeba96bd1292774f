// Package compat decides structural subtyping between JSON Schemas: whether
// every instance valid under a source schema is valid under a target schema.
//
// A check has three outcomes: no Issue (proven compatible), an ERROR
// (an instance of the source that the target rejects exists, with the
// reason), or a WARNING — cannot_prove, naming the keyword the rules could
// not decide, or one of the soft findings below. It is sound: "no Issue" is
// only returned when every rule on the way proved its part.
//
// How it works. The source is a set of conjuncts (allOf and $ref with
// siblings are flattened; draft-07 ignores $ref siblings, as the validator
// does); source disjunctions (anyOf, oneOf, if/then/else) are split and
// every branch must fit. The target is split into its conjuncts ($ref,
// allOf, anyOf, oneOf, not, if) and its plain keywords, each checked
// against the source. A finite source (const, enum, null/boolean, or a
// small integer range against an enum target) is decided value by value by
// the real validator. Recursion on either side is handled coinductively:
// a comparison met again below a property or an item is assumed, one met
// again without descending proves nothing. Every check runs within a step
// budget; exhausting it is cannot_prove.
//
// Policy choices:
//   - A target-required property that the source declares but does not
//     require is WARNING may_be_missing; undeclared, ERROR missing_required.
//   - Null from the source into a target without null is ERROR
//     type_mismatch, or WARNING may_be_null when Options.Conditional is set.
//   - A property the target constrains but an open source never declares is
//     WARNING undeclared_property: the source could carry anything there,
//     but producers rarely emit undeclared fields. Additional properties
//     into additionalProperties: false is an ERROR.
//   - pattern and format are proven only by the same keyword in the source;
//     otherwise cannot_prove (format also in 2020-12, where the validator
//     treats it as an annotation: typeward is stricter than the validator).
//     A 2020-12 source's format proves nothing to a draft-07 target, which
//     asserts it: the source's values were never checked.
//   - Keywords the validator ignores (annotations, vendor x-… keywords) are
//     ignored; validating keywords that are not modeled ($dynamicRef,
//     $recursiveRef, unevaluated* beside in-place applicators) are
//     cannot_prove on the target side.
//   - Source-only restrictions that are not modeled (not, dependentSchemas,
//     …) are dropped, which widens the source: still sound for "compatible",
//     but an ERROR then assumes the witness is not excluded by them.
//
// Pointers in Issues are absolute in each document and name the innermost
// keyword that disagrees: for an array of objects into an array of strings,
// "/properties/rows/items/type" and "/properties/data/items/type".
//
// Results are memoized by (source digest, pointer, target digest, pointer,
// conditional) without labels; labels are applied on the way out.
package compat
