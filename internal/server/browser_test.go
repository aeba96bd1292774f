package server_test

import (
	"bytes"
	"context"
	"encoding/json"
	"image"
	"image/png"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/typeward/typeward/verify"
)

// browserArtifacts is where the browser test keeps its screenshots,
// relative to the repository root: artifacts/browser/{approvals,activity}.png.
const browserArtifacts = "../../artifacts/browser"

// unavailable skips with a loud message, except in CI, where the browser
// test must run.
func unavailable(t *testing.T, format string, args ...any) {
	t.Helper()
	if os.Getenv("CI") != "" {
		t.Fatalf("browser test cannot run in CI: "+format, args...)
	}
	t.Skipf("\n\n*** BROWSER TEST SKIPPED: "+format+" ***\n", args...)
}

// browserScripts installs what the browser tests need (Debian's
// chromium, playwright-core and oauth4webapi: scripts/browsertest/
// install.sh) and copies the named scripts of scripts/browsertest into a
// directory of this run's own inside the modules directory, which every
// checkout on the machine shares (node resolves the modules from a
// script's parent directories). It returns that directory.
func browserScripts(t *testing.T, names ...string) string {
	t.Helper()
	if _, err := exec.LookPath("node"); err != nil {
		unavailable(t, "node is not installed")
	}
	modules := filepath.Join(os.TempDir(), "typeward-browsertest")
	install := exec.Command("../../scripts/browsertest/install.sh", modules)
	if out, err := install.CombinedOutput(); err != nil {
		unavailable(t, "installing chromium and the npm packages failed: %v\n%s", err, out)
	}
	dir, err := os.MkdirTemp(modules, "run-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(dir) })
	for _, name := range names {
		script, err := os.ReadFile("../../scripts/browsertest/" + name)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), script, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// TestConsoleInBrowser: headless Chromium signs in, sees both pending
// requests with their graphs, approves one while an oauth4webapi client
// polls (which then gets the token), denies the other, and screenshots the
// Approvals and Activity pages.
func TestConsoleInBrowser(t *testing.T) {
	flow := filepath.Join(browserScripts(t, "flow.mjs"), "flow.mjs")
	artifacts, _ := filepath.Abs(browserArtifacts)
	if err := os.MkdirAll(artifacts, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"approvals.png", "activity.png"} {
		_ = os.Remove(filepath.Join(artifacts, f))
	}

	h := cibaHarness(t, embedded)
	admin := h.adminToken()
	c := h.createClient(admin, map[string]any{"client_name": "browser test <i>client</i>", "allowed_tools": []string{"*"},
		"allowed_audiences": []string{routerAud}, "approval": "mutating"})
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	// A refusal for the Activity page's latest refusals, with its witness.
	invalid := url.Values{"grant_type": {"client_credentials"}, "resource": {routerAud},
		"authorization_details": {compositionDetails(t, "../../examples/pipeline-invalid.json")}}
	if r := h.postForm("/oauth2/token", c.ID, c.Secret, invalid); r.status != http.StatusForbidden {
		t.Fatalf("invalid pipeline: %d %s", r.status, r.body)
	}
	cmd := exec.CommandContext(ctx, "node", flow)
	cmd.Env = append(os.Environ(), "TW_ISSUER="+h.base, "TW_CLIENT_ID="+c.ID, "TW_CLIENT_SECRET="+c.Secret,
		"TW_DETAILS="+compositionDetails(t, "../../examples/pipeline-valid.json"), "TW_RESOURCE="+routerAud,
		"TW_USER="+consoleUser, "TW_PASSWORD="+consolePassword, "TW_ARTIFACTS="+artifacts)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("flow.mjs: %v\nstderr:\n%s\nstdout:\n%s", err, stderr.String(), stdout.String())
	}
	var out struct {
		Dialogs, ConsoleErrors []string
		Nodes, Edges           int
		NodeTexts              []string
		InjectedImages         int
		ActivityCharts         int
		RefusalPaths           []string
		RefusalWitnesses       []string
		RefusalWitnessErrors   []string
		Approved               struct {
			Token          string
			MSFromApproval int64
			Seen           []string
		}
		Denied struct {
			Error, Description string
		}
	}
	if err := json.Unmarshal(stdout.Bytes(), &out); err != nil {
		t.Fatalf("flow.mjs printed %q: %v", stdout.String(), err)
	}
	t.Logf("approval to token for the polling client: %d ms (polls saw %v)", out.Approved.MSFromApproval, out.Approved.Seen)
	if out.Nodes != 3 || out.Edges != 2 || strings.Join(out.NodeTexts, " ") != "db_query aggregate_stats email_send" {
		t.Errorf("graph in the browser: %d nodes %v, %d edges", out.Nodes, out.NodeTexts, out.Edges)
	}
	if len(out.Dialogs) > 0 || out.InjectedImages > 0 {
		t.Errorf("untrusted markup ran: dialogs %v, %d injected images", out.Dialogs, out.InjectedImages)
	}
	if len(out.ConsoleErrors) > 0 {
		t.Errorf("browser console errors (a CSP violation?): %v", out.ConsoleErrors)
	}
	if out.Denied.Error != "access_denied" || !strings.Contains(out.Denied.Description, "not during the freeze") {
		t.Errorf("denied request: %+v", out.Denied)
	}
	if out.ActivityCharts != 2 {
		t.Errorf("activity page has %d charts, want 2", out.ActivityCharts)
	}
	if !slices.Equal(out.RefusalWitnesses, []string{"[{}]"}) || len(out.RefusalPaths) == 0 || out.RefusalPaths[0] != "rows->data" ||
		len(out.RefusalWitnessErrors) == 0 || !strings.HasPrefix(out.RefusalWitnessErrors[0], "/properties/data/items/type: ") {
		t.Errorf("the latest refusal in the browser: paths %q witnesses %q witness errors %q",
			out.RefusalPaths, out.RefusalWitnesses, out.RefusalWitnessErrors)
	}
	v, err := verify.New(verify.Config{Issuer: h.base, Audience: routerAud, JWKSURL: h.base + "/.well-known/jwks.json"})
	if err != nil {
		t.Fatal(err)
	}
	claims, err := v.Verify(ctx, out.Approved.Token)
	if err != nil {
		t.Fatalf("the token oauth4webapi received: %v", err)
	}
	if a := claims.AuthorizationDetails[0].Approval; a == nil || a.ApprovedBy != consoleUser || claims.ClientID != c.ID {
		t.Errorf("token claims %+v", claims)
	}
	for _, f := range []string{"approvals.png", "activity.png"} {
		checkScreenshot(t, filepath.Join(artifacts, f))
	}
}

// checkScreenshot fails on a missing, tiny or blank image: at least 2% of
// the pixels must differ from the first one, in at least 8 colours.
func checkScreenshot(t *testing.T, file string) {
	t.Helper()
	f, err := os.Open(file)
	if err != nil {
		t.Fatalf("screenshot: %v", err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatalf("screenshot %s: %v", file, err)
	}
	b := img.Bounds()
	if b.Dx() < 800 || b.Dy() < 400 {
		t.Fatalf("screenshot %s is %v", file, b)
	}
	bg := img.At(b.Min.X, b.Min.Y)
	colours := map[[4]uint32]bool{}
	differ := 0
	for y := b.Min.Y; y < b.Max.Y; y += 2 {
		for x := b.Min.X; x < b.Max.X; x += 2 {
			c := img.At(x, y)
			if c != bg {
				differ++
			}
			r, g, bl, a := c.RGBA()
			colours[[4]uint32{r >> 12, g >> 12, bl >> 12, a >> 12}] = true
		}
	}
	total := (b.Dx() / 2) * (b.Dy() / 2)
	if differ*50 < total || len(colours) < 8 {
		t.Errorf("screenshot %s looks blank: %d of %d pixels differ from the background, %d colours", file, differ, total, len(colours))
	}
	var _ image.Image = img
}
