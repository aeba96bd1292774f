package server_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io/fs"
	"net"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/typeward/typeward/internal/jstest"
	"github.com/typeward/typeward/verify"
)

// browserConsent is consent.mjs's answer: where Approve led, and the page.
type browserConsent struct {
	FinalURL string   `json:"finalURL"`
	CSP      string   `json:"csp"`
	Shown    string   `json:"shown"`
	Dialogs  []string `json:"dialogs"`
}

// TestAuthorizationServerConformance runs the official MCP conformance
// suite's authorization-server scenarios (authorization-server-metadata-
// endpoint, authorization-code-grant) against typeward, a public client
// registered with the suite's loopback callback; the person's part is
// headless Chromium signing in and pressing Approve on the URL the suite
// prints.
func TestAuthorizationServerConformance(t *testing.T) {
	mcp := jstest.InstallMCP(t)
	scripts := browserScripts(t, "consent.mjs")
	h := cibaHarness(t, embedded)
	host := registerHost(h, h.adminToken())

	ln, err := net.Listen("tcp", "127.0.0.1:0") // a free port for the suite's callback server
	if err != nil {
		t.Fatal(err)
	}
	port := strconv.Itoa(ln.Addr().(*net.TCPAddr).Port)
	ln.Close()
	results := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	suite := mcp.Conformance(ctx, "authorization", "--url", h.base, "--client-id", host.ID, "--port", port, "-o", results)
	pipe, err := suite.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	suite.Stderr = &stderr
	if err := suite.Start(); err != nil {
		t.Fatal(err)
	}
	var printed strings.Builder
	authorizeURL := make(chan string, 1)
	scanned := make(chan struct{})
	go func() {
		defer close(scanned)
		for sc := bufio.NewScanner(pipe); sc.Scan(); {
			line := sc.Text()
			printed.WriteString(line + "\n")
			if strings.HasPrefix(line, h.base+"/oauth2/authorize?") {
				authorizeURL <- line
			}
		}
	}()
	var page browserConsent
	select {
	case u := <-authorizeURL:
		page = runConsent(t, ctx, scripts, u)
	case <-scanned:
		t.Fatalf("the suite printed no authorization URL:\n%s\nstderr:\n%s", printed.String(), stderr.String())
	}
	<-scanned
	err = suite.Wait()
	t.Logf("conformance suite:\n%s", printed.String())
	if err != nil {
		t.Fatalf("the conformance suite failed: %v\nstderr:\n%s", err, stderr.String())
	}
	back, _ := url.Parse(page.FinalURL)
	if back == nil || back.Host != "127.0.0.1:"+port || back.Path != "/callback" {
		t.Errorf("Approve led to %q, want the suite's callback", page.FinalURL)
	}
	// Every check of both scenarios, from the suite's own results.
	seen := map[string]string{}
	_ = filepath.WalkDir(results, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".json") {
			return err
		}
		raw, _ := os.ReadFile(path)
		var checks []struct{ ID, Status string }
		if json.Unmarshal(raw, &checks) == nil {
			for _, c := range checks {
				seen[c.ID] = c.Status
			}
		}
		return nil
	})
	// Each named one present, and every check a SUCCESS: the suite exits 0
	// on a WARNING (client_id_metadata_document_supported missing is one).
	for _, id := range []string{"authorization-server-metadata", "authorization-server-metadata-cimd", "authorization-code-grant"} {
		if _, ok := seen[id]; !ok {
			t.Errorf("check %s: not run (all: %v)", id, seen)
		}
	}
	for id, status := range seen {
		if status != "SUCCESS" {
			t.Errorf("check %s: %q, want SUCCESS (all: %v)", id, status, seen)
		}
	}
}

func runConsent(t *testing.T, ctx context.Context, scripts, authorizeURL string) browserConsent {
	t.Helper()
	cmd := exec.CommandContext(ctx, "node", filepath.Join(scripts, "consent.mjs"))
	cmd.Env = append(os.Environ(), "TW_AUTHORIZE_URL="+authorizeURL, "TW_USER="+consoleUser, "TW_PASSWORD="+consolePassword)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("consent.mjs: %v\nstderr:\n%s\nstdout:\n%s", err, stderr.String(), stdout.String())
	}
	var out browserConsent
	if err := json.Unmarshal(stdout.Bytes(), &out); err != nil {
		t.Fatalf("consent.mjs printed %q: %v", stdout.String(), err)
	}
	return out
}

// TestOAuth4WebAPIAuthorizationCode: oauth4webapi's authorization code +
// PKCE + refresh functions, unmodified, against typeward, the person's
// consent in headless Chromium: the code redeemed (iss checked), two
// refreshes each rotating the refresh token, and the used one refused.
func TestOAuth4WebAPIAuthorizationCode(t *testing.T) {
	scripts := browserScripts(t, "consent.mjs", "authcode.mjs")
	h := cibaHarness(t, embedded)
	host := registerHost(h, h.adminToken())
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "node", filepath.Join(scripts, "authcode.mjs"))
	cmd.Env = append(os.Environ(), "TW_ISSUER="+h.base, "TW_CLIENT_ID="+host.ID, "TW_RESOURCE="+routerAud,
		"TW_SCOPE=mcp:tool:db_query mcp:tool:aggregate_stats offline_access", "TW_USER="+consoleUser, "TW_PASSWORD="+consolePassword)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("authcode.mjs: %v\nstderr:\n%s\nstdout:\n%s", err, stderr.String(), stdout.String())
	}
	var out struct {
		Page browserConsent
		Code struct {
			Scope       string
			HasRefresh  bool
			AccessToken string
			Details     []map[string]any
		}
		Refreshes []struct {
			Rotated     bool
			AccessToken string
		}
		RotatedEachTime bool
		Replay          string
	}
	if err := json.Unmarshal(stdout.Bytes(), &out); err != nil {
		t.Fatalf("authcode.mjs printed %q: %v", stdout.String(), err)
	}
	if !strings.Contains(out.Page.Shown, "Desk Host") || !strings.Contains(out.Page.Shown, "db_query") || len(out.Page.Dialogs) > 0 ||
		!strings.Contains(out.Page.CSP, "frame-ancestors 'none'") {
		t.Errorf("the consent page: %+v", out.Page)
	}
	if !out.Code.HasRefresh || !strings.Contains(out.Code.Scope, "mcp:tool:") || len(out.Code.Details) != 1 {
		t.Errorf("code redemption: %+v", out.Code)
	}
	if len(out.Refreshes) != 2 || !out.RotatedEachTime || out.Replay != "invalid_grant" {
		t.Fatalf("refreshes %+v, rotated %v, replay %q", out.Refreshes, out.RotatedEachTime, out.Replay)
	}
	v, err := verify.New(verify.Config{Issuer: h.base, Audience: routerAud, JWKSURL: h.base + "/.well-known/jwks.json"})
	if err != nil {
		t.Fatal(err)
	}
	for _, tok := range append([]string{out.Code.AccessToken}, out.Refreshes[0].AccessToken, out.Refreshes[1].AccessToken) {
		claims, err := v.Verify(ctx, tok)
		if err != nil {
			t.Fatalf("a token of the flow does not verify: %v", err)
		}
		if claims.Subject != consoleUser || claims.ClientID != host.ID {
			t.Errorf("a token's sub %q client_id %q, want the person and the host", claims.Subject, claims.ClientID)
		}
	}
}
