package verify

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"

	"github.com/typeward/typeward/verify/strictjson"
)

// DefaultMaxBodyBytes bounds the request body ToolName reads.
const DefaultMaxBodyBytes = 1 << 20

// MaxNesting bounds how deeply arrays and objects may nest in a request
// body ToolName inspects. MCP messages nest a few levels; tool arguments
// rarely more than a dozen. The bound is checked in one linear pass before
// anything is decoded.
const MaxNesting = 64

// Errors of ToolName.
var (
	// ErrBadRequest: the request does not say unambiguously which tool it
	// calls (malformed JSON-RPC, duplicate members, headers contradicting
	// the body, a batched tools/call).
	ErrBadRequest = errors.New("ambiguous or malformed MCP request")
	// ErrBodyTooLarge: the body exceeds the limit, so the tool it calls
	// cannot be known.
	ErrBodyTooLarge = errors.New("request body too large to inspect")
)

// The MCP HTTP headers mirroring the JSON-RPC body (SEP-2243).
const (
	HeaderMcpMethod = "Mcp-Method"
	HeaderMcpName   = "Mcp-Name"
)

// ToolName is the tool an MCP request calls, "" when it calls none (any
// other method, a notification, a response, a GET).
//
// A body, whatever the HTTP method, is read, at most maxBody bytes, and
// put back so the next handler reads it whole. When it is a JSON-RPC tools/call, the tool is
// params.name; Mcp-Method and Mcp-Name headers, when present, must agree
// with the body, since a gateway may route on the headers and a server
// acts on the body. Without a body, the Mcp-Name header names the tool
// unless Mcp-Method names another method.
func ToolName(r *http.Request, maxBody int64) (string, error) {
	body, err := readBody(r, maxBody)
	if err != nil {
		return "", err
	}
	hMethod, hName, err := mcpHeaders(r.Header)
	if err != nil {
		return "", err
	}
	if len(bytes.TrimSpace(body)) == 0 {
		if hMethod == "" || hMethod == "tools/call" {
			return hName, nil
		}
		return "", nil
	}
	method, name, err := parseCall(body)
	if err != nil {
		return "", err
	}
	if hMethod != "" && hMethod != method {
		return "", fmt.Errorf("%w: %s header %q but the body's method is %q", ErrBadRequest, HeaderMcpMethod, hMethod, method)
	}
	if method == "tools/call" && hName != "" && hName != name {
		return "", fmt.Errorf("%w: %s header %q but the body calls %q", ErrBadRequest, HeaderMcpName, hName, name)
	}
	return name, nil
}

// mcpHeaders are the Mcp-Method and Mcp-Name headers. Each may appear
// once: proxies disagree on which of two values counts (first, last, or
// both joined), so a repeat is as ambiguous as a header contradicting the
// body.
func mcpHeaders(h http.Header) (method, name string, err error) {
	for _, k := range []string{HeaderMcpMethod, HeaderMcpName} {
		if n := len(h.Values(k)); n > 1 {
			return "", "", fmt.Errorf("%w: %d %s headers", ErrBadRequest, n, k)
		}
	}
	return h.Get(HeaderMcpMethod), h.Get(HeaderMcpName), nil
}

// readBody reads a body up to limit and puts it back: the next reader gets
// what was read followed by whatever was not. Every method's body is read,
// not only POST's: a server may act on the body of any method, so the
// router must see it.
func readBody(r *http.Request, limit int64) ([]byte, error) {
	if r.Body == nil || r.Body == http.NoBody {
		return nil, nil
	}
	if limit <= 0 {
		limit = DefaultMaxBodyBytes
	}
	orig := r.Body
	body, err := io.ReadAll(io.LimitReader(orig, limit+1))
	r.Body = replayedBody{io.MultiReader(bytes.NewReader(body), orig), orig}
	if err != nil {
		return nil, fmt.Errorf("%w: reading the body: %v", ErrBadRequest, err)
	}
	if int64(len(body)) > limit {
		return nil, fmt.Errorf("%w: more than %d bytes", ErrBodyTooLarge, limit)
	}
	return body, nil
}

// replayedBody reads a body again from its start and closes the original.
type replayedBody struct {
	io.Reader
	io.Closer
}

// parseCall reads a JSON-RPC message: its method, and for tools/call the
// tool's name. Duplicate members are refused: JSON parsers disagree on
// which one wins, and the router must see what the server will.
func parseCall(body []byte) (method, name string, err error) {
	if err := checkNesting(body); err != nil {
		return "", "", err
	}
	body = bytes.TrimSpace(body)
	if body[0] == '[' {
		return "", "", batch(body)
	}
	return parseMessage(body)
}

// parseMessage reads one JSON-RPC message object.
func parseMessage(body []byte) (method, name string, err error) {
	msg, err := members(body)
	if err != nil {
		return "", "", err
	}
	if raw, ok := strictjson.Member(msg, "method"); ok {
		if json.Unmarshal(raw, &method) != nil {
			return "", "", fmt.Errorf("%w: method is not a string", ErrBadRequest)
		}
	}
	if method != "tools/call" {
		return method, "", nil
	}
	rawParams, _ := strictjson.Member(msg, "params")
	params, err := members(rawParams)
	if err != nil {
		return "", "", fmt.Errorf("%w: tools/call params: %v", ErrBadRequest, err)
	}
	rawName, _ := strictjson.Member(params, "name")
	if json.Unmarshal(rawName, &name) != nil || name == "" {
		return "", "", fmt.Errorf("%w: tools/call without a string params.name", ErrBadRequest)
	}
	return method, name, nil
}

// batch refuses a JSON-RPC batch that calls a tool: one request may carry
// one tool call. Batches were removed from MCP; older clients' batches of
// other methods pass. A batch element must be a message object: JSON-RPC
// has no nested batches, and reading them recursively cost quadratic time.
func batch(body []byte) error {
	var msgs []json.RawMessage
	if err := json.Unmarshal(body, &msgs); err != nil {
		return fmt.Errorf("%w: %v", ErrBadRequest, err)
	}
	for i, m := range msgs {
		if m = bytes.TrimSpace(m); len(m) == 0 || m[0] != '{' {
			return fmt.Errorf("%w: batch element %d is not a JSON-RPC message object", ErrBadRequest, i)
		}
		method, _, err := parseMessage(m)
		if err != nil {
			return err
		}
		if method == "tools/call" {
			return fmt.Errorf("%w: tools/call inside a batch", ErrBadRequest)
		}
	}
	return nil
}

// checkNesting refuses a body whose arrays and objects nest deeper than
// MaxNesting, in one pass over its bytes (strings skipped, escapes
// honoured), so no decoder later spends more than linear time on it.
func checkNesting(body []byte) error {
	depth, inString := 0, false
	for i := 0; i < len(body); i++ {
		c := body[i]
		if inString {
			switch c {
			case '\\':
				i++
			case '"':
				inString = false
			}
			continue
		}
		switch c {
		case '"':
			inString = true
		case '[', '{':
			if depth++; depth > MaxNesting {
				return fmt.Errorf("%w: nested more than %d levels deep", ErrBadRequest, MaxNesting)
			}
		case ']', '}':
			depth--
		}
	}
	return nil
}

// members splits a JSON object into its members, refusing two whose
// names fold alike and anything after the object: Go's encoding/json (and
// others) match member names without regard to case, so
// {"name":"a","Name":"b"} is a duplicate to them. Read a member with
// strictjson.Member, as they find it.
func members(data []byte) (map[string]json.RawMessage, error) {
	obj, err := strictjson.Object(data)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrBadRequest, err)
	}
	return obj, nil
}
