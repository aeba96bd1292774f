// Package schema loads JSON Schema documents under bounds, refuses anything
// that would load a resource from outside the document, compiles them with
// santhosh-tekuri/jsonschema, and gives each a canonical digest.
package schema

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// Dialect is the JSON Schema draft a document is written in.
type Dialect string

const (
	Draft2020 Dialect = "2020-12"
	Draft7    Dialect = "draft-07"
	Draft4    Dialect = "draft-04" // held as its draft-07 reading, see draft4.go
)

// resourceURL is where a document lives inside its private compiler. It has
// no meaning outside this package and is never fetched.
const resourceURL = "urn:typeward:schema"

// Schema is one loaded, bounded, compiled document.
type Schema struct {
	Root      any     // decoded document (a draft-04 one: its draft-07 reading); numbers are json.Number
	Canonical []byte  // sorted keys, no whitespace
	Digest    string  // "sha256:…" of Canonical
	Dialect   Dialect // the dialect Root is read in: Draft7 for a draft-04 document
	Declared  Dialect // what $schema declares (Draft4 for a draft-04 document)

	resources   []resource // [0] is the document; then every embedded $id
	dynamicRefs bool       // some $dynamicRef or $recursiveRef

	metaschemaRefs bool // some reference lands in a standard metaschema
	dynamicAnchors bool // some $dynamicAnchor or $recursiveAnchor

	mu       sync.Mutex
	compiler *jsonschema.Compiler
	compiled map[string]*jsonschema.Schema // by JSON pointer

	derivedMu sync.Mutex
	derived   map[string]any // see Derived
}

// Derived is the analysis of the whole document that build computes, built
// once per document and key and shared by every reader (a document never
// changes once loaded). Its size is bounded by the keys its callers use,
// one per kind of analysis; build must not call Derived.
func (s *Schema) Derived(key string, build func() any) any {
	s.derivedMu.Lock()
	defer s.derivedMu.Unlock()
	if v, ok := s.derived[key]; ok {
		return v
	}
	if s.derived == nil {
		s.derived = map[string]any{}
	}
	v := build()
	s.derived[key] = v
	return v
}

// Parse decodes and loads a schema document.
func Parse(data []byte) (*Schema, error) {
	if len(data) > MaxDocumentBytes {
		return nil, &Error{Kind: ErrTooLarge, Detail: fmt.Sprintf("%d bytes, at most %d", len(data), MaxDocumentBytes)}
	}
	if err := checkDepth(data); err != nil {
		return nil, err
	}
	doc, err := decode(data)
	if err != nil {
		return nil, err
	}
	return load(doc)
}

// FromValue loads an already decoded document (numbers should be json.Number
// so that precision is kept; float64 is accepted).
func FromValue(doc any) (*Schema, error) {
	// Round-trip through canonical bytes: this bounds size and detaches the
	// document from the caller's maps, which we must never share.
	canon, err := Canonical(doc)
	if err != nil {
		return nil, &Error{Kind: ErrSyntax, Detail: err.Error()}
	}
	return Parse(canon)
}

func load(doc any) (*Schema, error) {
	switch doc.(type) {
	case map[string]any, bool:
	default:
		return nil, &Error{Kind: ErrInvalid, Detail: fmt.Sprintf("a schema is an object or a boolean, not %s", DescribeValue(doc))}
	}
	dialect, err := dialectOf(doc)
	if err != nil {
		return nil, err
	}
	w := walker{schemas: map[string]bool{}}
	if err := w.walk(doc, "", Subschema); err != nil {
		return nil, err
	}
	canon, err := Canonical(doc)
	if err != nil {
		return nil, &Error{Kind: ErrSyntax, Detail: err.Error()}
	}
	s := &Schema{
		Root:      doc,
		Canonical: canon,
		Digest:    Digest(canon),
		Dialect:   dialect,
		Declared:  dialect,
		compiled:  map[string]*jsonschema.Schema{},
	}
	var draft4Targets map[string]bool
	if dialect == Draft4 {
		s.Root, draft4Targets = fromDraft4(doc)
		s.Dialect = Draft7
	}
	rootBase, _ := url.Parse(resourceURL)
	s.resources, err = collectResources(s.Root, "", rootBase, []resource{{ptr: "", base: rootBase}})
	if err != nil {
		return nil, err
	}
	// Every local $ref must land somewhere: checked before compiling so the error
	// names the reference, and so a registered schema always resolves. A
	// reference may land in data (an unknown keyword), which the validator
	// then reads as a schema: so is it walked, and its references checked.
	for i := 0; i < len(w.refs); i++ {
		ref := w.refs[i]
		if ref.keyword != "$ref" && s.Dialect == Draft7 {
			continue // not a keyword in draft-07 (nor draft-04): the validator ignores it
		}
		from := ref.at[:strings.LastIndexByte(ref.at, '/')]
		_, landed, err := s.ResolveFrom(from, ref.ref)
		if errors.Is(err, ErrRemoteRef) && s.metaschemaRef(from, ref.ref) {
			s.metaschemaRefs = true
			continue // the validator holds it built in
		}
		if err == nil && draft4Targets != nil {
			err = checkDraft4Target(draft4Targets, ref.at, ref.ref, landed)
		}
		if err != nil {
			if errors.Is(err, ErrInvalid) {
				return nil, err
			}
			if errors.Is(err, ErrRemoteRef) {
				return nil, &Error{Kind: ErrRemoteRef, Pointer: ref.at, Detail: fmt.Sprintf("%q: only references to this document (or a resource it embeds) are allowed", ref.ref)}
			}
			return nil, &Error{Kind: ErrRefUnresolved, Pointer: ref.at, Detail: fmt.Sprintf("%q", ref.ref)}
		}
		if !w.schemas[landed] {
			target, _ := lookup(doc, landed)
			if err := w.walk(target, landed, Subschema); err != nil {
				return nil, err
			}
		}
	}
	s.dynamicRefs = w.dynamicRefs
	s.dynamicAnchors = w.dynamicAnchors
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	c.UseLoader(refuseLoader{})
	if err := c.AddResource(resourceURL, doc); err != nil {
		return nil, &Error{Kind: ErrInvalid, Detail: compileProblem(err)}
	}
	s.compiler = c
	if _, err := s.validatorAt(""); err != nil {
		return nil, err
	}
	return s, nil
}

