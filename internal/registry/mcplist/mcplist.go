// Package mcplist fetches a live MCP server's tools/list: over Streamable
// HTTP or stdio, with the go-sdk transports, following pagination to the
// end. It speaks JSON-RPC on the transport's connection itself rather than
// through the SDK's client, whose Tool decodes schemas into maps: typeward
// keeps each declaration as the server sent it (key order, number
// literals, null versus missing), which is what snapshots digest.
package mcplist

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os/exec"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/typeward/typeward/internal/registry"
)

// Bounds on what a server can make us do.
const (
	MaxPages = 1000 // tools/list pages followed before giving up
	// ProtocolVersion is the MCP revision typeward asks for; a server may
	// answer with another it supports, tools/list is alike in all.
	ProtocolVersion = "2025-06-18"
)

// ErrServer is wrapped by every error that is the server's doing (as
// opposed to a transport failure).
var ErrServer = errors.New("MCP server misbehaved")

// HTTP is the Streamable HTTP transport to url (client nil: a default).
func HTTP(url string, client *http.Client) mcp.Transport {
	return &mcp.StreamableClientTransport{Endpoint: url, HTTPClient: client, DisableStandaloneSSE: true, MaxRetries: -1}
}

// Command is the stdio transport of a server started as cmd.
func Command(cmd *exec.Cmd) mcp.Transport {
	return &mcp.CommandTransport{Command: cmd}
}

// List connects, initializes, and asks for tools/list until the server
// gives no nextCursor. The tools are in the order the server listed them.
func List(ctx context.Context, transport mcp.Transport) (tools []registry.Tool, err error) {
	conn, err := transport.Connect(ctx)
	if err != nil {
		return nil, fmt.Errorf("connect: %w", err)
	}
	defer func() {
		if cerr := conn.Close(); err == nil && cerr != nil {
			err = fmt.Errorf("close: %w", cerr)
		}
	}()
	s := &session{conn: conn}
	if _, err := s.call(ctx, "initialize", map[string]any{
		"protocolVersion": ProtocolVersion,
		"capabilities":    map[string]any{},
		"clientInfo":      map[string]any{"name": "typeward", "version": "1"},
	}); err != nil {
		return nil, err
	}
	if err := s.notify(ctx, "notifications/initialized"); err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	cursor := ""
	for page := 0; ; page++ {
		if page == MaxPages {
			return nil, fmt.Errorf("%w: tools/list has more than %d pages", ErrServer, MaxPages)
		}
		params := map[string]any{}
		if cursor != "" {
			params["cursor"] = cursor
		}
		raw, err := s.call(ctx, "tools/list", params)
		if err != nil {
			return nil, err
		}
		var result struct {
			Tools      []registry.Tool `json:"tools"`
			NextCursor string          `json:"nextCursor"`
		}
		if err := json.Unmarshal(raw, &result); err != nil {
			return nil, fmt.Errorf("%w: tools/list result: %v", ErrServer, err)
		}
		tools = append(tools, result.Tools...)
		if len(tools) > registry.MaxToolsPerFile {
			return nil, fmt.Errorf("%w: more than %d tools", ErrServer, registry.MaxToolsPerFile)
		}
		if result.NextCursor == "" {
			if tools == nil {
				tools = []registry.Tool{}
			}
			return tools, nil
		}
		if seen[result.NextCursor] {
			return nil, fmt.Errorf("%w: tools/list cursor %q came back twice", ErrServer, result.NextCursor)
		}
		seen[result.NextCursor] = true
		cursor = result.NextCursor
	}
}

// session is the little JSON-RPC client List needs: one call at a time.
type session struct {
	conn   mcp.Connection
	nextID int64
}

func (s *session) call(ctx context.Context, method string, params any) (json.RawMessage, error) {
	body, err := json.Marshal(params)
	if err != nil {
		return nil, err
	}
	s.nextID++
	id, err := jsonrpc.MakeID(float64(s.nextID))
	if err != nil {
		return nil, err
	}
	if err := s.conn.Write(ctx, &jsonrpc.Request{ID: id, Method: method, Params: body}); err != nil {
		return nil, fmt.Errorf("%s: %w", method, err)
	}
	for {
		msg, err := s.conn.Read(ctx)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", method, err)
		}
		switch msg := msg.(type) {
		case *jsonrpc.Response:
			if msg.ID != id {
				continue // an answer to nothing we are waiting for
			}
			if msg.Error != nil {
				return nil, fmt.Errorf("%w: %s: %v", ErrServer, method, msg.Error)
			}
			return msg.Result, nil
		case *jsonrpc.Request:
			// A server request (ping, roots/list, …) or a notification.
			// Requests get an answer so the server does not wait on us.
			if msg.ID.IsValid() {
				if err := s.answer(ctx, msg); err != nil {
					return nil, fmt.Errorf("%s: %w", method, err)
				}
			}
		}
	}
}

func (s *session) answer(ctx context.Context, req *jsonrpc.Request) error {
	if req.Method == "ping" {
		return s.conn.Write(ctx, &jsonrpc.Response{ID: req.ID, Result: json.RawMessage(`{}`)})
	}
	return s.conn.Write(ctx, &jsonrpc.Response{ID: req.ID, Error: &jsonrpc.Error{Code: jsonrpc.CodeMethodNotFound, Message: "typeward only lists tools"}})
}

func (s *session) notify(ctx context.Context, method string) error {
	if err := s.conn.Write(ctx, &jsonrpc.Request{Method: method, Params: json.RawMessage(`{}`)}); err != nil {
		return fmt.Errorf("%s: %w", method, err)
	}
	return nil
}
