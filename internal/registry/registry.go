// Package registry holds typeward's tool registry: MCP tool declarations,
// their immutable versions, approved server snapshots, stored compositions,
// and the Store interface every storage backend implements.
package registry

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/typeward/typeward/internal/schema"
	"github.com/typeward/typeward/verify"
)

// Sentinels every Store and Resolver returns (wrapped) so callers can map
// them to answers without knowing the backend.
var (
	ErrNotFound  = errors.New("not found")
	ErrConflict  = errors.New("conflict")
	ErrAmbiguous = errors.New("ambiguous tool name")
)

// Tool is an MCP Tool object as a server declares it in tools/list. Schemas
// stay raw so that nothing is rewritten before it is digested.
type Tool struct {
	Name         string          `json:"name"`
	Title        string          `json:"title,omitempty"`
	Description  string          `json:"description,omitempty"`
	InputSchema  json.RawMessage `json:"inputSchema,omitempty"`
	OutputSchema json.RawMessage `json:"outputSchema,omitempty"`
	Annotations  json.RawMessage `json:"annotations,omitempty"`
	Meta         json.RawMessage `json:"_meta,omitempty"`
}

// ResolvedTool is one version of a tool with its schemas loaded and
// compiled: what the composition validator checks edges against.
type ResolvedTool struct {
	Server  string // "" when the tool is not namespaced
	Name    string // the bare tool name
	Version int
	Digest  string         // digest over input and output schema digests
	Input   *schema.Schema // never nil for a registered tool
	Output  *schema.Schema // nil: the tool declares no outputSchema
}

// QualifiedName is "server/name", or the bare name without a server.
func (t *ResolvedTool) QualifiedName() string { return QualifiedName(t.Server, t.Name) }

// Resolver finds the schemas of a tool by name: "server/tool", or a bare
// tool name when exactly one server has it (else ErrAmbiguous). Version 0
// means the current version. Unknown names and versions are ErrNotFound.
type Resolver interface {
	ResolveTool(ctx context.Context, name string, version int) (*ResolvedTool, error)
}

// VersionDigest identifies a tool version by its schemas:
// verify.DeclarationDigest (RFC 8785) of the loaded schemas, which for a
// declaration that passed Declare is the digest of its schemas as
// declared.
func VersionDigest(input, output *schema.Schema) (string, error) {
	var out []byte
	if output != nil {
		out = output.Canonical
	}
	return verify.DeclarationDigest(input.Canonical, out)
}
