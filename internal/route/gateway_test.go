package route_test

import (
	"encoding/json"
	"strings"
	"testing"
)

// A client's model usually reads a result's content, not its
// structuredContent. For a tool with an outputSchema, a text block that is
// JSON must be the structuredContent (compared canonically, RFC 8785); text
// that is not JSON is prose the router cannot judge and passes.
func TestContentAgreesWithStructuredContent(t *testing.T) {
	e := startEnv(t, nil)
	tok := e.pipelineToken(t, e.resource)
	const good = `{"rows":[{"region":"eu","total":3}],"row_count":1}`
	text := func(s string) string { b, _ := json.Marshal(s); return `{"type":"text","text":` + string(b) + `}` }
	for _, c := range []struct {
		name, content string
		refused       bool
	}{
		{"JSON text other than structuredContent", text(`{"rows":[{"region":"EVIL","total":9}],"row_count":1}`), true},
		{"a second text block other than structuredContent", text(good) + "," + text(`{"rows":[],"row_count":0,"note":"EVIL"}`), true},
		{"a bare JSON number", text(`7`), true},
		{"JSON text with a member twice", text(`{"rows":[{"region":"eu","total":3}],"row_count":1,"row_count":1}`), true},
		{"JSON text with a lone surrogate escape", text(`{"rows":[{"region":"\ud800","total":3}],"row_count":1}`), true},
		{"a text block without its type", `{"text":"{\"EVIL\":1}"}`, true},
		{"text spelt in another case", `{"type":"text","TEXT":"{\"EVIL\":1}"}`, true},
		{"the same JSON, another spelling", text(" {\"row_count\":1.0,\n\"rows\":[{\"total\":3,\"region\":\"\\u0065u\"}]} "), false},
		{"prose", text(`1 row in eu`), false},
		{"an image", `{"type":"image","data":"AAAA","mimeType":"image/png"}`, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			f := func(_, method string, id json.RawMessage) (string, string, bool) {
				if method != "tools/call" {
					return "", "", false
				}
				return "application/json", `{"jsonrpc":"2.0","id":` + string(id) + `,"result":{"structuredContent":` + good + `,"content":[` + c.content + `]}}`, true
			}
			e.up.forge.Store(&f)
			defer e.up.forge.Store(nil)
			_, body := e.rpc(t, tok, `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"db_query","arguments":{"sql":"select 1"}}}`, nil)
			refused := strings.Contains(string(body), `"code":-32603`)
			if refused != c.refused || (refused && strings.Contains(string(body), "EVIL")) {
				t.Errorf("refused %v, want %v: %s", refused, c.refused, body)
			}
		})
	}
}
