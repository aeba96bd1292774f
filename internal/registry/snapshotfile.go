package registry

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// ParseSnapshotFile reads a tools file in any shape ParseToolsFile knows,
// but keeps every tool as listed: a bad name, a missing or null schema, a
// name listed twice are what drift checking reports, so they must not stop
// the reading. Only a document that is not one of the shapes, or a page
// of a paginated result, is an error (wrapping ErrToolsFile).
func ParseSnapshotFile(data []byte) ([]ServerTools, error) {
	if len(data) > MaxToolsFileBytes {
		return nil, toolsFileErr("%d bytes, at most %d", len(data), MaxToolsFileBytes)
	}
	trimmed := bytes.TrimSpace(data)
	if len(trimmed) > 0 && trimmed[0] == '[' {
		tools, err := decodeListedTools(trimmed, "top level")
		return []ServerTools{{Tools: tools}}, err
	}
	var top struct {
		Tools      json.RawMessage `json:"tools"`
		NextCursor *string         `json:"nextCursor"`
		Servers    []struct {
			Server string          `json:"server"`
			Tools  json.RawMessage `json:"tools"`
		} `json:"servers"`
	}
	if err := json.Unmarshal(trimmed, &top); err != nil {
		return nil, toolsFileErr("%s", jsonProblem(err))
	}
	switch {
	case top.Tools != nil && top.Servers != nil:
		return nil, toolsFileErr(`both "tools" and "servers": use one shape`)
	case top.Tools != nil:
		if top.NextCursor != nil && *top.NextCursor != "" {
			return nil, toolsFileErr("nextCursor is set: this is one page of a paginated tools/list; concatenate every page")
		}
		tools, err := decodeListedTools(top.Tools, "tools")
		return []ServerTools{{Tools: tools}}, err
	case top.Servers != nil:
		out := make([]ServerTools, 0, len(top.Servers))
		seen := map[string]bool{}
		for i, s := range top.Servers {
			if s.Server == "" || seen[s.Server] {
				return nil, toolsFileErr(`servers[%d]: "server" must be a non-empty name listed once`, i)
			}
			seen[s.Server] = true
			tools, err := decodeListedTools(s.Tools, fmt.Sprintf("servers[%d].tools", i))
			if err != nil {
				return nil, err
			}
			out = append(out, ServerTools{Server: s.Server, Tools: tools})
		}
		return out, nil
	}
	return nil, toolsFileErr(`expected {"tools": [...]}, a bare array of tools, or {"servers": [...]}`)
}

func decodeListedTools(raw json.RawMessage, at string) ([]Tool, error) {
	var tools []Tool
	if err := json.Unmarshal(raw, &tools); err != nil {
		return nil, toolsFileErr("%s: %s", at, jsonProblem(err))
	}
	if len(tools) > MaxToolsPerFile {
		return nil, toolsFileErr("%s: %d tools, at most %d", at, len(tools), MaxToolsPerFile)
	}
	if tools == nil {
		tools = []Tool{}
	}
	return tools, nil
}
