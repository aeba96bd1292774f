package oauth

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"sync"
	"time"

	"github.com/typeward/typeward/internal/audit"
	"github.com/typeward/typeward/internal/clients"
	"github.com/typeward/typeward/internal/compat"
	"github.com/typeward/typeward/internal/composition"
	"github.com/typeward/typeward/internal/registry"
	"github.com/typeward/typeward/internal/token"
	"github.com/typeward/typeward/verify"
)

var testNow = time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)

// fakeAuth knows clients by id and secret.
type fakeAuth map[string]struct {
	secret string
	client *clients.Client
}

func (f fakeAuth) Authenticate(_ context.Context, form url.Values, authorization string) (*clients.Client, error) {
	id, secret := form.Get("client_id"), form.Get("client_secret")
	if authorization != "" {
		var err error
		if id, secret, err = clients.ParseBasic(authorization); err != nil {
			return nil, &clients.AuthError{Code: clients.InvalidClient, Reason: clients.ReasonMalformed, Description: "malformed", BasicHeader: true}
		}
	}
	e, ok := f[id]
	if !ok || e.secret != secret {
		return nil, &clients.AuthError{Code: clients.InvalidClient, Reason: clients.ReasonBadSecret,
			Description: "client authentication failed", BasicHeader: authorization != "", ClientID: id}
	}
	return e.client, nil
}

// fakeValidator answers by the tool of the composition's first node, and
// counts its calls.
type fakeValidator struct {
	results map[string]*composition.Result
	mu      sync.Mutex
	calls   int
}

func (f *fakeValidator) Validate(_ context.Context, c *composition.Composition) (*composition.Result, error) {
	f.mu.Lock()
	f.calls++
	f.mu.Unlock()
	if c.Nodes[0].Tool == "boom" {
		return nil, errors.New("registry down: secret detail")
	}
	if c.Nodes[0].Composition != "" {
		return f.results["valid"], nil
	}
	return f.results[c.Nodes[0].Tool], nil
}

// caseDoc is a composition the fakeValidator answers with f[name].
func caseDoc(name string) string { return `{"nodes":[{"id":"n","tool":"` + name + `"}]}` }

type fakeCompositions map[string]string

func (f fakeCompositions) Composition(_ context.Context, name string) (registry.Composition, error) {
	if doc, ok := f[name]; ok {
		return registry.Composition{Name: name, Definition: json.RawMessage(doc)}, nil
	}
	return registry.Composition{}, fmt.Errorf("composition %s: %w", name, registry.ErrNotFound)
}

// fakeMinter records grants and hands out numbered tokens.
type fakeMinter struct {
	mu     sync.Mutex
	grants []token.Grant
}

func (f *fakeMinter) Mint(g token.Grant) (token.Minted, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.grants = append(f.grants, g)
	n := len(f.grants)
	return token.Minted{Token: fmt.Sprintf("h.tok%d.s", n), Claims: verify.Claims{
		ID: fmt.Sprintf("jti-%d", n), IssuedAt: testNow, ExpiresAt: testNow.Add(5 * time.Minute), Scope: token.Scope(g.Tools, g.Scopes)}}, nil
}

type fakeAudit struct {
	mu        sync.Mutex
	decisions []audit.Issuance
}

func (f *fakeAudit) Append(_ context.Context, rec *audit.Issuance) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.decisions = append(f.decisions, *rec)
	return nil
}

type fakeLimiter struct{ deny map[string]bool }

func (f fakeLimiter) Allow(id string) (bool, time.Duration) {
	if f.deny[id] {
		return false, 7 * time.Second
	}
	return true, 0
}

// fakeVerifier knows tokens by their text.
type fakeVerifier map[string]*verify.Claims

func (f fakeVerifier) Verify(_ context.Context, raw string) (*verify.Claims, error) {
	if t, ok := f[raw]; ok {
		return t, nil
	}
	return nil, errors.New("bad signature")
}

type fakeRevocations struct {
	mu      sync.Mutex
	revoked map[string]time.Time
}

func (f *fakeRevocations) Revoke(_ context.Context, jti string, exp time.Time) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.revoked == nil {
		f.revoked = map[string]time.Time{}
	}
	f.revoked[jti] = exp
	return nil
}

func (f *fakeRevocations) IsRevoked(_ context.Context, jti string) (bool, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	_, ok := f.revoked[jti]
	return ok, nil
}

var (
	routerAud  = "https://router.example.com/mcp"
	validTools = []composition.ToolRef{
		{Name: "db_query", Version: 1, Digest: "sha256:aa"},
		{Name: "aggregate_stats", Version: 1, Digest: "sha256:bb"},
	}
	warning = compat.Issue{Severity: compat.SeverityWarning, Code: "untyped_source", SourceTool: "db_query",
		TargetTool: "aggregate_stats", Edge: "q->stats", FieldPath: "rows->records", Message: "untyped"}
	mismatch = compat.Issue{Severity: compat.SeverityError, Code: "type_mismatch", SourceTool: "db_query",
		TargetTool: "transform_csv", Edge: "q->csv", FieldPath: "rows->data",
		SourcePointer: "/properties/rows/items/type", TargetPointer: "/properties/data/items/type",
		Message: "rows[] is object but data[] expects string"}
)

type fixture struct {
	svc     *Service
	minter  *fakeMinter
	audit   *fakeAudit
	revoked *fakeRevocations
}

func newFixture() *fixture {
	f := &fixture{minter: &fakeMinter{}, audit: &fakeAudit{}, revoked: &fakeRevocations{}}
	f.svc = &Service{
		Issuer: "https://as.example.com",
		Authenticator: fakeAuth{
			"app":     {"s3cret", &clients.Client{ID: "app", AllowedTools: []string{"*"}, AllowedAudiences: []string{routerAud}}},
			"multi":   {"s3cret", &clients.Client{ID: "multi", AllowedTools: []string{"*"}, AllowedAudiences: []string{routerAud, "https://other.example.com"}}},
			"narrow":  {"s3cret", &clients.Client{ID: "narrow", AllowedTools: []string{"db_query"}, AllowedAudiences: []string{routerAud}}},
			"admin":   {"s3cret", &clients.Client{ID: "admin", AllowedScopes: []string{AdminScope}}},
			"limited": {"s3cret", &clients.Client{ID: "limited", AllowedTools: []string{"*"}, AllowedAudiences: []string{routerAud}}},
		},
		Validator: &fakeValidator{results: map[string]*composition.Result{
			"valid": {Digest: "sha256:cc", Tools: validTools, Edges: []composition.EdgeRef{{From: "db_query", To: "aggregate_stats"}}},
			"warn":  {Digest: "sha256:dd", Tools: validTools, Issues: []compat.Issue{warning}},
			"bad":   {Digest: "sha256:ee", Tools: validTools, Issues: []compat.Issue{warning, mismatch}},
		}},
		Compositions: fakeCompositions{"stored": caseDoc("valid")},
		Minter:       f.minter,
		Verifier:     fakeVerifier{},
		Revocations:  f.revoked,
		Limiter:      fakeLimiter{deny: map[string]bool{"limited": true}},
		Audit:        f.audit,
		Now:          func() time.Time { return testNow },
	}
	return f
}
