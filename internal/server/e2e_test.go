package server_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/go-jose/go-jose/v4"

	"github.com/typeward/typeward/internal/server"
	"github.com/typeward/typeward/internal/verdict"
)

const routerAud = "https://router.example.com/mcp"

// jwtClaims are what the independent check reads from a token.
type jwtClaims struct {
	Iss      string   `json:"iss"`
	Sub      string   `json:"sub"`
	ClientID string   `json:"client_id"`
	Aud      string   `json:"aud"`
	Exp      int64    `json:"exp"`
	Iat      int64    `json:"iat"`
	JTI      string   `json:"jti"`
	Scope    string   `json:"scope"`
	MCPTools []string `json:"mcp_tools"`
	Details  []struct {
		Type   string `json:"type"`
		Digest string `json:"digest"`
		Tools  []struct {
			Name    string `json:"name"`
			Version int    `json:"version"`
			Digest  string `json:"digest"`
		} `json:"tools"`
	} `json:"authorization_details"`
}

// verifyWithJWKS checks a token as a gateway would, with go-jose and only
// the published JWKS: algorithm, typ, kid, signature, iss, aud, exp.
func verifyWithJWKS(h *harness, raw, aud string) (jwtClaims, string, error) {
	h.t.Helper()
	r := h.get("/.well-known/jwks.json")
	var set jose.JSONWebKeySet
	r.json(h.t, &set)
	for _, k := range set.Keys {
		if !k.IsPublic() {
			h.t.Fatalf("JWKS publishes a private key: %s", k.KeyID)
		}
	}
	jws, err := jose.ParseSignedCompact(raw, []jose.SignatureAlgorithm{jose.ES256, jose.EdDSA})
	if err != nil {
		return jwtClaims{}, "", err
	}
	hdr := jws.Signatures[0].Header
	if typ, _ := hdr.ExtraHeaders[jose.HeaderType].(string); typ != "at+jwt" {
		return jwtClaims{}, "", fmt.Errorf("typ %q", typ)
	}
	keys := set.Key(hdr.KeyID)
	if len(keys) != 1 {
		return jwtClaims{}, hdr.KeyID, fmt.Errorf("kid %q: %d published keys", hdr.KeyID, len(keys))
	}
	payload, err := jws.Verify(keys[0])
	if err != nil {
		return jwtClaims{}, hdr.KeyID, err
	}
	var c jwtClaims
	if err := json.Unmarshal(payload, &c); err != nil {
		return c, hdr.KeyID, err
	}
	switch {
	case c.Iss != h.base:
		return c, hdr.KeyID, fmt.Errorf("iss %q", c.Iss)
	case c.Aud != aud:
		return c, hdr.KeyID, fmt.Errorf("aud %q", c.Aud)
	case time.Unix(c.Exp, 0).Before(time.Now()):
		return c, hdr.KeyID, errors.New("expired")
	}
	return c, hdr.KeyID, nil
}

// tokenAnswer is the token endpoint's success answer.
type tokenAnswer struct {
	AccessToken string          `json:"access_token"`
	TokenType   string          `json:"token_type"`
	ExpiresIn   int             `json:"expires_in"`
	Scope       string          `json:"scope"`
	Warnings    []verdict.Issue `json:"warnings"`
}

type errorAnswer struct {
	Error       string          `json:"error"`
	Description string          `json:"error_description"`
	Issues      []verdict.Issue `json:"issues"`
}

func TestEndToEnd(t *testing.T) {
	for _, m := range []mode{embedded, database} {
		t.Run(string(m), func(t *testing.T) {
			t.Parallel()
			scenario(t, start(t, m, func(c *server.Config) { c.Registry = "" }))
		})
	}
}

