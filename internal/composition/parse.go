package composition

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"
	"unicode"

	"github.com/typeward/typeward/internal/schema"
)

// ParseError says why a composition document is malformed. It is distinct
// from the issues of validation: a server answers it with 400, issues with 403.
type ParseError struct {
	At  string // where in the document: "edges[2].map", "" for the whole
	Msg string
}

func (e *ParseError) Error() string {
	if e.At == "" {
		return "composition: " + e.Msg
	}
	return "composition: " + e.At + ": " + e.Msg
}

func parseErr(at, format string, args ...any) *ParseError {
	return &ParseError{At: at, Msg: fmt.Sprintf(format, args...)}
}

// Parse decodes a composition document strictly: unknown members, duplicate
// object keys, duplicate node ids or edges, empty maps and every bound are
// errors (*ParseError). Node and edge order is kept.
func Parse(data []byte) (*Composition, error) {
	if len(data) > MaxDocumentBytes {
		return nil, parseErr("", "%d bytes, at most %d", len(data), MaxDocumentBytes)
	}
	if err := scanJSON(data); err != nil {
		return nil, err
	}
	top, err := decodeObject(data, "", "nodes", "edges")
	if err != nil {
		return nil, err
	}
	c := &Composition{}
	rawNodes, hasNodes := top["nodes"]
	if hasNodes {
		if c.Nodes, err = parseNodes(rawNodes); err != nil {
			return nil, err
		}
	}
	if raw, ok := top["edges"]; ok {
		if c.Edges, err = parseEdges(raw); err != nil {
			return nil, err
		}
	}
	if len(c.Nodes) == 0 && len(c.Edges) == 0 {
		return nil, parseErr("", "empty composition: no nodes and no edges")
	}
	if !hasNodes {
		c.Short = true
		c.Nodes, err = nodesOfEdges(c.Edges)
		if err != nil {
			return nil, err
		}
	}
	return c, nil
}

func parseNodes(raw json.RawMessage) ([]Node, error) {
	var items []json.RawMessage
	if err := unmarshalAt(raw, "nodes", &items); err != nil {
		return nil, err
	}
	if len(items) == 0 {
		return nil, parseErr("nodes", `empty; leave "nodes" out to let the edges name tools`)
	}
	if len(items) > MaxNodes {
		return nil, parseErr("nodes", "%d nodes, at most %d", len(items), MaxNodes)
	}
	nodes := make([]Node, 0, len(items))
	seen := make(map[string]bool, len(items))
	for i, item := range items {
		at := fmt.Sprintf("nodes[%d]", i)
		n, err := parseNode(item, at)
		if err != nil {
			return nil, err
		}
		if seen[n.ID] {
			return nil, parseErr(at, "duplicate node id %q", n.ID)
		}
		seen[n.ID] = true
		nodes = append(nodes, n)
	}
	return nodes, nil
}

func parseNode(raw json.RawMessage, at string) (Node, error) {
	obj, err := decodeObject(raw, at, "id", "tool", "version", "composition")
	if err != nil {
		return Node{}, err
	}
	var n Node
	if err := nameAt(obj, "id", at, &n.ID); err != nil {
		return Node{}, err
	}
	if n.ID == "" {
		return Node{}, parseErr(at, `"id" is required`)
	}
	if err := nameAt(obj, "tool", at, &n.Tool); err != nil {
		return Node{}, err
	}
	if err := nameAt(obj, "composition", at, &n.Composition); err != nil {
		return Node{}, err
	}
	switch {
	case n.Tool == "" && n.Composition == "":
		return Node{}, parseErr(at, `node %q needs "tool" or "composition"`, n.ID)
	case n.Tool != "" && n.Composition != "":
		return Node{}, parseErr(at, `node %q has both "tool" and "composition"`, n.ID)
	}
	if raw, ok := obj["version"]; ok {
		if n.Composition != "" {
			return Node{}, parseErr(at+".version", "a composition reference has no version")
		}
		var v int64
		if err := unmarshalAt(raw, at+".version", &v); err != nil {
			return Node{}, err
		}
		if v < 1 || v > 1<<31 {
			return Node{}, parseErr(at+".version", "%d: a version is a positive integer", v)
		}
		n.Version = int(v)
	}
	return n, nil
}

