package composition

import (
	"fmt"
	"net/url"
	"strings"

	"github.com/typeward/typeward/internal/cache"
	"github.com/typeward/typeward/internal/compat"
	"github.com/typeward/typeward/internal/schema"
	"github.com/typeward/typeward/internal/verdict"
)

// synthesizedKey is the name of the subschema added to a copy of an output
// schema to describe a projected value ("entities[].name" is an array of
// names) or a field several subschemas describe at once.
const synthesizedKey = "typeward:source"

// synthesizer makes a checkable node for a source field: the field's own
// subschema when one pointer describes it, else a subschema added under
// $defs (definitions in draft-07) of a copy of the document, so that every
// local $ref of the original still resolves and every original pointer keeps
// its meaning.
type synthesizer struct {
	cache *cache.Cache[synthKey, *schema.Schema]
	// proofs memoizes path findings' witnesses (witness.go): finding one
	// may build and validate candidate outputs, a pure function of the
	// output schema and the path.
	proofs *cache.Cache[proofKey, pathProof]
}

func newSynthesizer() synthesizer {
	return synthesizer{cache: newSynthCache(synthCacheBytes), proofs: newPathCache[proofKey, pathProof](pathCacheBytes)}
}

func (s *synthesizer) node(doc *schema.Schema, f sourceField) (compat.Node, error) {
	if len(f.projections) == 0 && len(f.alts) == 0 && len(f.leaf) == 1 {
		return compat.Node{Schema: doc, Pointer: f.leaf[0]}, nil
	}
	fragment := fragmentOf(f)
	canon, err := schema.Canonical(fragment)
	if err != nil {
		return compat.Node{}, err
	}
	key := synthKey{doc.Digest, string(canon)}
	synth, ok := s.cache.Get(key)
	if !ok {
		if synth, err = withDefinition(doc, fragment); err != nil {
			return compat.Node{}, err
		}
		s.cache.Put(key, synth)
	}
	return compat.Node{Schema: synth, Pointer: "/" + definitionsKeyword(doc) + "/" + schema.EscapeToken(synthesizedKey)}, nil
}

// fragmentOf describes a source field as a subschema whose $refs point into
// the field's document: the conjunction (or, past a union, anyOf the
// branches), wrapped in one array per projection.
func fragmentOf(f sourceField) any {
	fragment := conjunction(f.leaf)
	if len(f.alts) > 0 {
		branches := make([]any, len(f.alts))
		for i, alt := range f.alts {
			branches[i] = fragmentOf(alt)
		}
		fragment = map[string]any{"anyOf": branches}
	}
	projections := f.projections
	if f.wholeArray {
		// The array itself: its uniqueItems, contains, unevaluatedItems, …
		// hold of the value too.
		last := projections[len(projections)-1]
		fragment = map[string]any{"type": "array", "allOf": []any{conjunction(last.arrays)}}
		projections = projections[:len(projections)-1]
	}
	for i := len(projections) - 1; i >= 0; i-- {
		arr := map[string]any{"type": "array", "items": fragment}
		if p := projections[i]; p.minItems != "" {
			arr["minItems"] = p.minItems
		}
		if p := projections[i]; p.maxItems != "" {
			arr["maxItems"] = p.maxItems
		}
		fragment = arr
	}
	return fragment
}

// withDefinition copies doc with fragment added as a definition. The copy is
// shallow: the decoded tree of a Schema is never modified.
func withDefinition(doc *schema.Schema, fragment any) (*schema.Schema, error) {
	root, ok := doc.Root.(map[string]any)
	if !ok {
		// A boolean document has no subschemas to refer to; the fragment
		// stands alone (it can only be unconstrained items).
		return schema.FromValue(map[string]any{definitionsKeyword(doc): map[string]any{synthesizedKey: fragment}})
	}
	kw := definitionsKeyword(doc)
	copyRoot := make(map[string]any, len(root)+1)
	for k, v := range root {
		copyRoot[k] = v
	}
	defs := map[string]any{}
	if existing, ok := root[kw].(map[string]any); ok {
		for k, v := range existing {
			defs[k] = v
		}
	}
	if _, taken := defs[synthesizedKey]; taken {
		return nil, fmt.Errorf("output schema already defines %q", synthesizedKey)
	}
	defs[synthesizedKey] = fragment
	copyRoot[kw] = defs
	return schema.FromValue(copyRoot)
}

func definitionsKeyword(doc *schema.Schema) string {
	if doc.Dialect == schema.Draft7 {
		return "definitions"
	}
	return "$defs"
}

// conjunction is a subschema satisfied by exactly the values that satisfy
// every pointer; no pointer at all is the unconstrained schema.
func conjunction(ptrs []string) any {
	switch len(ptrs) {
	case 0:
		return true
	case 1:
		return map[string]any{"$ref": refTo(ptrs[0])}
	}
	all := make([]any, len(ptrs))
	for i, p := range ptrs {
		all[i] = map[string]any{"$ref": refTo(p)}
	}
	return map[string]any{"allOf": all}
}

// refTo spells a JSON pointer as a URI fragment: each token percent-encoded.
func refTo(ptr string) string {
	if ptr == "" {
		return "#"
	}
	tokens := strings.Split(ptr[1:], "/")
	for i, t := range tokens {
		tokens[i] = url.PathEscape(t)
	}
	return "#/" + strings.Join(tokens, "/")
}

// originalPointer maps a pointer into a synthesized document back to the
// output schema: pointers inside the added definition name the projected
// array instead.
func originalPointer(doc *schema.Schema, f sourceField, ptr string) string {
	added := "/" + definitionsKeyword(doc) + "/" + schema.EscapeToken(synthesizedKey)
	if ptr == added || strings.HasPrefix(ptr, added+"/") {
		if f.arrayPtr != "" {
			return f.arrayPtr
		}
		return first(f.leaf)
	}
	return ptr
}

// lost is the first array keyword a synthesized projection of f drops
// (items.lost), "" when the projection says exactly what the output does.
// The array a path ends in is the array itself, so it drops nothing.
func (f sourceField) lost() string {
	projections := f.projections
	if f.wholeArray {
		projections = projections[:len(projections)-1]
	}
	for _, p := range projections {
		if p.lost != "" {
			return p.lost
		}
	}
	for _, alt := range f.alts {
		if l := alt.lost(); l != "" {
			return l
		}
	}
	return ""
}

// unprovenProjection is an Incompatible verdict on a projection that drops
// a keyword of the array: its witness holds under the synthesized schema,
// but may be no projection of an output, so it proves nothing.
func unprovenProjection(is verdict.Issue, lost string) verdict.Issue {
	is.Message = fmt.Sprintf("cannot confirm that %s (%s): the projection does not carry %s, so its witness may be no output's", is.Message, is.Code, lost)
	is.Verdict, is.Code, is.Witness, is.WitnessError = verdict.Unknown, verdict.CodeCannotProve, nil, nil
	return is
}
