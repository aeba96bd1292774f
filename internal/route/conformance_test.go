package route_test

import (
	"bufio"
	"encoding/json"
	"log/slog"
	"slices"
	"strings"
	"testing"

	"github.com/typeward/typeward/internal/jstest"
	"github.com/typeward/typeward/internal/route"
)

// The official MCP conformance suite (@modelcontextprotocol/conformance,
// its 2025-11-25 server requirement set) against the reference server
// (scripts/mcp/server.mjs, the TypeScript SDK): first directly, where it
// passes the whole set; then through typeward route with a composition
// token for every tool plus mcp:resources mcp:prompts mcp:completions,
// where every check has the status it had directly. With a tools-only
// token exactly the resource, prompt and completion scenarios fail, each
// of their requests refused 403 insufficient_scope naming the scope it
// lacks; with --server-requests refuse exactly the sampling and
// elicitation scenarios fail, with the router's error, and nothing else
// changes. Before, 16 checks failed through the router (issue 16).
func TestConformanceSuite(t *testing.T) {
	if testing.Short() {
		t.Skip("the conformance suite takes a minute")
	}
	m := jstest.InstallMCP(t)
	ref := startReference(t, m)
	direct := runSuite(t, m, ref, "")
	if f := direct.failing(); len(f) > 0 || len(direct.scenarios) < 30 {
		t.Fatalf("the reference server alone: %d scenarios, failing %v\n%s", len(direct.scenarios), f, direct.output)
	}
	t.Logf("directly: %d scenarios, %d checks SUCCESS, %d INFO", len(direct.scenarios), direct.count("SUCCESS"), direct.count("INFO"))

	var log lockedBuffer
	e := startEnv(t, func(c *route.Config) {
		c.Upstream = ref
		c.Log = slog.New(slog.NewJSONHandler(&log, nil))
	})
	tools := e.declareReference(t, ref)
	routed := runSuite(t, m, e.resource, e.everyToolToken(t, tools, "mcp:resources mcp:prompts mcp:completions"))
	if d := differ(direct, routed, nil); len(d) > 0 {
		t.Errorf("through typeward route, %d checks differ:\n%s", len(d), strings.Join(d, "\n"))
	}
	t.Logf("through typeward route: %d checks SUCCESS, %d INFO, failing %v", routed.count("SUCCESS"), routed.count("INFO"), routed.failing())

	t.Run("a tools-only token", func(t *testing.T) {
		scoped := func(s string) bool {
			return strings.HasPrefix(s, "resources-") || strings.HasPrefix(s, "prompts-") || strings.HasPrefix(s, "completion-")
		}
		var want []string
		for _, s := range direct.scenarios {
			if scoped(s) {
				want = append(want, s)
			}
		}
		mark := len(log.String())
		run := runSuite(t, m, e.resource, e.everyToolToken(t, tools, ""))
		if got := run.failing(); !slices.Equal(got, want) || len(want) < 11 {
			t.Errorf("failing %v, want %v", got, want)
		}
		for _, c := range run.checks {
			if c.Status == "FAILURE" && !strings.Contains(c.Message, "Forbidden") {
				t.Errorf("%s %s: %q", c.Scenario, c.ID, c.Message)
			}
		}
		if d := differ(direct, run, want); len(d) > 0 {
			t.Errorf("beyond them, %d checks differ:\n%s", len(d), strings.Join(d, "\n"))
		}
		// Every request of theirs the router saw was refused 403
		// insufficient_scope, naming the scope it lacks (the
		// unsubscribe scenario stops at its refused subscribe).
		methods := map[string]bool{}
		for _, l := range requestLog(t, log.String()[mark:]) {
			if !strings.HasPrefix(l.RPCMethod, "resources/") && !strings.HasPrefix(l.RPCMethod, "prompts/") && l.RPCMethod != "completion/complete" {
				continue
			}
			methods[l.RPCMethod] = true
			if l.Status != 403 || l.Refused != "insufficient_scope" || !strings.HasPrefix(l.Scope, "mcp:") {
				t.Errorf("%s: %d %q scope %q, want 403 insufficient_scope", l.RPCMethod, l.Status, l.Refused, l.Scope)
			}
		}
		for _, want := range []string{"resources/list", "resources/read", "resources/subscribe", "prompts/list", "prompts/get", "completion/complete"} {
			if !methods[want] {
				t.Errorf("no %s reached the router", want)
			}
		}
	})

	t.Run("--server-requests refuse", func(t *testing.T) {
		e := startEnv(t, func(c *route.Config) {
			c.Upstream = ref
			c.ServerRequests = route.ServerRequestsRefuse
			c.Log = quietLog()
		})
		tools := e.declareReference(t, ref)
		run := runSuite(t, m, e.resource, e.everyToolToken(t, tools, "mcp:resources mcp:prompts mcp:completions"))
		var want []string
		for _, s := range direct.scenarios {
			if strings.Contains(s, "sampling") || strings.Contains(s, "elicitation") {
				want = append(want, s)
			}
		}
		if got := run.failing(); !slices.Equal(got, want) || len(want) != 4 {
			t.Errorf("failing %v, want %v", got, want)
		}
		for _, c := range run.checks {
			if slices.Contains(want, c.Scenario) && c.Status == "FAILURE" && !strings.Contains(c.Message, "--server-requests refuse") {
				t.Errorf("%s %s: %q does not say why", c.Scenario, c.ID, c.Message)
			}
		}
		if d := differ(direct, run, want); len(d) > 0 {
			t.Errorf("beyond them, %d checks differ:\n%s", len(d), strings.Join(d, "\n"))
		}
	})
}

// logLine is one request's log line of the router's.
type logLine struct {
	Msg       string `json:"msg"`
	Status    int    `json:"status"`
	RPCMethod string `json:"rpc_method"`
	Refused   string `json:"refused"`
	Scope     string `json:"scope"`
}

func requestLog(t testing.TB, s string) []logLine {
	t.Helper()
	var out []logLine
	for sc := bufio.NewScanner(strings.NewReader(s)); sc.Scan(); {
		var l logLine
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			t.Fatalf("%v: %s", err, sc.Text())
		}
		if l.Msg == "request" {
			out = append(out, l)
		}
	}
	return out
}
