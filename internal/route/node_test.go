package route_test

import (
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"testing"

	"github.com/typeward/typeward/internal/jstest"
)

// Independent implementations agree with typeward: npm jose verifies a
// typeward token against the published JWKS (issuer, audience, typ
// at+jwt), and npm canonicalize recomputes, from the registry's copy of a
// tool declaration, the digest the token pins.
func TestNodeInterop(t *testing.T) {
	e := startEnv(t, nil)
	tok := e.pipelineToken(t, e.resource)
	out := jstest.Run(t, tok, "jwt", e.issuer+"/.well-known/jwks.json", e.issuer, e.resource)
	var got struct {
		Header  map[string]any `json:"header"`
		Payload struct {
			JTI     string   `json:"jti"`
			Tools   []string `json:"mcp_tools"`
			Details []struct {
				Tools []struct {
					Name    string `json:"name"`
					Version int    `json:"version"`
					Digest  string `json:"digest"`
				} `json:"tools"`
			} `json:"authorization_details"`
		} `json:"payload"`
	}
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if got.Header["typ"] != "at+jwt" || got.Header["alg"] != "ES256" || got.Payload.JTI == "" ||
		!slices.Equal(got.Payload.Tools, []string{"aggregate_stats", "db_query", "email_send"}) || len(got.Payload.Details) != 1 {
		t.Fatalf("jose read %s", out)
	}
	for _, ref := range got.Payload.Details[0].Tools {
		resp, err := e.http.Get(e.issuer + "/registry/v1/tools/" + ref.Name + "/versions/" + strconv.Itoa(ref.Version))
		if err != nil {
			t.Fatal(err)
		}
		decl, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		file := filepath.Join(t.TempDir(), ref.Name+".json")
		if err := os.WriteFile(file, decl, 0o600); err != nil {
			t.Fatal(err)
		}
		var d struct{ Digest string }
		if err := json.Unmarshal(jstest.Run(t, "", "tool", file), &d); err != nil {
			t.Fatal(err)
		}
		if d.Digest != ref.Digest {
			t.Errorf("%s: canonicalize digests to %s, the token pins %s", ref.Name, d.Digest, ref.Digest)
		}
	}
}
