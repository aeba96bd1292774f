package route

import (
	"bytes"
	"encoding/json"
	"net/http"
)

// JSON-RPC error codes the router answers with.
const (
	codeInvalidRequest = -32600
	codeMethodNotFound = -32601 // a method the router does not pass on
	codeInvalidParams  = -32602 // arguments break the pinned inputSchema: repairable
	codeInternal       = -32603 // the result broke the pinned outputSchema
	// Server-defined codes (-32000 to -32099).
	codeToolChanged = -32001 // the upstream's declaration is not the one proven
	codeOutOfOrder  = -32002 // --enforce-order: a feeding node has not run
	codeUnavailable = -32003 // the registry or the upstream cannot be reached
)

// message is the part of a JSON-RPC message the router reads.
type rpcMessage struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id,omitempty"`
	Method  string          `json:"method,omitempty"`
	Params  json.RawMessage `json:"params,omitempty"`
	Result  json.RawMessage `json:"result,omitempty"`
	Error   json.RawMessage `json:"error,omitempty"`

	members map[string]json.RawMessage // every member, by exact name (parseMessage)
}

// callParams are a tools/call's params.
type callParams struct {
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments,omitempty"`
}

// rpcError is a JSON-RPC error object.
type rpcError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
	Data    any    `json:"data,omitempty"`
}

// errorMessage is a JSON-RPC error response to id.
func errorMessage(id json.RawMessage, e rpcError) []byte {
	if len(id) == 0 {
		id = json.RawMessage("null")
	}
	b, _ := json.Marshal(struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   rpcError        `json:"error"`
	}{"2.0", id, e})
	return b
}

// writeRPCError answers a request with a JSON-RPC error (HTTP 200, as
// Streamable HTTP carries every JSON-RPC response).
func writeRPCError(w http.ResponseWriter, id json.RawMessage, e rpcError) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(errorMessage(id, e))
}

// isBatch reports a JSON array body.
func isBatch(body []byte) bool {
	b := bytes.TrimSpace(body)
	return len(b) > 0 && b[0] == '['
}
