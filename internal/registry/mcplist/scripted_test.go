package mcplist_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/typeward/typeward/internal/registry/mcplist"
)

// scripted is a transport whose server answers each tools/list page from
// a script, and can interject a request of its own first.
type scripted struct {
	pages     []string // tools/list results, in order; "error" answers a JSON-RPC error
	interject bool     // send a ping before the first tools/list answer

	mu      sync.Mutex
	inbox   chan jsonrpc.Message
	written []*jsonrpc.Request
	answers []*jsonrpc.Response // the client's answers to our requests
}

func (s *scripted) Connect(context.Context) (mcp.Connection, error) {
	s.inbox = make(chan jsonrpc.Message, 16)
	return s, nil
}

func (s *scripted) Read(ctx context.Context) (jsonrpc.Message, error) {
	select {
	case m, ok := <-s.inbox:
		if !ok {
			return nil, io.EOF
		}
		return m, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

func (s *scripted) Write(_ context.Context, msg jsonrpc.Message) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if resp, ok := msg.(*jsonrpc.Response); ok {
		s.answers = append(s.answers, resp)
		return nil
	}
	req := msg.(*jsonrpc.Request)
	s.written = append(s.written, req)
	switch req.Method {
	case "initialize":
		s.inbox <- &jsonrpc.Response{ID: req.ID, Result: json.RawMessage(`{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},"serverInfo":{"name":"s","version":"1"}}`)}
	case "tools/list":
		if s.interject {
			s.interject = false
			id, _ := jsonrpc.MakeID("server-1")
			s.inbox <- &jsonrpc.Request{ID: id, Method: "ping"}
			s.inbox <- &jsonrpc.Request{Method: "notifications/message", Params: json.RawMessage(`{}`)}
		}
		if len(s.pages) == 0 {
			close(s.inbox)
			return nil
		}
		page := s.pages[0]
		s.pages = s.pages[1:]
		if page == "error" {
			s.inbox <- &jsonrpc.Response{ID: req.ID, Error: &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "boom"}}
			return nil
		}
		s.inbox <- &jsonrpc.Response{ID: req.ID, Result: json.RawMessage(page)}
	}
	return nil
}

func (s *scripted) Close() error      { return nil }
func (s *scripted) SessionID() string { return "" }

func (s *scripted) cursors() []string {
	var out []string
	for _, r := range s.written {
		if r.Method == "tools/list" {
			var p struct{ Cursor string }
			_ = json.Unmarshal(r.Params, &p)
			out = append(out, p.Cursor)
		}
	}
	return out
}

func TestListFollowsCursorsAndAnswersServerRequests(t *testing.T) {
	s := &scripted{interject: true, pages: []string{
		`{"tools":[{"name":"b","inputSchema":{"type":"object"}}],"nextCursor":"p2"}`,
		`{"tools":[{"name":"a","inputSchema":null},{"name":"c"}],"nextCursor":"p3"}`,
		`{"tools":[]}`,
	}}
	tools, err := mcplist.List(context.Background(), s)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range tools {
		names = append(names, tl.Name)
	}
	if strings.Join(names, " ") != "b a c" {
		t.Errorf("tools %v, want b a c in listed order", names)
	}
	if string(tools[1].InputSchema) != "null" || tools[2].InputSchema != nil {
		t.Errorf("null and missing schemas not kept apart: %q %q", tools[1].InputSchema, tools[2].InputSchema)
	}
	if got := strings.Join(s.cursors(), ","); got != ",p2,p3" {
		t.Errorf("cursors sent %q, want \",p2,p3\"", got)
	}
	if len(s.answers) != 1 || s.answers[0].Error != nil || string(s.answers[0].Result) != "{}" {
		t.Errorf("the server's ping got %+v, want one empty result", s.answers)
	}
	if s.written[1].Method != "notifications/initialized" || s.written[1].ID.IsValid() {
		t.Errorf("second message %+v, want the initialized notification", s.written[1])
	}
}

func TestListRefusesMisbehavingServers(t *testing.T) {
	tests := []struct {
		name  string
		pages []string
		want  string
	}{
		{"error answer", []string{"error"}, "tools/list: boom"},
		{"cursor loop", []string{`{"tools":[],"nextCursor":"x"}`, `{"tools":[],"nextCursor":"x"}`}, `cursor "x" came back twice`},
		{"not a result", []string{`{"tools":{}}`}, "tools/list result"},
		{"hangs up", nil, "EOF"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := mcplist.List(context.Background(), &scripted{pages: tc.pages})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want one containing %q", err, tc.want)
			}
			if tc.name != "hangs up" && !errors.Is(err, mcplist.ErrServer) {
				t.Errorf("error %v does not wrap ErrServer", err)
			}
		})
	}
}
