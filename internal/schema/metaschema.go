package schema

import (
	"net/url"
	"strings"
)

// The standard metaschemas a schema may reference (a tool that takes a JSON
// Schema as an argument says so with {"$ref": ".../draft/2020-12/schema"}).
// The validator carries them built in and never fetches them; every other
// reference outside the document stays refused (ErrRemoteRef).
var metaschemas = map[string]bool{
	"json-schema.org/draft/2020-12/schema": true,
	"json-schema.org/draft/2019-09/schema": true,
	"json-schema.org/draft-07/schema":      true,
	"json-schema.org/draft-04/schema":      true,
}

// metaschemaRef reports that the reference ref, written in the subschema at
// pointer from, names a standard metaschema (any fragment of it: the
// compiler resolves the fragment in its built-in copy).
func (s *Schema) metaschemaRef(from, ref string) bool {
	_, ok := s.MetaschemaTarget(from, ref)
	return ok
}

// MetaschemaTarget names where the reference ref, written in the subschema
// at pointer from, lands when it lands in a standard metaschema: the
// metaschema without its scheme (http and https name the same built-in
// copy) and the fragment, e.g. "json-schema.org/draft-07/schema#/definitions/a".
func (s *Schema) MetaschemaTarget(from, ref string) (string, bool) {
	u, err := s.resourceAt(from).base.Parse(ref)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.User != nil || u.RawQuery != "" || u.Port() != "" {
		return "", false
	}
	doc := strings.TrimPrefix((&url.URL{Host: u.Host, Path: u.Path}).String(), "//")
	if !metaschemas[doc] {
		return "", false
	}
	return doc + "#" + u.Fragment, true
}

// ExtendsMetaschema reports that the document declares a $dynamicAnchor or
// $recursiveAnchor, where a metaschema's dynamic references may land when
// it is applied from the document: a reference to one then means more
// than the metaschema alone.
func (s *Schema) ExtendsMetaschema() bool { return s.dynamicAnchors }

// ReferencesMetaschema reports that some reference of the document lands in
// a standard metaschema. The readers of Root cannot follow such a
// reference (its target is not in the document): ResolveFrom answers
// ErrRemoteRef for it, and the checker decides such a pair only by the
// validator (see internal/compat).
func (s *Schema) ReferencesMetaschema() bool { return s.metaschemaRefs }
