package route_test

import (
	"encoding/json"
	"net/http"
	"os"
	"slices"
	"strings"
	"testing"
)

// TestHostsAreToldWhatToAskFor: the protected-resource metadata lists in
// scopes_supported every stored composition whose tools the upstream
// serves (not one naming a tool it lacks) and every upstream tool; a 401
// asks for every tool at once, and a 403 for the token's tools with the
// refused one.
func TestHostsAreToldWhatToAskFor(t *testing.T) {
	e := startEnv(t, nil)
	put := func(name, body string) {
		req, _ := http.NewRequest(http.MethodPut, e.issuer+"/admin/v1/compositions/"+name, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Authorization", "Bearer "+e.adminTok)
		resp, err := e.http.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode >= 300 {
			t.Fatalf("store %s: %d", name, resp.StatusCode)
		}
	}
	readonly, _ := os.ReadFile("../../examples/pipeline-readonly.json")
	put("report", string(readonly))
	put("elsewhere", eachPipeline)
	// A tool typeward knows and the upstream does not serve: a composition
	// of it is not this router's to advertise.
	req, _ := http.NewRequest(http.MethodPut, e.issuer+"/admin/v1/tools/ghost", strings.NewReader(`{"inputSchema":{"type":"object"}}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+e.adminTok)
	if resp, err := e.http.Do(req); err != nil || resp.StatusCode != http.StatusCreated {
		t.Fatalf("declare ghost: %v %v", resp, err)
	}
	put("haunted", `{"nodes":[{"id":"g","tool":"ghost"}],"edges":[]}`)

	resp, err := e.http.Get(strings.Replace(e.resource, "/mcp", "/.well-known/oauth-protected-resource/mcp", 1))
	if err != nil {
		t.Fatal(err)
	}
	var md struct {
		Scopes []string `json:"scopes_supported"`
	}
	_ = json.NewDecoder(resp.Body).Decode(&md)
	resp.Body.Close()
	upstreamTools := map[string]bool{}
	for name := range e.up.schemas {
		upstreamTools[name] = true
	}
	for name := range extraTools {
		upstreamTools[name] = true
	}
	upstreamTools["rm_rf"] = true // served, in no token
	if !slices.Contains(md.Scopes, "mcp:composition:report") || !slices.Contains(md.Scopes, "mcp:tool:db_query") {
		t.Fatalf("scopes_supported = %v", md.Scopes)
	}
	if !slices.Contains(md.Scopes, "mcp:composition:elsewhere") || slices.Contains(md.Scopes, "mcp:composition:haunted") {
		t.Errorf("scopes_supported = %v; want elsewhere (the upstream serves its tools), not haunted", md.Scopes)
	}
	for _, s := range md.Scopes {
		if name, ok := strings.CutPrefix(s, "mcp:tool:"); ok && !upstreamTools[name] {
			t.Errorf("scopes_supported names %s, which the upstream does not list", s)
		}
	}

	// No token: every upstream tool at once.
	r, _ := e.rpc(t, "", `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`, nil)
	challenge := r.Header.Get("WWW-Authenticate")
	if r.StatusCode != http.StatusUnauthorized || !strings.Contains(challenge, `scope="`) || !strings.Contains(challenge, "mcp:tool:db_query") {
		t.Errorf("401 challenge = %d %q", r.StatusCode, challenge)
	}
	// A token for the read-only pipeline calling another tool: its tools
	// and the one refused, all at once.
	tok := e.compositionToken(t, e.resource, string(readonly))
	r, _ = e.rpc(t, tok, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"email_send","arguments":{}}}`,
		map[string]string{"Mcp-Method": "tools/call", "Mcp-Name": "email_send"})
	challenge = r.Header.Get("WWW-Authenticate")
	for _, want := range []string{"insufficient_scope", "mcp:tool:email_send", "mcp:tool:db_query", "mcp:tool:aggregate_stats"} {
		if r.StatusCode != http.StatusForbidden || !strings.Contains(challenge, want) {
			t.Errorf("403 challenge = %d %q, lacks %s", r.StatusCode, challenge, want)
		}
	}
}