func parseEdges(raw json.RawMessage) ([]Edge, error) {
	var items []json.RawMessage
	if err := unmarshalAt(raw, "edges", &items); err != nil {
		return nil, err
	}
	if len(items) > MaxEdges {
		return nil, parseErr("edges", "%d edges, at most %d", len(items), MaxEdges)
	}
	edges := make([]Edge, 0, len(items))
	seen := make(map[[2]string]bool, len(items))
	for i, item := range items {
		at := fmt.Sprintf("edges[%d]", i)
		e, err := parseEdge(item, at)
		if err != nil {
			return nil, err
		}
		key := [2]string{e.From, e.To}
		if seen[key] {
			return nil, parseErr(at, "edge %s is declared twice; give one edge every mapping", e.Label())
		}
		seen[key] = true
		edges = append(edges, e)
	}
	return edges, nil
}

// parseEdge reads either spelling of an edge: {"from","to","map"} or the
// original validator design's {"source_tool","target_tool","field_mappings"}.
func parseEdge(raw json.RawMessage, at string) (Edge, error) {
	obj, err := decodeObject(raw, at, "from", "to", "map", "source_tool", "target_tool", "field_mappings", "each", "optional")
	if err != nil {
		return Edge{}, err
	}
	hasAny := func(keys ...string) bool {
		return slices.ContainsFunc(keys, func(k string) bool { _, ok := obj[k]; return ok })
	}
	long := hasAny("source_tool", "target_tool", "field_mappings")
	if long && hasAny("from", "to", "map") {
		return Edge{}, parseErr(at, `mixes "from"/"to"/"map" with "source_tool"/"target_tool"/"field_mappings"`)
	}
	fromKey, toKey, mapKey := "from", "to", "map"
	if long {
		fromKey, toKey, mapKey = "source_tool", "target_tool", "field_mappings"
	}
	var e Edge
	if err := nameAt(obj, fromKey, at, &e.From); err != nil {
		return Edge{}, err
	}
	if err := nameAt(obj, toKey, at, &e.To); err != nil {
		return Edge{}, err
	}
	if e.From == "" || e.To == "" {
		return Edge{}, parseErr(at, "%q and %q are required", fromKey, toKey)
	}
	for key, dst := range map[string]*bool{"each": &e.Each, "optional": &e.Optional} {
		if raw, ok := obj[key]; ok {
			if err := unmarshalAt(raw, at+"."+key, dst); err != nil {
				return Edge{}, err
			}
		}
	}
	rawMap, ok := obj[mapKey]
	if !ok {
		return Edge{}, parseErr(at, "edge %s has no %q: an edge maps at least one field", e.Label(), mapKey)
	}
	if e.Mappings, err = parseMappings(rawMap, at+"."+mapKey); err != nil {
		return Edge{}, err
	}
	if e.Each {
		if err := checkEach(e.Mappings, at); err != nil {
			return Edge{}, err
		}
	}
	return e, nil
}

// checkEach makes a per-item edge iterate over one array: every source
// path with [] must reach its first [] through the same prefix.
func checkEach(mappings []Mapping, at string) error {
	iterated := ""
	for _, m := range mappings {
		prefix, ok := m.Source.EachPrefix()
		if !ok {
			continue
		}
		if iterated == "" {
			iterated = prefix
		} else if prefix != iterated {
			return parseErr(at+".each", "a per-item edge iterates over one array, not both %s and %s", iterated, prefix)
		}
	}
	if iterated == "" {
		return parseErr(at+".each", "a per-item edge needs a source path with []")
	}
	return nil
}

