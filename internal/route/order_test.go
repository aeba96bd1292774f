package route_test

import (
	"context"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/typeward/typeward/internal/route"
)

// With --enforce-order a node runs only after every node feeding it ran
// under the same token, as often as they allow; a per-item edge allows one
// downstream call per item.
func TestEnforceOrder(t *testing.T) {
	e := startEnv(t, func(c *route.Config) { c.EnforceOrder = true })
	ctx := context.Background()
	call := func(t *testing.T, s *mcp.ClientSession, tool string, args map[string]any) error {
		t.Helper()
		res, err := s.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
		if err == nil && res.IsError {
			t.Fatalf("%s: tool error %+v", tool, res.Content)
		}
		return err
	}
	outOfOrder := func(t *testing.T, err error, want string) {
		t.Helper()
		we := rpcErr(t, err)
		if we.Code != -32002 || !strings.Contains(we.Message, want) {
			t.Errorf("error %d %q, want -32002 with %q", we.Code, we.Message, want)
		}
	}

	t.Run("a chain", func(t *testing.T) {
		s := e.session(t, e.pipelineToken(t, e.resource))
		stats := map[string]any{"records": []any{map[string]any{"a": 1}}}
		outOfOrder(t, call(t, s, "aggregate_stats", stats), "aggregate_stats runs after db_query in this composition, and db_query has not run")
		if e.up.count("aggregate_stats") != 0 {
			t.Fatal("an out-of-order call reached the upstream")
		}
		if err := call(t, s, "db_query", map[string]any{"sql": "select 1"}); err != nil {
			t.Fatal(err)
		}
		if err := call(t, s, "aggregate_stats", stats); err != nil {
			t.Fatal(err)
		}
		outOfOrder(t, call(t, s, "aggregate_stats", stats), "aggregate_stats has run 1 times under this token")
		if err := call(t, s, "email_send", map[string]any{"to": "a@example.com", "body": "hi"}); err != nil {
			t.Fatal(err)
		}
		// Another token starts with nothing run.
		other := e.session(t, e.pipelineToken(t, e.resource))
		outOfOrder(t, call(t, other, "email_send", map[string]any{"to": "a@example.com", "body": "hi"}), "aggregate_stats has not run")
	})

	t.Run("a per-item edge: one call per item", func(t *testing.T) {
		s := e.session(t, e.compositionToken(t, e.resource, eachPipeline))
		outOfOrder(t, call(t, s, "notify", map[string]any{"to": "a@example.com"}), "list_users has not run")
		if err := call(t, s, "list_users", nil); err != nil {
			t.Fatal(err)
		}
		for _, to := range []string{"a@example.com", "b@example.com"} {
			if err := call(t, s, "notify", map[string]any{"to": to}); err != nil {
				t.Fatalf("notify %s: %v", to, err)
			}
		}
		outOfOrder(t, call(t, s, "notify", map[string]any{"to": "c@example.com"}), "notify has run 2 times")
		if n := e.up.count("notify"); n != 2 {
			t.Errorf("notify ran %d times upstream, want 2", n)
		}
	})
}
