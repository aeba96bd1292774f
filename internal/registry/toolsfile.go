package registry

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
)

// Bounds on a tools file. It comes from a CI job or an operator, but it is
// still input: every dimension that drives work is capped.
const (
	MaxToolsFileBytes = 32 << 20 // 32 MiB: the 297-tool corpus is 0.7 MiB
	MaxToolsPerFile   = 10_000
	MaxToolNameLength = 128 // the MCP limit on tool names (see ValidToolName)
)

// ErrToolsFile is wrapped by every error ParseToolsFile returns.
var ErrToolsFile = errors.New("invalid tools file")

// ServerTools is the tools one MCP server declares, in the order it lists
// them. Server is "" for a plain tools/list result, which does not say
// which server it came from.
type ServerTools struct {
	Server string
	Tools  []Tool
}

// ParseToolsFile reads the tool declarations of one of three shapes:
//
//	{"tools": [...]}                          an MCP tools/list result
//	[...]                                     a bare array of tools
//	{"servers": [{"server": "x", "tools": [...]}, ...]}   several servers
//
// Tools keep members typeward does not model (icons, execution, …): MCP
// lets servers extend Tool. Everything else is strict: an unknown member at
// the top of a tools/list result, a tool without a name or inputSchema, a
// name declared twice by one server, and a paginated result are errors.
func ParseToolsFile(data []byte) ([]ServerTools, error) {
	if len(data) > MaxToolsFileBytes {
		return nil, toolsFileErr("%d bytes, at most %d", len(data), MaxToolsFileBytes)
	}
	trimmed := bytes.TrimLeft(data, " \t\r\n")
	if len(trimmed) == 0 {
		return nil, toolsFileErr("empty document")
	}
	if trimmed[0] == '[' {
		tools, err := decodeTools(data, "")
		if err != nil {
			return nil, err
		}
		return []ServerTools{{Tools: tools}}, checkToolCount(1, len(tools))
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal(data, &top); err != nil {
		return nil, toolsFileErr("%s", jsonProblem(err))
	}
	_, hasTools := top["tools"]
	_, hasServers := top["servers"]
	switch {
	case hasTools && hasServers:
		return nil, toolsFileErr(`both "tools" and "servers": use one shape`)
	case hasTools:
		return parseToolsList(top)
	case hasServers:
		return parseServers(top["servers"])
	}
	return nil, toolsFileErr(`expected {"tools": [...]}, a bare array of tools, or {"servers": [...]}`)
}

func parseToolsList(top map[string]json.RawMessage) ([]ServerTools, error) {
	for key, raw := range top {
		switch key {
		case "tools", "_meta":
		case "nextCursor":
			var cursor *string
			if err := json.Unmarshal(raw, &cursor); err != nil {
				return nil, toolsFileErr("nextCursor: %s", jsonProblem(err))
			}
			if cursor != nil && *cursor != "" {
				return nil, toolsFileErr("nextCursor is set: this is one page of a paginated tools/list; concatenate every page")
			}
		default:
			return nil, toolsFileErr("unknown member %q in a tools/list result", key)
		}
	}
	tools, err := decodeTools(top["tools"], "tools")
	if err != nil {
		return nil, err
	}
	return []ServerTools{{Tools: tools}}, checkToolCount(1, len(tools))
}

// parseServers reads the corpus shape. Members other than "server" and
// "tools" (order, notes, serverInfo, …) are provenance and are ignored.
func parseServers(raw json.RawMessage) ([]ServerTools, error) {
	var entries []map[string]json.RawMessage
	if err := json.Unmarshal(raw, &entries); err != nil {
		return nil, toolsFileErr("servers: %s", jsonProblem(err))
	}
	if len(entries) == 0 {
		return nil, toolsFileErr("servers: empty")
	}
	out := make([]ServerTools, 0, len(entries))
	seen := map[string]bool{}
	total := 0
	for i, entry := range entries {
		at := fmt.Sprintf("servers[%d]", i)
		var name string
		if err := json.Unmarshal(entry["server"], &name); err != nil || name == "" {
			return nil, toolsFileErr(`%s: "server" must be a non-empty string`, at)
		}
		if seen[name] {
			return nil, toolsFileErr("%s: server %q is listed twice", at, name)
		}
		seen[name] = true
		if _, ok := entry["tools"]; !ok {
			return nil, toolsFileErr(`%s (%s): no "tools"`, at, name)
		}
		tools, err := decodeTools(entry["tools"], at+".tools")
		if err != nil {
			return nil, err
		}
		total += len(tools)
		if err := checkToolCount(i+1, total); err != nil {
			return nil, err
		}
		out = append(out, ServerTools{Server: name, Tools: tools})
	}
	return out, nil
}

func decodeTools(raw json.RawMessage, at string) ([]Tool, error) {
	label := func(i int) string {
		if at == "" {
			return fmt.Sprintf("[%d]", i)
		}
		return fmt.Sprintf("%s[%d]", at, i)
	}
	var items []json.RawMessage
	if err := json.Unmarshal(raw, &items); err != nil {
		return nil, toolsFileErr("%s: %s", orTop(at), jsonProblem(err))
	}
	if len(items) > MaxToolsPerFile {
		return nil, toolsFileErr("%s: %d tools, at most %d", orTop(at), len(items), MaxToolsPerFile)
	}
	tools := make([]Tool, 0, len(items))
	names := map[string]bool{}
	for i, item := range items {
		var tool Tool
		if err := json.Unmarshal(item, &tool); err != nil {
			return nil, toolsFileErr("%s: %s", label(i), jsonProblem(err))
		}
		if err := checkToolName(tool.Name); err != nil {
			return nil, toolsFileErr("%s: %v", label(i), err)
		}
		if isAbsent(tool.InputSchema) {
			return nil, toolsFileErr("%s (%s): no inputSchema", label(i), tool.Name)
		}
		if names[tool.Name] {
			return nil, toolsFileErr("%s: tool %q is declared twice", label(i), tool.Name)
		}
		names[tool.Name] = true
		if isAbsent(tool.OutputSchema) {
			tool.OutputSchema = nil // "outputSchema": null declares nothing
		}
		tools = append(tools, tool)
	}
	return tools, nil
}

// checkToolName asks only for a name: whether it follows the MCP naming
// rule is Declare's question, which refuses that one tool, not the file.
func checkToolName(name string) error {
	if name == "" {
		return errors.New(`"name" must be a non-empty string`)
	}
	return nil
}

func checkToolCount(servers, tools int) error {
	if tools > MaxToolsPerFile {
		return toolsFileErr("%d tools in %d servers, at most %d", tools, servers, MaxToolsPerFile)
	}
	return nil
}

func isAbsent(raw json.RawMessage) bool {
	return len(raw) == 0 || slices.Equal(bytes.TrimSpace(raw), []byte("null"))
}

func orTop(at string) string {
	if at == "" {
		return "top level"
	}
	return at
}

// jsonProblem words a decoding error without Go type names.
func jsonProblem(err error) string {
	var typeErr *json.UnmarshalTypeError
	if errors.As(err, &typeErr) {
		where := typeErr.Field
		if where == "" {
			return fmt.Sprintf("unexpected JSON %s", typeErr.Value)
		}
		return fmt.Sprintf("%s: unexpected JSON %s", where, typeErr.Value)
	}
	var syntaxErr *json.SyntaxError
	if errors.As(err, &syntaxErr) {
		return fmt.Sprintf("not JSON at byte %d: %v", syntaxErr.Offset, syntaxErr)
	}
	return err.Error()
}

func toolsFileErr(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrToolsFile, fmt.Sprintf(format, args...))
}
