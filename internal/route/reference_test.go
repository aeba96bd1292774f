package route_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/typeward/typeward/internal/jstest"
)

// startReference runs the reference MCP server (scripts/mcp/server.mjs,
// the official TypeScript SDK) with args and returns its MCP endpoint.
func startReference(t testing.TB, m jstest.MCP, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	cmd := m.Command(ctx, append([]string{m.Script("server.mjs")}, args...)...)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr lockedBuffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cancel(); _ = cmd.Wait() })
	lines := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		if sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
		_, _ = io.Copy(io.Discard, stdout)
	}()
	select {
	case line, ok := <-lines:
		u, found := strings.CutPrefix(line, "listening ")
		if !ok || !found {
			t.Fatalf("server.mjs printed %q: %s", line, stderr.String())
		}
		return u
	case <-time.After(30 * time.Second):
		t.Fatalf("server.mjs did not start: %s", stderr.String())
	}
	return ""
}

// lockedBuffer is a bytes.Buffer safe for the writers of a process and a
// logger at once.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// check is one check of the conformance suite's report.
type check struct {
	Scenario, ID, Status, Message string
}

// suiteRun is what one run of the suite's server scenarios reported: its
// checks by scenario and id, and its scenarios.
type suiteRun struct {
	checks    map[string]check // scenario + " " + id
	scenarios []string
	output    string
}

// scenarioDir is the suite's name for a scenario's results directory.
var scenarioDir = regexp.MustCompile(`^server-(.+)-\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d-\d{3}Z$`)

// runSuite runs the suite's 2025-11-25 server requirement set against the
// MCP endpoint u; with a token, every request the suite makes there
// carries it (scripts/mcp/bearer.mjs: the suite has no option for one).
func runSuite(t testing.TB, m jstest.MCP, u, token string) suiteRun {
	t.Helper()
	dir := t.TempDir()
	var args []string
	if token != "" {
		args = append(args, "--import", m.Script("bearer.mjs"))
	}
	args = append(args, m.Suite, "server", "--url", u, "--requirements", "2025-11-25", "-o", dir)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := m.Command(ctx, args...)
	origin, _ := url.Parse(u)
	cmd.Env = append(os.Environ(), "TYPEWARD_BEARER="+token, "TYPEWARD_BEARER_ORIGIN="+origin.Scheme+"://"+origin.Host)
	out, err := cmd.CombinedOutput()
	run := suiteRun{checks: map[string]check{}, output: string(out)}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		sm := scenarioDir.FindStringSubmatch(e.Name())
		if sm == nil {
			continue
		}
		raw, err := os.ReadFile(filepath.Join(dir, e.Name(), "checks.json"))
		if err != nil {
			t.Fatal(err)
		}
		var cs []struct {
			ID, Status, ErrorMessage string
		}
		if err := json.Unmarshal(raw, &cs); err != nil {
			t.Fatalf("%s: %v", e.Name(), err)
		}
		run.scenarios = append(run.scenarios, sm[1])
		for _, c := range cs {
			run.checks[sm[1]+" "+c.ID] = check{Scenario: sm[1], ID: c.ID, Status: c.Status, Message: c.ErrorMessage}
		}
	}
	slices.Sort(run.scenarios)
	if len(run.checks) == 0 {
		t.Fatalf("the suite reported no checks (%v):\n%s", err, out)
	}
	return run
}

// failing are the scenarios with a check neither SUCCESS nor INFO.
func (s suiteRun) failing() []string {
	var out []string
	for _, c := range s.checks {
		if c.Status != "SUCCESS" && c.Status != "INFO" && !slices.Contains(out, c.Scenario) {
			out = append(out, c.Scenario)
		}
	}
	slices.Sort(out)
	return out
}

// count is how many checks have status.
func (s suiteRun) count(status string) int {
	n := 0
	for _, c := range s.checks {
		if c.Status == status {
			n++
		}
	}
	return n
}

// differ lists the checks of a and b that differ in status (or exist in
// one only), outside the scenarios except. INFO records (what a scenario
// saw on the wire, not scored) may come and go with timing.
func differ(a, b suiteRun, except []string) []string {
	var out []string
	for k, ca := range a.checks {
		if slices.Contains(except, ca.Scenario) || ca.Status == "INFO" && b.checks[k].Status == "" {
			continue
		}
		if cb, ok := b.checks[k]; !ok || cb.Status != ca.Status {
			out = append(out, fmt.Sprintf("%s: %s, then %s %s", k, ca.Status, cb.Status, cb.Message))
		}
	}
	for k, cb := range b.checks {
		if _, ok := a.checks[k]; !ok && !slices.Contains(except, cb.Scenario) && cb.Status != "INFO" {
			out = append(out, fmt.Sprintf("%s: only the second run has it (%s)", k, cb.Status))
		}
	}
	slices.Sort(out)
	return out
}

// declareReference declares the reference server's tools in typeward, as
// it lists them, and returns their names.
func (e *env) declareReference(t testing.TB, ref string) []string {
	t.Helper()
	c := mcp.NewClient(&mcp.Implementation{Name: "declare", Version: "1"}, nil)
	s, err := c.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: ref, DisableStandaloneSSE: true}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	res, err := s.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range res.Tools {
		decl := map[string]any{"inputSchema": tl.InputSchema}
		if tl.OutputSchema != nil {
			decl["outputSchema"] = tl.OutputSchema
		}
		body, _ := json.Marshal(decl)
		req, _ := http.NewRequest(http.MethodPut, e.issuer+"/admin/v1/tools/"+tl.Name, bytes.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Authorization", "Bearer "+e.adminTok)
		resp, err := e.http.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		raw, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusCreated && resp.StatusCode != http.StatusOK {
			t.Fatalf("declare %s: %d %s", tl.Name, resp.StatusCode, raw)
		}
		names = append(names, tl.Name)
	}
	return names
}

// everyToolToken is a composition token for every tool named (one node
// each, no edges) with scope, from a client allowed scope.
func (e *env) everyToolToken(t testing.TB, tools []string, scope string) string {
	t.Helper()
	type node struct {
		ID   string `json:"id"`
		Tool string `json:"tool"`
	}
	var doc struct {
		Nodes []node `json:"nodes"`
		Edges []any  `json:"edges"`
	}
	doc.Edges = []any{}
	for i, name := range tools {
		doc.Nodes = append(doc.Nodes, node{fmt.Sprintf("n%d", i), name})
	}
	comp, _ := json.Marshal(doc)
	id, secret := e.createClientWith(t, map[string]any{"allowed_scopes": strings.Fields(scope)})
	form := url.Values{"resource": {e.resource}, "authorization_details": {`[{"type":"mcp_composition","composition":` + string(comp) + `}]`}}
	if scope != "" {
		form.Set("scope", scope)
	}
	return e.token(t, id, secret, form)
}
