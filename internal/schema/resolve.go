package schema

import (
	"fmt"
	"maps"
	"net/url"
	"slices"
	"strconv"
	"strings"
)

// At returns the value at a JSON pointer ("" is the root).
func (s *Schema) At(pointer string) (any, bool) {
	return lookup(s.Root, pointer)
}

// Resolve follows one local reference ("#/…" pointer or "#name" anchor) and
// returns the referenced value with its JSON pointer.
func (s *Schema) Resolve(ref string) (any, string, error) {
	if !strings.HasPrefix(ref, "#") {
		return nil, "", &Error{Kind: ErrRemoteRef, Detail: fmt.Sprintf("%q", ref)}
	}
	frag, err := url.PathUnescape(ref[1:])
	if err != nil {
		return nil, "", &Error{Kind: ErrRefUnresolved, Detail: fmt.Sprintf("%q: %v", ref, err)}
	}
	if frag == "" || strings.HasPrefix(frag, "/") {
		v, ok := lookup(s.Root, frag)
		if !ok {
			return nil, "", &Error{Kind: ErrRefUnresolved, Detail: fmt.Sprintf("%q", ref)}
		}
		return v, frag, nil
	}
	if p, ok := findAnchor(s.Root, frag, ""); ok {
		v, _ := lookup(s.Root, p)
		return v, p, nil
	}
	return nil, "", &Error{Kind: ErrRefUnresolved, Detail: fmt.Sprintf("%q: no such anchor", ref)}
}

// ResolveFrom follows a reference written in the subschema at pointer
// from. References are resolved against the resource that holds them: in a
// bundled document (embedded resources with their own $id) "#/…" is
// relative to the nearest enclosing $id, and "other#/…" names another
// resource of the document. A reference to a resource the document does
// not hold is ErrRemoteRef: typeward never loads one.
func (s *Schema) ResolveFrom(from, ref string) (any, string, error) {
	if len(s.resources) <= 1 && strings.HasPrefix(ref, "#") {
		return s.Resolve(ref)
	}
	res := s.resourceAt(from)
	u, err := res.base.Parse(ref)
	if err != nil {
		return nil, "", &Error{Kind: ErrRefUnresolved, Detail: fmt.Sprintf("%q: %v", ref, err)}
	}
	frag := u.Fragment
	u.Fragment, u.RawFragment = "", ""
	target, ok := s.resourceNamed(u.String())
	if !ok {
		return nil, "", &Error{Kind: ErrRemoteRef, Detail: fmt.Sprintf("%q: only references to this document (or a resource it embeds) are allowed", ref)}
	}
	if frag == "" || strings.HasPrefix(frag, "/") {
		p := target.ptr + frag
		v, ok := lookup(s.Root, p)
		if !ok {
			return nil, "", &Error{Kind: ErrRefUnresolved, Detail: fmt.Sprintf("%q", ref)}
		}
		return v, p, nil
	}
	root, _ := lookup(s.Root, target.ptr)
	if p, ok := findAnchorIn(root, frag, target.ptr, true, true); ok {
		v, _ := lookup(s.Root, p)
		return v, p, nil
	}
	return nil, "", &Error{Kind: ErrRefUnresolved, Detail: fmt.Sprintf("%q: no such anchor", ref)}
}

// ResolveDynamic follows a $dynamicRef or $recursiveRef written at pointer
// from when its target does not depend on the dynamic scope: in a document
// of one resource every resource of any scope is that one, so the
// reference lands where a $ref would. ok is false otherwise.
func (s *Schema) ResolveDynamic(from, ref string) (any, string, bool) {
	if s.DynamicScoped() {
		return nil, "", false
	}
	v, p, err := s.ResolveFrom(from, ref)
	return v, p, err == nil
}

// DynamicScoped reports that the document bundles several resources, so a
// $dynamicRef or $recursiveRef may land in a different resource depending
// on the path that reached it; ResolveDynamic then refuses those
// references.
func (s *Schema) DynamicScoped() bool { return len(s.resources) > 1 && s.dynamicRefs }

// resource is one schema resource of a document: where it sits and its
// base URI.
type resource struct {
	ptr  string
	base *url.URL
}