// scenario is the issue's end-to-end story against a server whose
// registry starts empty.
func scenario(t *testing.T, h *harness) {
	admin := h.adminToken()

	// Register the example tools through the admin API.
	var file struct {
		Tools []json.RawMessage `json:"tools"`
	}
	data, err := os.ReadFile("../../examples/registry.json")
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &file); err != nil {
		t.Fatal(err)
	}
	for _, tool := range file.Tools {
		var named struct{ Name string }
		_ = json.Unmarshal(tool, &named)
		if r := h.admin(http.MethodPut, "/admin/v1/tools/"+named.Name, admin, []byte(tool)); r.status != http.StatusCreated {
			t.Fatalf("PUT tool %s: %d %s", named.Name, r.status, r.body)
		}
	}
	var listed struct {
		Tools []struct{ Name string } `json:"tools"`
	}
	h.admin(http.MethodGet, "/admin/v1/tools", admin, nil).json(t, &listed)
	if len(listed.Tools) != 4 {
		t.Fatalf("tools listed: %+v", listed)
	}

	// Create a client; its secret comes back once.
	r := h.admin(http.MethodPost, "/admin/v1/clients", admin, map[string]any{
		"client_name": "pipeline runner", "allowed_tools": []string{"*"}, "allowed_audiences": []string{routerAud},
	})
	if r.status != http.StatusCreated || r.header.Get("Cache-Control") != "no-store" {
		t.Fatalf("create client: %d %v %s", r.status, r.header, r.body)
	}
	var created struct {
		ID     string `json:"client_id"`
		Secret string `json:"client_secret"`
	}
	r.json(t, &created)
	if created.ID == "" || len(created.Secret) < 43 {
		t.Fatalf("created client %+v", created)
	}
	r = h.admin(http.MethodGet, "/admin/v1/clients/"+created.ID, admin, nil)
	if r.status != http.StatusOK || strings.Contains(string(r.body), created.Secret) {
		t.Fatalf("client read back: %d, leaks secret: %s", r.status, r.body)
	}

	// A token for the valid pipeline, verified independently.
	valid := url.Values{"grant_type": {"client_credentials"}, "resource": {routerAud},
		"authorization_details": {compositionDetails(t, "../../examples/pipeline-valid.json")}}
	r = h.postForm("/oauth2/token", created.ID, created.Secret, valid)
	if r.status != http.StatusOK || r.header.Get("Cache-Control") != "no-store" {
		t.Fatalf("token: %d %v %s", r.status, r.header, r.body)
	}
	var tok tokenAnswer
	r.json(t, &tok)
	if tok.TokenType != "Bearer" || tok.ExpiresIn != 300 || tok.Scope != "mcp:tool:aggregate_stats mcp:tool:db_query mcp:tool:email_send" {
		t.Errorf("token answer %+v", tok)
	}
	claims, firstKID, err := verifyWithJWKS(h, tok.AccessToken, routerAud)
	if err != nil {
		t.Fatalf("independent verification: %v", err)
	}
	if !reflect.DeepEqual(claims.MCPTools, []string{"aggregate_stats", "db_query", "email_send"}) ||
		claims.Sub != created.ID || claims.ClientID != created.ID || len(claims.Details) != 1 ||
		claims.Details[0].Type != "mcp_composition" || len(claims.Details[0].Tools) != 3 || claims.Details[0].Tools[0].Version != 1 {
		t.Errorf("claims %+v", claims)
	}

	// The invalid pipeline: 403 with the exact issue list.
	invalid := url.Values{"grant_type": {"client_credentials"},
		"authorization_details": {compositionDetails(t, "../../examples/pipeline-invalid.json")}}
	r = h.postForm("/oauth2/token", created.ID, created.Secret, invalid)
	var refused errorAnswer
	r.json(t, &refused)
	wantIssues := []verdict.Issue{
		{Severity: verdict.SeverityError, Code: "type_mismatch", SourceTool: "db_query", TargetTool: "transform_csv",
			Edge: "q->csv", FieldPath: "rows->data", SourcePointer: "/properties/rows/items/type",
			TargetPointer: "/properties/data/items/type", Message: "rows[] is object but data[] expects string",
			Verdict: verdict.Incompatible, Witness: json.RawMessage(`[{}]`),
			WitnessError: &verdict.WitnessError{KeywordLocation: "/properties/data/items/type", Message: "at '/0': got object, want string"}},
		{Severity: verdict.SeverityWarning, Code: "unbound_required_input", TargetTool: "email_send", FieldPath: "->to",
			Message: "node mail: email_send requires input to, and no edge feeds it"},
	}
	if r.status != http.StatusForbidden || refused.Error != "invalid_authorization_details" || !reflect.DeepEqual(refused.Issues, wantIssues) {
		t.Errorf("invalid pipeline: %d %s\nwant issues %+v", r.status, r.body, wantIssues)
	}

	// Introspect, revoke, introspect again.
	introspect := func() map[string]any {
		var got map[string]any
		h.postForm("/oauth2/introspect", created.ID, created.Secret, url.Values{"token": {tok.AccessToken}}).json(t, &got)
		return got
	}
	if got := introspect(); got["active"] != true || got["jti"] != claims.JTI || got["client_id"] != created.ID {
		t.Errorf("introspection of a live token: %v", got)
	}
	if r := h.postForm("/oauth2/revoke", created.ID, created.Secret, url.Values{"token": {tok.AccessToken}}); r.status != http.StatusOK {
		t.Fatalf("revoke: %d %s", r.status, r.body)
	}
	if got := introspect(); !reflect.DeepEqual(got, map[string]any{"active": false}) {
		t.Errorf("introspection after revocation: %v", got)
	}
	if r := h.postForm("/oauth2/revoke", created.ID, created.Secret, url.Values{"token": {"not-a-token"}}); r.status != http.StatusOK {
		t.Errorf("revoking an unknown token: %d %s", r.status, r.body)
	}

	// Rotation: the new key is published at once and old tokens still
	// verify; it signs only after the JWKS max-age.
	older := h.postForm("/oauth2/token", created.ID, created.Secret, valid)
	var olderTok tokenAnswer
	older.json(t, &olderTok)
	if r := h.admin(http.MethodPost, "/admin/v1/keys:rotate", admin, nil); r.status != http.StatusCreated {
		t.Fatalf("rotate: %d %s", r.status, r.body)
	}
	var set jose.JSONWebKeySet
	h.get("/.well-known/jwks.json").json(t, &set)
	if len(set.Keys) != 2 {
		t.Fatalf("JWKS after rotation has %d keys", len(set.Keys))
	}
	if _, _, err := verifyWithJWKS(h, olderTok.AccessToken, routerAud); err != nil {
		t.Errorf("token signed before rotation: %v", err)
	}
	h.postForm("/oauth2/token", created.ID, created.Secret, valid).json(t, &tok)
	if _, kid, err := verifyWithJWKS(h, tok.AccessToken, routerAud); err != nil || kid != firstKID {
		t.Errorf("token right after a scheduled rotation: kid %s (first %s), %v", kid, firstKID, err)
	}
	// An emergency rotation signs at once and withdraws the old keys.
	if r := h.admin(http.MethodPost, "/admin/v1/keys:rotate", admin, map[string]any{"emergency": true}); r.status != http.StatusCreated {
		t.Fatalf("emergency rotate: %d %s", r.status, r.body)
	}
	h.postForm("/oauth2/token", created.ID, created.Secret, valid).json(t, &tok)
	if _, kid, err := verifyWithJWKS(h, tok.AccessToken, routerAud); err != nil || kid == firstKID {
		t.Errorf("token after an emergency rotation: kid %s, %v", kid, err)
	}
	if _, _, err := verifyWithJWKS(h, olderTok.AccessToken, routerAud); err == nil {
		t.Errorf("a token of a withdrawn key still verifies")
	}
	// So does the admin token: the admin API wants a new one.
	if r := h.admin(http.MethodGet, "/admin/v1/keys", admin, nil); r.status != http.StatusUnauthorized {
		t.Errorf("admin token of a withdrawn key: %d", r.status)
	}
	admin = h.adminToken()

	// The audit log saw every decision, newest first, page by page.
	var page struct {
		Items []struct {
			Outcome, Reason, JTI string
			IssueCodes           []string `json:"issue_codes"`
		} `json:"items"`
		Next string `json:"next"`
	}
	r = h.admin(http.MethodGet, "/admin/v1/issuances?client_id="+created.ID+"&limit=2", admin, nil)
	r.json(t, &page)
	if len(page.Items) != 2 || page.Next == "" || page.Items[0].Outcome != "issued" {
		t.Fatalf("first page %d %s", r.status, r.body)
	}
	var all []string
	for cursor := ""; ; {
		page.Items, page.Next = nil, ""
		h.admin(http.MethodGet, "/admin/v1/issuances?client_id="+created.ID+"&limit=2&cursor="+cursor, admin, nil).json(t, &page)
		for _, it := range page.Items {
			all = append(all, it.Outcome+":"+it.Reason)
		}
		if cursor = page.Next; cursor == "" {
			break
		}
	}
	// issued, denied (403), issued (older), issued, issued: newest first.
	if want := []string{"issued:", "issued:", "issued:", "denied:invalid_authorization_details", "issued:"}; !slices.Equal(all, want) {
		t.Errorf("audit trail %v, want %v", all, want)
	}
	var denied struct {
		Items []struct {
			IssueCodes []string `json:"issue_codes"`
			Issues     []struct {
				Code         string          `json:"code"`
				FieldPath    string          `json:"field_path"`
				Witness      json.RawMessage `json:"witness"`
				WitnessError struct {
					KeywordLocation string `json:"keyword_location"`
				} `json:"witness_error"`
			} `json:"issues"`
		} `json:"items"`
	}
	h.admin(http.MethodGet, "/admin/v1/issuances?client_id="+created.ID+"&outcome=denied", admin, nil).json(t, &denied)
	if len(denied.Items) != 1 || !slices.Equal(denied.Items[0].IssueCodes, []string{"type_mismatch", "unbound_required_input"}) {
		t.Fatalf("denied issuances %+v", denied)
	}
	// The admin query gives the refusal's witness back, as the 403 showed it.
	if is := denied.Items[0].Issues; len(is) != 2 || is[0].Code != "type_mismatch" || is[0].FieldPath != "rows->data" ||
		string(is[0].Witness) != "[{}]" || is[0].WitnessError.KeywordLocation == "" {
		t.Errorf("denied issuance's issues %+v", is)
	}

	// A schema change reaches the token endpoint at once: the cached
	// validation of the valid pipeline is forgotten.
	changed := `{"name":"aggregate_stats","inputSchema":{"type":"object","properties":{"records":{"type":"array","items":{"type":"object"}}},"required":["records"]},
		"outputSchema":{"type":"object","properties":{"summary":{"type":"integer"}},"required":["summary"]}}`
	if r := h.admin(http.MethodPut, "/admin/v1/tools/aggregate_stats", admin, []byte(changed)); r.status != http.StatusCreated {
		t.Fatalf("new version: %d %s", r.status, r.body)
	}
	r = h.postForm("/oauth2/token", created.ID, created.Secret, valid)
	var broken errorAnswer
	r.json(t, &broken)
	if r.status != http.StatusForbidden || len(broken.Issues) == 0 || broken.Issues[0].Code != "type_mismatch" || broken.Issues[0].Edge != "stats->mail" {
		t.Errorf("after aggregate_stats changed: %d %s", r.status, r.body)
	}

	// Metrics counted by outcome and route pattern, on the operator
	// listener only.
	if r := h.get("/metrics"); r.status != http.StatusNotFound {
		t.Errorf("/metrics on the public listener: %d", r.status)
	}
	metrics := h.scrape()
	for _, want := range []string{
		`typeward_token_requests_total{outcome="denied",reason="invalid_authorization_details"} 2`,
		`typeward_http_request_duration_seconds_count{method="POST",route="/oauth2/token",status="403"} 2`,
		`typeward_validation_issues_total{code="type_mismatch",severity="error"} 2`,
	} {
		if !strings.Contains(metrics, want) {
			t.Errorf("metrics lack %s", want)
		}
	}
}
