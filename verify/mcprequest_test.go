package verify_test

import (
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/typeward/typeward/verify"
)

func TestToolName(t *testing.T) {
	t.Parallel()
	call := func(name string) string {
		return `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"` + name + `","arguments":{"sql":"select 1"}}}`
	}
	tests := []struct {
		name    string
		method  string // HTTP method, POST when empty
		body    string
		headers map[string]string
		want    string
		wantErr error
	}{
		{name: "tools/call", body: call("db_query"), want: "db_query"},
		{name: "namespaced tool", body: call("github/create_issue"), want: "github/create_issue"},
		{name: "headers agree", body: call("db_query"), headers: map[string]string{"Mcp-Method": "tools/call", "Mcp-Name": "db_query"}, want: "db_query"},
		{name: "tools/list", body: `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`, want: ""},
		{name: "notification", body: `{"jsonrpc":"2.0","method":"notifications/initialized"}`, want: ""},
		{name: "prompt name header is no tool", body: `{"jsonrpc":"2.0","id":1,"method":"prompts/get","params":{"name":"p"}}`, headers: map[string]string{"Mcp-Method": "prompts/get", "Mcp-Name": "p"}, want: ""},
		{name: "header only", method: http.MethodGet, headers: map[string]string{"Mcp-Name": "db_query"}, want: "db_query"},
		{name: "header only, tools/call", method: http.MethodPost, headers: map[string]string{"Mcp-Method": "tools/call", "Mcp-Name": "db_query"}, want: "db_query"},
		{name: "header only, other method", method: http.MethodGet, headers: map[string]string{"Mcp-Method": "resources/read", "Mcp-Name": "file:///x"}, want: ""},
		{name: "batch without calls", body: `[{"jsonrpc":"2.0","id":1,"method":"tools/list"},{"jsonrpc":"2.0","method":"notifications/initialized"}]`, want: ""},
		{name: "Mcp-Name contradicts body", body: call("db_query"), headers: map[string]string{"Mcp-Name": "email_send"}, wantErr: verify.ErrBadRequest},
		{name: "Mcp-Method contradicts body", body: call("db_query"), headers: map[string]string{"Mcp-Method": "tools/list"}, wantErr: verify.ErrBadRequest},
		{name: "duplicate name", body: `{"method":"tools/call","params":{"name":"db_query","name":"email_send"}}`, wantErr: verify.ErrBadRequest},
		{name: "duplicate name by case", body: `{"method":"tools/call","params":{"name":"db_query","Name":"email_send"}}`, wantErr: verify.ErrBadRequest},
		{name: "duplicate params by Unicode folding", body: `{"method":"tools/call","params":{"name":"db_query"},"paramſ":{"name":"email_send"}}`, wantErr: verify.ErrBadRequest},
		{name: "duplicate method", body: `{"method":"tools/list","method":"tools/call","params":{"name":"x"}}`, wantErr: verify.ErrBadRequest},
		{name: "upper-case method member", body: `{"METHOD":"tools/call","params":{"name":"email_send"}}`, want: "email_send"},
		{name: "no name", body: `{"method":"tools/call","params":{}}`, wantErr: verify.ErrBadRequest},
		{name: "name not a string", body: `{"method":"tools/call","params":{"name":7}}`, wantErr: verify.ErrBadRequest},
		{name: "no params", body: `{"method":"tools/call"}`, wantErr: verify.ErrBadRequest},
		{name: "method not a string", body: `{"method":["tools/call"]}`, wantErr: verify.ErrBadRequest},
		{name: "not JSON", body: `method=tools/call`, wantErr: verify.ErrBadRequest},
		{name: "trailing data", body: call("db_query") + `{"x":1}`, wantErr: verify.ErrBadRequest},
		{name: "batched tools/call", body: `[` + call("db_query") + `]`, wantErr: verify.ErrBadRequest},
		{name: "nested batch", body: `[[` + call("db_query") + `]]`, wantErr: verify.ErrBadRequest},
		{name: "batch element not an object", body: `[{"jsonrpc":"2.0","method":"tools/list","id":1},7]`, wantErr: verify.ErrBadRequest},
		{name: "nested too deep", body: `{"method":"tools/call","params":{"name":"db_query","arguments":` + strings.Repeat(`{"a":`, verify.MaxNesting) + `1` + strings.Repeat(`}`, verify.MaxNesting) + `}}`, wantErr: verify.ErrBadRequest},
		{name: "brackets inside strings do not nest", body: `{"method":"tools/call","params":{"name":"db_query","arguments":{"s":"` + strings.Repeat(`[{\"`, 100) + `"}}}`, want: "db_query"},
		{name: "GET with a body calling a tool", method: http.MethodGet, body: call("rm_rf"), want: "rm_rf"},
		{name: "DELETE with a body contradicting the header", method: http.MethodDelete, body: call("rm_rf"), headers: map[string]string{"Mcp-Name": "db_query"}, wantErr: verify.ErrBadRequest},
		{name: "too large", body: `{"method":"tools/call","params":{"name":"db_query","arguments":{"pad":"` + strings.Repeat("x", 2048) + `"}}}`, wantErr: verify.ErrBodyTooLarge},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			method := tc.method
			if method == "" {
				method = http.MethodPost
			}
			var body io.Reader
			if tc.body != "" {
				body = strings.NewReader(tc.body)
			}
			r := httptest.NewRequest(method, "/mcp", body)
			for k, v := range tc.headers {
				r.Header.Set(k, v)
			}
			got, err := verify.ToolName(r, 1024)
			if tc.wantErr != nil {
				if !errors.Is(err, tc.wantErr) || got != "" {
					t.Fatalf("ToolName = %q, %v; want %v", got, err, tc.wantErr)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Fatalf("ToolName = %q, %v; want %q", got, err, tc.want)
			}
			// The body is put back whole for the next handler.
			if rest, _ := io.ReadAll(r.Body); string(rest) != tc.body {
				t.Errorf("body after ToolName: %q, want %q", rest, tc.body)
			}
		})
	}
}