// resourceAt is the innermost resource holding pointer p.
func (s *Schema) resourceAt(p string) resource {
	best := s.resources[0]
	for _, r := range s.resources[1:] {
		if (p == r.ptr || strings.HasPrefix(p, r.ptr+"/")) && len(r.ptr) > len(best.ptr) {
			best = r
		}
	}
	return best
}

func (s *Schema) resourceNamed(uri string) (resource, bool) {
	for _, r := range s.resources {
		if r.base.String() == uri {
			return r, true
		}
	}
	return resource{}, false
}

// collectResources finds every subschema with its own $id (a URI, not a
// draft-07 "#anchor"), in schema positions only, with its base resolved
// against the enclosing one.
func collectResources(v any, ptr string, base *url.URL, out []resource) ([]resource, error) {
	obj, ok := v.(map[string]any)
	if !ok {
		return out, nil
	}
	if id, ok := obj["$id"].(string); ok && !strings.HasPrefix(id, "#") {
		u, err := base.Parse(id)
		if err != nil {
			return nil, &Error{Kind: ErrInvalid, Pointer: ptr + "/$id", Detail: fmt.Sprintf("%q: %v", id, err)}
		}
		u.Fragment, u.RawFragment = "", ""
		base = u
		if ptr != "" {
			for _, r := range out {
				if r.base.String() == u.String() {
					return nil, &Error{Kind: ErrInvalid, Pointer: ptr + "/$id", Detail: fmt.Sprintf("%q: two resources with one $id", id)}
				}
			}
			out = append(out, resource{ptr: ptr, base: u})
		} else {
			out[0].base = u
		}
	}
	var err error
	for _, k := range slices.Sorted(maps.Keys(obj)) {
		here := ptr + "/" + EscapeToken(k)
		switch PositionOf(k, obj[k]) {
		case Subschema:
			out, err = collectResources(obj[k], here, base, out)
		case SchemaList:
			for i, e := range obj[k].([]any) {
				if out, err = collectResources(e, here+"/"+strconv.Itoa(i), base, out); err != nil {
					return nil, err
				}
			}
		case SchemaMap:
			m, _ := obj[k].(map[string]any)
			for _, n := range slices.Sorted(maps.Keys(m)) {
				if out, err = collectResources(m[n], here+"/"+EscapeToken(n), base, out); err != nil {
					return nil, err
				}
			}
		}
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

// findAnchor looks for an anchor where the validator does: in subschemas
// only. A "$anchor" inside data (const, enum, default, examples) or an
// unknown keyword names nothing; following it would check against the wrong
// schema. Keys are visited in order so the answer never depends on map order.
func findAnchor(v any, name, pointer string) (string, bool) {
	return findAnchorIn(v, name, pointer, false, true)
}

// findAnchorIn is findAnchor within one resource: with scoped set, an
// embedded resource (its own $id) below v is not searched, since its
// anchors belong to it.
func findAnchorIn(v any, name, pointer string, scoped, top bool) (string, bool) {
	obj, ok := v.(map[string]any)
	if !ok {
		return "", false
	}
	if id, ok := obj["$id"].(string); ok && scoped && !top && !strings.HasPrefix(id, "#") {
		return "", false
	}
	if a, ok := obj["$anchor"].(string); ok && a == name {
		return pointer, true
	}
	if a, ok := obj["$dynamicAnchor"].(string); ok && a == name {
		return pointer, true
	}
	if id, ok := obj["$id"].(string); ok && id == "#"+name { // draft-07 anchors
		return pointer, true
	}
	for _, k := range slices.Sorted(maps.Keys(obj)) {
		here := pointer + "/" + EscapeToken(k)
		switch PositionOf(k, obj[k]) {
		case Subschema:
			if p, ok := findAnchorIn(obj[k], name, here, scoped, false); ok {
				return p, true
			}
		case SchemaList:
			for i, e := range obj[k].([]any) {
				if p, ok := findAnchorIn(e, name, here+"/"+strconv.Itoa(i), scoped, false); ok {
					return p, true
				}
			}
		case SchemaMap:
			m, _ := obj[k].(map[string]any)
			for _, n := range slices.Sorted(maps.Keys(m)) {
				if p, ok := findAnchorIn(m[n], name, here+"/"+EscapeToken(n), scoped, false); ok {
					return p, true
				}
			}
		}
	}
	return "", false
}