func dialectOf(doc any) (Dialect, error) {
	obj, ok := doc.(map[string]any)
	if !ok {
		return Draft2020, nil
	}
	raw, present := obj["$schema"]
	if !present {
		return Draft2020, nil
	}
	uri, ok := raw.(string)
	if !ok {
		return "", &Error{Kind: ErrDialect, Pointer: "/$schema", Detail: "$schema must be a string"}
	}
	norm := strings.TrimSuffix(strings.TrimPrefix(strings.TrimPrefix(uri, "https://"), "http://"), "#")
	switch norm {
	case "json-schema.org/draft/2020-12/schema":
		return Draft2020, nil
	case "json-schema.org/draft-07/schema":
		return Draft7, nil
	case "json-schema.org/draft-04/schema":
		return Draft4, nil
	}
	return "", &Error{Kind: ErrDialect, Pointer: "/$schema", Detail: fmt.Sprintf("%q: typeward accepts JSON Schema 2020-12 (the default), draft-07 and draft-04", uri)}
}

// Validate reports whether v is an instance of the whole document.
func (s *Schema) Validate(v any) error { return s.ValidateAt("", v) }

// ValidateAt validates v against the subschema at pointer. Subschemas are
// compiled on first use and kept.
func (s *Schema) ValidateAt(pointer string, v any) (err error) {
	sch, err := s.validatorAt(pointer)
	if err != nil {
		return err
	}
	// The validator is a dependency: a panic in it must not reach a request.
	defer func() {
		if r := recover(); r != nil {
			err = &Error{Kind: ErrInvalid, Pointer: pointer, Detail: fmt.Sprintf("validator failed: %v", r)}
		}
	}()
	return sch.Validate(v)
}

func (s *Schema) validatorAt(pointer string) (_ *jsonschema.Schema, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	defer func() {
		if r := recover(); r != nil {
			err = &Error{Kind: ErrInvalid, Pointer: pointer, Detail: fmt.Sprintf("compiler failed: %v", r)}
		}
	}()
	if sch, ok := s.compiled[pointer]; ok {
		return sch, nil
	}
	sch, err := s.compiler.Compile(resourceURL + "#" + pointer)
	if err != nil {
		var lu *jsonschema.LoadURLError
		if errors.As(err, &lu) {
			return nil, &Error{Kind: ErrRemoteRef, Pointer: pointer, Detail: lu.URL}
		}
		return nil, &Error{Kind: ErrInvalid, Pointer: pointer, Detail: compileProblem(err)}
	}
	s.compiled[pointer] = sch
	return sch, nil
}

// compileProblem is the compiler's complaint on one line that names the
// place. For a metaschema violation the library prints a tree that starts
// with our internal resource URL; the first innermost failure ("at '/type':
// value must be one of …") is what the schema's author has to fix.
func compileProblem(err error) string {
	var invalid *jsonschema.SchemaValidationError
	var failure *jsonschema.ValidationError
	if !errors.As(err, &invalid) || !errors.As(invalid.Err, &failure) {
		return err.Error()
	}
	return FirstFailure(failure).Error()
}

// FirstFailure is the first innermost failure of the validator's error
// tree: the keyword that refused, where the instance's author has to look.
func FirstFailure(ve *jsonschema.ValidationError) *jsonschema.ValidationError {
	for len(ve.Causes) > 0 {
		ve = ve.Causes[0]
	}
	return ve
}

// refuseLoader is the compiler's only loader: typeward never fetches a
// schema, from the network or from the file system.
type refuseLoader struct{}

func (refuseLoader) Load(url string) (any, error) {
	return nil, fmt.Errorf("typeward does not load external schemas (%s)", url)
}

// DescribeValue names the JSON kind of a decoded value for a message: "null",
// "a boolean", "a number", "a string", "an array", "an object".
func DescribeValue(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "a boolean"
	case json.Number, float64:
		return "a number"
	case string:
		return "a string"
	case []any:
		return "an array"
	case map[string]any:
		return "an object"
	}
	return fmt.Sprintf("%T", v)
}
