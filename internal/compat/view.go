package compat

import (
	"slices"
	"strconv"
	"strings"

	"github.com/typeward/typeward/internal/schema"
)

// Keywords of a node already accounted for elsewhere: a source node whose
// anyOf was split into branches, a target node whose $ref was checked on
// its own, and so on.
const (
	skRef uint16 = 1 << iota
	skAllOf
	skAnyOf
	skOneOf
	skNot
	skIf
)

// node is one subschema of a document: a boolean schema or an object.
type node struct {
	v    any            // true, false or the object
	m    map[string]any // the object, nil for a boolean schema
	ptr  string         // absolute JSON pointer in its document
	skip uint16
}

func newNode(v any, ptr string) node {
	m, _ := v.(map[string]any)
	return node{v: v, m: m, ptr: ptr}
}

// child is the subschema under keyword (and, for maps and arrays of
// schemas, under key).
func (n node) child(keyword string, key ...string) (node, bool) {
	v, ok := n.m[keyword]
	ptr := n.ptr + "/" + keyword
	for _, k := range key {
		if !ok {
			break
		}
		switch c := v.(type) {
		case map[string]any:
			v, ok = c[k]
		case []any:
			i, err := strconv.Atoi(k)
			ok = err == nil && i >= 0 && i < len(c)
			if ok {
				v = c[i]
			}
		default:
			ok = false
		}
		ptr += "/" + schema.EscapeToken(k)
	}
	if !ok {
		return node{}, false
	}
	if _, isBool := v.(bool); !isBool {
		if _, isMap := v.(map[string]any); !isMap {
			return node{}, false // not a schema position
		}
	}
	return newNode(v, ptr), true
}

// schemas lists the subschemas of an array-valued keyword (allOf, …).
func (n node) schemas(keyword string) []node {
	arr, _ := n.m[keyword].([]any)
	out := make([]node, 0, len(arr))
	for i := range arr {
		if c, ok := n.child(keyword, strconv.Itoa(i)); ok {
			out = append(out, c)
		}
	}
	return out
}

// view is the source side of a comparison: an instance satisfies every
// conjunct, and its kind is in types. Conjuncts come from allOf, $ref with
// siblings, and the property/item schemas of several conjuncts.
type view struct {
	conj  []node
	types Kinds
	at    string // pointer reported when conj is empty (an undeclared value)
}

func viewOf(nodes ...node) view {
	v := view{conj: nodes, types: AnyKind}
	if len(nodes) > 0 {
		v.at = nodes[0].ptr
	}
	return v
}

// normalize expands allOf and $ref into flat conjuncts, drops `true`, and
// computes the kinds the conjuncts allow. empty reports that no instance
// satisfies the source (a `false` conjunct or contradictory types), in
// which case anything is compatible.
func (r *run) normalize(s view) (out view, empty bool) {
	out = view{types: s.types, at: s.at, conj: make([]node, 0, len(s.conj)+2)}
	queue := slices.Clone(s.conj)
	seen := make(map[string]bool, len(queue))
	for len(queue) > 0 {
		n := queue[0]
		queue = queue[1:]
		if n.m == nil {
			if b, isBool := n.v.(bool); isBool && !b {
				return out, true
			}
			continue // true, or not a schema at all: no constraint we can use
		}
		if seen[n.ptr] {
			continue // a $ref cycle or a repeated schema: already a conjunct
		}
		seen[n.ptr] = true
		if ref, ok := n.m["$ref"].(string); ok && n.skip&skRef == 0 {
			v, ptr, err := r.src.Resolve(ref)
			if err == nil {
				queue = append(queue, newNode(v, ptr))
				if r.srcD7 {
					continue // draft-07 ignores every sibling of $ref
				}
			}
			// An unresolvable $ref cannot occur in a loaded schema; ignoring
			// it only widens the source, which is sound.
			n.skip |= skRef
		}
		if _, ok := n.m["allOf"]; ok && n.skip&skAllOf == 0 {
			queue = append(queue, n.schemas("allOf")...)
			n.skip |= skAllOf
		}
		out.types &= keywordKinds(n.m)
		if requiresForbidden(n) {
			out.types &^= KindObject
		}
		out.conj = append(out.conj, n)
	}
	return out, out.types == 0
}

// key identifies a (source, target) comparison for the coinductive
// assumption set.
func (s view) key(t node) string {
	var b strings.Builder
	for _, n := range s.conj {
		b.WriteString(n.ptr)
		b.WriteByte('#')
		b.WriteString(strconv.Itoa(int(n.skip)))
		b.WriteByte('|')
	}
	b.WriteString(strconv.Itoa(int(s.types)))
	b.WriteString("->")
	b.WriteString(t.ptr)
	b.WriteByte('#')
	b.WriteString(strconv.Itoa(int(t.skip)))
	return b.String()
}

// srcKeywordPtr points at the first conjunct that states keyword, or at the
// first conjunct (the schema the source field resolved to).
func (r *run) srcKeywordPtr(s view, keyword string) string {
	for _, n := range s.conj {
		if _, ok := n.m[keyword]; ok {
			return n.ptr + "/" + keyword
		}
	}
	return r.srcPtr(s)
}

func (r *run) srcPtr(s view) string {
	if len(s.conj) > 0 {
		return s.conj[0].ptr
	}
	return s.at
}

// requiresForbidden: the node requires a property whose schema is false, so
// no object satisfies it (other kinds still may: required applies to
// objects only).
func requiresForbidden(n node) bool {
	for _, name := range stringList(n.m["required"]) {
		if c, ok := n.child("properties", name); ok && isFalse(c) {
			return true
		}
	}
	return false
}
