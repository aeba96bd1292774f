package verify_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/golang-jwt/jwt/v5"

	"github.com/typeward/typeward/verify"
)

// FuzzVerify: no token makes Verify panic, and whatever it accepts carries
// the checked claims.
func FuzzVerify(f *testing.F) {
	a := newAuthServer(f, "ES256")
	signer, _ := a.ring.Signer()
	good := a.mint(f, grant)
	for _, seed := range []string{
		good,
		good[:len(good)-3],
		a.forge(f, jwt.SigningMethodNone, map[string]any{"typ": "at+jwt", "kid": signer.KID}, a.validClaims(), jwt.UnsafeAllowNoneSignatureType),
		a.forge(f, jwt.SigningMethodES256, map[string]any{"typ": "at+jwt", "kid": signer.KID}, jwt.MapClaims{"exp": 1e300, "aud": []any{1, nil}}, signer.Key),
		"", ".", "..", "a.b.c", "eyJhbGciOiJFUzI1NiIsInR5cCI6ImF0K2p3dCJ9.eyJleHAiOi0xfQ.",
		strings.Repeat("eyJ9.", 40),
	} {
		f.Add(seed)
	}
	// The key source is the keyring itself: no HTTP in the loop.
	v := a.verifier(f, func(c *verify.Config) { c.Keys = a.ring })
	f.Fuzz(func(t *testing.T, tok string) {
		c, err := v.Verify(context.Background(), tok)
		if err != nil {
			if c != nil || !errors.Is(err, verify.ErrInvalidToken) {
				t.Fatalf("Verify = %v, %v", c, err)
			}
			return
		}
		if c.Issuer != issuer || !slices.Contains(c.Audience, resource) || c.ID == "" || c.ClientID == "" || c.Subject == "" ||
			c.ExpiresAt.Before(a.clock.Now().Add(-verify.DefaultLeeway)) {
			t.Fatalf("accepted claims %+v", c)
		}
	})
}

// FuzzToolName: no request body makes ToolName panic, an error never comes
// with a name, and the body is always put back whole.
func FuzzToolName(f *testing.F) {
	for _, seed := range []struct{ body, name string }{
		{`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"db_query"}}`, ""},
		{`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"db_query"}}`, "db_query"},
		{`[{"method":"tools/list"},{"method":"tools/call","params":{"name":"x"}}]`, ""},
		{`{"method":"tools/call","params":{"name":"a","Name":"b"}}`, "a"},
		{`{"method":"tools/call","params":[]}`, ""},
		{`{"\u006dethod":"tools/call","params":{"name":"x"}}`, ""},
		{``, "x"},
		{`[[[[`, ""},
	} {
		f.Add(seed.body, seed.name)
	}
	f.Fuzz(func(t *testing.T, body, header string) {
		r := httptest.NewRequest(http.MethodPost, "/mcp", strings.NewReader(body))
		r.Header.Set("Mcp-Name", header)
		name, err := verify.ToolName(r, 1<<16)
		if err != nil && name != "" {
			t.Fatalf("ToolName = %q with error %v", name, err)
		}
		if rest, err := io.ReadAll(r.Body); err != nil || string(rest) != body {
			t.Fatalf("body not put back: %q, %v", rest, err)
		}
	})
}
