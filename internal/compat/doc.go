// Package compat decides structural subtyping between JSON Schemas: whether
// every instance valid under a source schema is valid under a target schema.
//
// A check has three outcomes: no Issue (proven compatible), an ERROR
// (an instance of the source that the target rejects exists, with the
// reason), or a WARNING — cannot_prove, naming the keyword the rules could
// not decide, or one of the soft findings below. It is sound: "no Issue" is
// only returned when every rule on the way proved its part.
//
// How it works. The source is a view: a set of conjuncts (allOf, $ref with
// siblings, static $dynamicRef, dependentSchemas whose trigger is required of an
// object-only source;
// draft-07 ignores $ref siblings, as the validator does), negated schemas
// (not, the other branches of a split oneOf, the failed condition of an
// else) and required names. Source disjunctions (anyOf, oneOf,
// if/then/else) are split into branches that together are exactly the
// source, and every branch must fit. The target is split into its
// conjuncts ($ref, allOf, anyOf, oneOf, not, if) and its plain keywords,
// each checked against the source. A finite source (const, enum,
// null/boolean, a closed object of finite properties, or against an enum
// target a small integer range, bounded numbers in multipleOf steps, an
// anchored pattern of finite language) is decided value by value by the
// real validator. A target anyOf/oneOf of branches limited to numeric bounds
// or string lengths is proven when together they cover the source's range
// (cover.go); a target not/if is decided by disjointness (kinds, values,
// intervals, lengths, sizes, a property either side requires). Recursion on either side is
// handled coinductively: a comparison met again below a property or an
// item is assumed, one met again without descending proves nothing. Every
// check runs within a step budget; exhausting it is cannot_prove.
//
// The laws hold before any rule: a source conjunct equal to the target
// (canonical comparison with references followed, annotations aside)
// fits it whatever it holds (reflexivity); a source no value satisfies
// fits everything (emptiness: contradictory bounds of several conjuncts,
// disjoint types, a conjunct that is also negated or implies its own
// negation, a required name the object cannot have, size bounds against
// closed objects); a target that accepts every value takes every source
// (universality: true, {}, T ∨ ¬T). A source s ∧ ¬n fits t when each kind
// of s fits t or lies inside n.
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
//   - pattern is proven by the same keyword in the source, a finite source
//     checked by the validator, a target pattern every string matches, or a
//     source pattern whose strings all match it (literal prefix, finite
//     language, automaton inclusion on Go's compiled programs; pattern.go,
//     pattern_inclusion.go); a distinguishing string is the rule's witness;
//     otherwise cannot_prove. format follows the validator:
//     an annotation in 2020-12 (never rejects), an assertion in draft-07,
//     proven there only by the same format in a draft-07 source.
//   - keywords.go is the one table of every draft 2020-12 and draft-07
//     keyword: modeled, annotation, or unmodeled; an unmodeled validating
//     keyword on the target is cannot_prove naming it; annotations and
//     unknown keywords (vendor x-…) are ignored, as the validator does.
//     $dynamicRef/$recursiveRef are followed where the document has one
//     resource (then they land where a $ref would); otherwise they are
//     cannot_prove on the target and dropped from the source.
//   - Source restrictions that are not modeled are dropped, which widens
//     the source: still sound for "compatible", but an ERROR then assumes
//     the witness is not excluded by them.
//
// Pointers in Issues are absolute in each document and name the innermost
// keyword that disagrees: for an array of objects into an array of strings,
// "/properties/rows/items/type" and "/properties/data/items/type".
//
// Results are memoized by (source digest, pointer, target digest, pointer,
// conditional) without labels; labels are applied on the way out.
package compat