// parseMappings reads {"source": "target", …} keeping document order, which
// is the order issues are reported in.
func parseMappings(raw json.RawMessage, at string) ([]Mapping, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, parseErr(at, `must be an object {"source.path": "target.path"}`)
	}
	var out []Mapping
	for dec.More() {
		keyTok, err := dec.Token()
		if err != nil {
			return nil, parseErr(at, "%v", err)
		}
		key, ok := keyTok.(string)
		if !ok {
			return nil, parseErr(at, "not JSON: an object key is not a string")
		}
		var value any
		if err := dec.Decode(&value); err != nil {
			return nil, parseErr(at, "%v", err)
		}
		target, isString := value.(string)
		if !isString {
			return nil, parseErr(at+"."+key, "a mapping's value is a target path string, not %s", schema.DescribeValue(value))
		}
		if len(out) == MaxMappingsOfEdge {
			return nil, parseErr(at, "more than %d mappings", MaxMappingsOfEdge)
		}
		src, err := ParsePath(key)
		if err != nil {
			return nil, parseErr(at, "source %v", err)
		}
		tgt, err := ParseTargetPath(target)
		if err != nil {
			return nil, parseErr(at, "target %v", err)
		}
		out = append(out, Mapping{Source: src, Target: tgt})
	}
	if len(out) == 0 {
		return nil, parseErr(at, "empty: an edge maps at least one field")
	}
	return out, nil
}

// nodesOfEdges derives the nodes of the short form: every tool an edge
// names, in order of first appearance, with the tool name as node id.
func nodesOfEdges(edges []Edge) ([]Node, error) {
	var nodes []Node
	seen := map[string]bool{}
	for _, e := range edges {
		for _, name := range []string{e.From, e.To} {
			if !seen[name] {
				seen[name] = true
				nodes = append(nodes, Node{ID: name, Tool: name})
			}
		}
	}
	if len(nodes) > MaxNodes {
		return nil, parseErr("edges", "%d tools, at most %d", len(nodes), MaxNodes)
	}
	return nodes, nil
}

// decodeObject decodes a JSON object and refuses members outside allowed.
func decodeObject(raw json.RawMessage, at string, allowed ...string) (map[string]json.RawMessage, error) {
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(raw, &obj); err != nil || obj == nil {
		return nil, parseErr(at, "must be a JSON object")
	}
	for _, key := range slices.Sorted(maps.Keys(obj)) { // sorted: the same one reported every time
		if !slices.Contains(allowed, key) {
			return nil, parseErr(at, "unknown member %q (expected %s)", key, strings.Join(allowed, ", "))
		}
	}
	return obj, nil
}

// nameAt reads an optional string member that names something: a node id,
// a tool or a composition.
func nameAt(obj map[string]json.RawMessage, key, at string, dst *string) error {
	raw, ok := obj[key]
	if !ok {
		return nil
	}
	var s string
	if err := unmarshalAt(raw, at+"."+key, &s); err != nil {
		return err
	}
	if err := checkIdentifier(s); err != nil {
		return parseErr(at+"."+key, "%v", err)
	}
	*dst = s
	return nil
}

func checkIdentifier(s string) error {
	switch {
	case s == "":
		return errors.New("empty")
	case len(s) > MaxNameBytes:
		return fmt.Errorf("%d bytes, at most %d", len(s), MaxNameBytes)
	case strings.Contains(s, "->"):
		return fmt.Errorf("%q contains \"->\", which separates edge ends", s)
	}
	for _, r := range s {
		if unicode.IsSpace(r) || unicode.IsControl(r) || r == unicode.ReplacementChar {
			return fmt.Errorf("%q contains whitespace or a control character", s)
		}
	}
	return nil
}

func unmarshalAt(raw json.RawMessage, at string, dst any) error {
	if err := json.Unmarshal(raw, dst); err != nil {
		var typeErr *json.UnmarshalTypeError
		if errors.As(err, &typeErr) {
			return parseErr(at, "unexpected JSON %s, expected %s", typeErr.Value, jsonKindFor(typeErr.Type))
		}
		return parseErr(at, "%v", err)
	}
	return nil
}

// jsonKindFor names what JSON decodes into the Go type a member is read as.
func jsonKindFor(t reflect.Type) string {
	switch t.Kind() {
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "true or false"
	case reflect.Int, reflect.Int64:
		return "an integer"
	case reflect.Slice:
		return "an array"
	}
	return "an object"
}
