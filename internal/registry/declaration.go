package registry

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/typeward/typeward/internal/schema"
	"github.com/typeward/typeward/verify"
)

// ErrInvalidDeclaration is wrapped by *DeclarationError: the store refused a
// tool declaration and changed nothing.
var ErrInvalidDeclaration = errors.New("invalid tool declaration")

// Declaration problem codes. The first four are also drift finding codes.
const (
	CodeInvalidName          = "invalid_name"
	CodeMissingInputSchema   = "missing_input_schema"
	CodeNullInputSchema      = "null_input_schema"
	CodeNonObjectInputSchema = "non_object_input_schema"
	CodeInvalidInputSchema   = "invalid_input_schema"
	CodeInvalidOutputSchema  = "invalid_output_schema"
	CodeInvalidAnnotations   = "invalid_annotations"
	CodeInvalidMeta          = "invalid_meta"
	CodeInvalidText          = "invalid_text"
	CodeDuplicateName        = "duplicate_name"
	CodeInvalidServer        = "invalid_server"
	CodeUndigestable         = "undigestable_schema"
)

// Problem is one reason a declaration is refused.
type Problem struct {
	Tool    string `json:"tool"`              // the name as declared, possibly invalid
	Code    string `json:"code"`              // one of the Code* constants
	Pointer string `json:"pointer,omitempty"` // JSON pointer into the schema, when known
	Message string `json:"message"`
}

func (p Problem) String() string {
	at := ""
	if p.Pointer != "" {
		at = " at " + p.Pointer
	}
	return fmt.Sprintf("%s: %s%s: %s", displayName(p.Tool), p.Code, at, p.Message)
}

// DeclarationError lists every problem of a refused declaration at once.
type DeclarationError struct {
	Problems []Problem
}

func (e *DeclarationError) Error() string {
	parts := make([]string, len(e.Problems))
	for i, p := range e.Problems {
		parts[i] = p.String()
	}
	return ErrInvalidDeclaration.Error() + ": " + strings.Join(parts, "; ")
}

func (e *DeclarationError) Unwrap() error { return ErrInvalidDeclaration }

// MaxServerNameLength caps a server name; the MCP spec sets no rule, but a
// server name is part of every qualified tool name and token scope.
const MaxServerNameLength = 256

// ValidToolName reports whether name follows the MCP tool-name rule:
// 1 to 128 characters of A-Z a-z 0-9 _ - . (so never a "/", which
// separates the server in a qualified name).
func ValidToolName(name string) bool {
	if len(name) == 0 || len(name) > MaxToolNameLength {
		return false
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_' || c == '-' || c == '.') {
			return false
		}
	}
	return true
}

func checkServerName(server string) error {
	if len(server) > MaxServerNameLength {
		return fmt.Errorf("server name of %d bytes, at most %d", len(server), MaxServerNameLength)
	}
	if !utf8.ValidString(server) {
		return errors.New("server name is not valid UTF-8")
	}
	for _, r := range server {
		if unicode.IsSpace(r) || unicode.IsControl(r) {
			return fmt.Errorf("server name %q contains whitespace or a control character", server)
		}
	}
	return nil
}

// Declaration is a tool declaration that passed every check, with its
// schemas loaded and digested: what a Store records.
type Declaration struct {
	Server string
	Tool   Tool // schemas verbatim as declared
	Input  *schema.Schema
	Output *schema.Schema // nil: no outputSchema
	Digest string         // verify.DeclarationDigest of the declared schemas
}

// OutputDigest is the output schema's digest, "" without one.
func (d *Declaration) OutputDigest() string {
	if d.Output == nil {
		return ""
	}
	return d.Output.Digest
}

// Declare checks a tool declaration for server ("" for none) and returns it
// loaded, or a *DeclarationError naming every problem found.
func Declare(server string, t Tool) (*Declaration, error) {
	d, problems := check(server, t)
	if len(problems) > 0 {
		return nil, &DeclarationError{Problems: problems}
	}
	return d, nil
}

// CheckDeclaration returns every problem with one tool declaration, in a
// fixed order: name, inputSchema, outputSchema.
func CheckDeclaration(t Tool) []Problem {
	_, problems := check("", t)
	return problems
}

