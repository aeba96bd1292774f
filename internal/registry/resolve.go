package registry

import "github.com/typeward/typeward/internal/schema"

// Resolve loads and compiles the schemas of a stored version. A stored
// version passed Declare, so an error here means the store was tampered
// with or the schema package grew stricter since.
func Resolve(v ToolVersion) (*ResolvedTool, error) {
	in, err := schema.Parse(v.InputSchema)
	if err != nil {
		return nil, err
	}
	var out *schema.Schema
	if !absent(v.OutputSchema) {
		if out, err = schema.Parse(v.OutputSchema); err != nil {
			return nil, err
		}
	}
	return &ResolvedTool{Server: v.Server, Name: v.Name, Version: v.Version, Digest: v.Digest, Input: in, Output: out}, nil
}

// ResolvedFrom builds the ResolvedTool of a declaration just checked,
// reusing its compiled schemas.
func ResolvedFrom(d *Declaration, version int) *ResolvedTool {
	return &ResolvedTool{Server: d.Server, Name: d.Tool.Name, Version: version, Digest: d.Digest, Input: d.Input, Output: d.Output}
}
