package server_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"html"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestConsentPageRefusesFrames: another site frames typeward's
// authorization page in headless Chromium; the browser refuses to show
// it (frame-ancestors 'none'), while the framer's own frame beside it
// renders (the control: a detection that saw nothing would fail there).
func TestConsentPageRefusesFrames(t *testing.T) {
	scripts := browserScripts(t, "framed.mjs")
	h := cibaHarness(t, embedded)
	host := registerHost(h, h.adminToken())
	framer := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		if r.URL.Path == "/control" {
			_, _ = io.WriteString(w, "<!doctype html><p>control frame rendered</p>")
			return
		}
		_, _ = fmt.Fprintf(w, `<!doctype html><iframe id="consent" src="%s"></iframe><iframe id="control" src="/control"></iframe>`,
			html.EscapeString(h.base+authorizeURL(host.ID)))
	}))
	defer framer.Close()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "node", filepath.Join(scripts, "framed.mjs"))
	cmd.Env = append(os.Environ(), "TW_FRAMER_URL="+framer.URL+"/")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("framed.mjs: %v\nstderr:\n%s\nstdout:\n%s", err, stderr.String(), stdout.String())
	}
	var out struct {
		Consent, Control struct{ URL, Text string }
		Console          []string
	}
	if err := json.Unmarshal(stdout.Bytes(), &out); err != nil {
		t.Fatalf("framed.mjs printed %q: %v", stdout.String(), err)
	}
	if !strings.Contains(out.Control.Text, "control frame rendered") {
		t.Fatalf("the control frame did not render: %+v", out)
	}
	if strings.Contains(out.Consent.Text, "Sign in") || strings.Contains(out.Consent.Text, "Desk Host") {
		t.Errorf("the framed consent page rendered: %+v", out)
	}
	if !strings.Contains(strings.Join(out.Console, "\n"), "frame-ancestors") {
		t.Errorf("Chromium reported no frame-ancestors refusal: %v", out.Console)
	}
}