func check(server string, t Tool) (*Declaration, []Problem) {
	var problems []Problem
	add := func(code, pointer, format string, args ...any) {
		problems = append(problems, Problem{Tool: t.Name, Code: code, Pointer: pointer, Message: fmt.Sprintf(format, args...)})
	}
	if err := checkServerName(server); err != nil {
		add(CodeInvalidServer, "", "%v", err)
	}
	if !ValidToolName(t.Name) {
		add(CodeInvalidName, "", "%s is not 1 to %d characters of A-Z a-z 0-9 _ - .", quoteName(t.Name), MaxToolNameLength)
	}
	t = CloneTool(t) // a store keeps the raw bytes; the caller may reuse its own
	d := &Declaration{Server: server, Tool: t}
	raw := bytes.TrimSpace(t.InputSchema)
	switch {
	case len(raw) == 0:
		add(CodeMissingInputSchema, "", "no inputSchema: MCP requires one, an object schema")
	case string(raw) == "null":
		add(CodeNullInputSchema, "", "inputSchema is null: MCP requires an object schema")
	case raw[0] != '{':
		add(CodeNonObjectInputSchema, "", "inputSchema is %s, not an object schema", jsonKindOf(raw))
	case !utf8.Valid(raw):
		add(CodeInvalidInputSchema, "", "%s", errNotUTF8)
	default:
		in, err := schema.Parse(raw)
		if err != nil {
			add(CodeInvalidInputSchema, schemaPointer(err), "%s", schemaReason(err))
		} else if typ, ok := rootTypeNotObject(in.Root); ok {
			if typ == "no type" {
				add(CodeNonObjectInputSchema, "", "inputSchema has no type: MCP requires type \"object\" (a parameterless tool declares {\"type\":\"object\"})")
			} else {
				add(CodeNonObjectInputSchema, "/type", "inputSchema has %s: MCP requires type \"object\"", typ)
			}
		} else {
			d.Input = in
		}
	}
	if out := bytes.TrimSpace(t.OutputSchema); len(out) > 0 && string(out) != "null" {
		s, err := schema.Parse(out)
		if err == nil && !utf8.Valid(out) {
			err = errNotUTF8
		}
		if err != nil {
			add(CodeInvalidOutputSchema, schemaPointer(err), "%s", schemaReason(err))
		} else {
			d.Output = s
		}
	}
	// Text that no database column holds (Postgres text refuses NUL and
	// invalid UTF-8, which JSON's \u0000 lets through) is refused here, so
	// that every store gives the same answer.
	for _, f := range []struct{ member, value string }{{"title", t.Title}, {"description", t.Description}} {
		if !utf8.ValidString(f.value) || strings.ContainsRune(f.value, 0) {
			add(CodeInvalidText, "", "%s contains a NUL character or bytes that are not UTF-8", f.member)
		}
	}
	if !absentOrObject(t.Annotations) {
		add(CodeInvalidAnnotations, "", "annotations must be a JSON object in UTF-8")
	}
	if !absentOrObject(t.Meta) {
		add(CodeInvalidMeta, "", "_meta must be a JSON object in UTF-8")
	}
	if len(problems) > 0 {
		return nil, problems
	}
	// The digest is over the schemas as declared, as a router recomputes it
	// from tools/list.
	digest, err := verify.DeclarationDigest(t.InputSchema, t.OutputSchema)
	if err != nil {
		add(CodeUndigestable, "", "%v (RFC 8785 digests need I-JSON schemas)", err)
		return nil, problems
	}
	d.Digest = digest
	return d, nil
}

// rootTypeNotObject reports the root "type" when it does not allow an
// object. MCP requires inputSchema to declare type "object"; a schema
// without "type" (e.g. {}) also admits strings and arrays as arguments, so
// it is refused too: a parameterless tool declares {"type":"object"}.
func rootTypeNotObject(root any) (string, bool) {
	obj, ok := root.(map[string]any)
	if !ok {
		return "", false // a boolean schema cannot occur: raw starts with '{'
	}
	typ, present := obj["type"]
	if !present {
		return "no type", true
	}
	switch typ := typ.(type) {
	case string:
		if typ == "object" {
			return "", false
		}
	case []any:
		for _, e := range typ {
			if e == "object" {
				return "", false
			}
		}
	}
	enc, _ := json.Marshal(typ)
	return "type " + string(enc), true
}

func schemaPointer(err error) string {
	var se *schema.Error
	if errors.As(err, &se) {
		return se.Pointer
	}
	return ""
}

// schemaReason is the schema error without its pointer, which Problem
// carries on its own, on one line (the compiler's reasons span several).
func schemaReason(err error) string {
	reason := err.Error()
	var se *schema.Error
	if errors.As(err, &se) {
		reason = se.Kind.Error()
		if se.Detail != "" {
			reason += ": " + se.Detail
		}
	}
	return strings.Join(strings.Fields(reason), " ")
}

func jsonKindOf(raw []byte) string {
	switch raw[0] {
	case '[':
		return "an array"
	case '"':
		return "a string"
	case 't', 'f':
		return "a boolean"
	}
	if json.Valid(raw) {
		return "a number"
	}
	return "not JSON"
}

func quoteName(name string) string {
	if name == "" {
		return "the empty name"
	}
	return fmt.Sprintf("%q", name)
}

func displayName(name string) string {
	if name == "" {
		return `""`
	}
	return name
}

// DeclareAll checks a whole tools/list for server, every problem of every
// tool at once, including a name listed twice.
func DeclareAll(server string, tools []Tool) ([]*Declaration, error) {
	var problems []Problem
	decls := make([]*Declaration, 0, len(tools))
	seen := map[string]bool{}
	for _, t := range tools {
		d, ps := check(server, t)
		if seen[t.Name] {
			ps = append(ps, Problem{Tool: t.Name, Code: CodeDuplicateName, Message: "listed more than once; MCP tool names are unique per server"})
		}
		seen[t.Name] = true
		problems = append(problems, ps...)
		decls = append(decls, d)
	}
	if len(problems) > 0 {
		return nil, &DeclarationError{Problems: problems}
	}
	return decls, nil
}

// CheckServer checks a server name on its own (snapshots are imported
// before their tools are checked).
func CheckServer(server string) error {
	if err := checkServerName(server); err != nil {
		return &DeclarationError{Problems: []Problem{{Code: CodeInvalidServer, Message: err.Error()}}}
	}
	return nil
}

func absentOrObject(raw json.RawMessage) bool {
	if absent(raw) {
		return true
	}
	_, ok := canonicalJSON(raw)
	return ok && bytes.TrimSpace(raw)[0] == '{' && utf8.Valid(raw)
}

// errNotUTF8 refuses JSON text that is not UTF-8 (RFC 8259 §8.1): Go's
// decoder would replace the bad bytes, but a store keeps the text verbatim
// and Postgres refuses it.
var errNotUTF8 = errors.New("schema is not UTF-8 text, as JSON must be")

// SameMetadata reports whether two declarations agree on everything but
// their schemas (title, description, annotations, _meta; JSON compared
// canonically).
func SameMetadata(a, b Tool) bool {
	return a.Title == b.Title && a.Description == b.Description &&
		sameJSON(a.Annotations, b.Annotations) && sameJSON(a.Meta, b.Meta)
}