// A repeated Mcp-Name or Mcp-Method header is refused: intermediaries
// disagree on which value counts.
func TestToolNameRepeatedHeaders(t *testing.T) {
	t.Parallel()
	body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"db_query"}}`
	for _, h := range []string{"Mcp-Name", "Mcp-Method"} {
		for _, withBody := range []bool{true, false} {
			var r *http.Request
			if withBody {
				r = httptest.NewRequest(http.MethodPost, "/mcp", strings.NewReader(body))
			} else {
				r = httptest.NewRequest(http.MethodGet, "/mcp", nil)
			}
			first := map[string]string{"Mcp-Name": "db_query", "Mcp-Method": "tools/call"}[h]
			r.Header.Add(h, first)
			r.Header.Add(h, "rm_rf")
			if name, err := verify.ToolName(r, 1<<16); !errors.Is(err, verify.ErrBadRequest) || name != "" {
				t.Errorf("two %s headers (body %v): ToolName = %q, %v; want ErrBadRequest", h, withBody, name, err)
			}
		}
	}
}

// nestedBody is n opening brackets and n closing ones: the shape that took
// quadratic time when batches were read recursively.
func nestedBody(n int) string { return strings.Repeat("[", n) + strings.Repeat("]", n) }

// A deeply nested body is refused with bounded work: it costs no more
// allocations than a flat body of the same size that is refused at its
// first byte (the recursive reader allocated at every level), so the time
// is linear in the body's size.
func TestToolNameNestedBoundedWork(t *testing.T) {
	allocs := func(body string) float64 {
		return testing.AllocsPerRun(3, func() {
			r := httptest.NewRequest(http.MethodPost, "/mcp", strings.NewReader(body))
			if _, err := verify.ToolName(r, 2<<20); !errors.Is(err, verify.ErrBadRequest) {
				t.Fatalf("body of %d bytes: %v, want ErrBadRequest", len(body), err)
			}
		})
	}
	for _, n := range []int{10_000, 1 << 19} {
		nested, flat := allocs(nestedBody(n)), allocs(strings.Repeat("x", 2*n))
		if nested > flat+5 {
			t.Errorf("%d bytes: %v allocations nested, %v flat: work grows with the depth", 2*n, nested, flat)
		}
	}
}
