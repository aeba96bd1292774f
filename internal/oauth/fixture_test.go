package oauth

import (
	"context"
	"encoding/base64"
	"errors"
	"net/url"
	"os"
	"sync/atomic"
	"testing"
	"time"

	"github.com/typeward/typeward/internal/audit"
	"github.com/typeward/typeward/internal/clients"
	"github.com/typeward/typeward/internal/compat"
	"github.com/typeward/typeward/internal/composition"
	"github.com/typeward/typeward/internal/grading"
	"github.com/typeward/typeward/internal/keys"
	"github.com/typeward/typeward/internal/ratelimit"
	"github.com/typeward/typeward/internal/registry"
	"github.com/typeward/typeward/internal/store/memory"
	"github.com/typeward/typeward/internal/token"
	"github.com/typeward/typeward/internal/verdict"
	"github.com/typeward/typeward/verify"
	"github.com/typeward/typeward/verify/dpop"
)

// The tests run the Service on the real parts of the embedded default:
// the memory stores, the client authenticator, the composition validator
// over the example registry, the keyring, minter and verifier. Only the
// clock is fixed.
var testNow = time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)

const (
	issuer    = "https://as.example.com"
	routerAud = "https://router.example.com/mcp"
	secret    = "s3cret-of-every-test-client"
)

// testClients are registered in every fixture, each with secret.
var testClients = []clients.Client{
	{ID: "app", AllowedTools: []string{"*"}, AllowedAudiences: []string{routerAud}},
	{ID: "multi", AllowedTools: []string{"*"}, AllowedAudiences: []string{routerAud, "https://other.example.com"}},
	{ID: "narrow", AllowedTools: []string{"db_query"}, AllowedAudiences: []string{routerAud}},
	{ID: "admin", AllowedScopes: []string{clients.AdminScope}},
	// reader may open resources and prompts beside its tools.
	{ID: "reader", AllowedTools: []string{"*"}, AllowedAudiences: []string{routerAud}, AllowedScopes: []string{verify.ScopeResources, verify.ScopePrompts}},
	{ID: "careful", AllowedTools: []string{"*"}, AllowedAudiences: []string{routerAud}, Approval: clients.ApprovalMutating},
	{ID: "strict", AllowedTools: []string{"*"}, AllowedAudiences: []string{routerAud}, Approval: clients.ApprovalDestructive},
	{ID: "always", AllowedTools: []string{"*"}, AllowedAudiences: []string{routerAud}, Approval: clients.ApprovalAlways},
	{ID: "rigorous", AllowedTools: []string{"*"}, AllowedAudiences: []string{routerAud}, Validation: grading.Strict},
	// bound gets DPoP-bound tokens only (dpop_bound_access_tokens).
	{ID: "bound", AllowedTools: []string{"*"}, AllowedAudiences: []string{routerAud}, DPoPBound: true},
	{ID: "off", AllowedTools: []string{"*"}, AllowedAudiences: []string{routerAud}, Disabled: true},
	// legacy was registered, before registration refused it, with the
	// issuer as an audience.
	{ID: "legacy", AllowedTools: []string{"*"}, AllowedAudiences: []string{routerAud, issuer}},
	// host is a confidential MCP host of the authorization code flow.
	{ID: "host", AllowedTools: []string{"*"}, AllowedAudiences: []string{routerAud},
		RedirectURIs: []string{"https://host.example/cb"}, GrantTypes: []string{clients.GrantAuthorizationCode}},
	// pub is a public MCP host (no secret), careful-pub one whose policy
	// sends mutating compositions to an approver.
	{ID: "pub", TokenEndpointAuthMethod: clients.None, AllowedTools: []string{"*"}, AllowedAudiences: []string{routerAud},
		RedirectURIs: []string{"http://127.0.0.1/cb", "https://host.example/cb?x=1"},
		GrantTypes:   []string{clients.GrantAuthorizationCode, clients.GrantRefreshToken}},
	{ID: "careful-pub", TokenEndpointAuthMethod: clients.None, AllowedTools: []string{"*"}, AllowedAudiences: []string{routerAud},
		RedirectURIs: []string{"http://127.0.0.1/cb"}, GrantTypes: []string{clients.GrantAuthorizationCode}, Approval: clients.ApprovalMutating},
	// scoped-pub registered a scope (RFC 7591): what a request naming
	// nothing asks for.
	{ID: "scoped-pub", TokenEndpointAuthMethod: clients.None, AllowedTools: []string{"*"}, AllowedAudiences: []string{routerAud},
		RedirectURIs: []string{"http://127.0.0.1/cb"}, GrantTypes: []string{clients.GrantAuthorizationCode},
		AllowedScopes: []string{verify.ScopeResources}, Scope: []string{"mcp:composition:stored", "offline_access"}},
}

// countingValidator counts the validations that reach the real validator.
type countingValidator struct {
	composition.Validates
	calls atomic.Int64
}

func (v *countingValidator) Validate(ctx context.Context, c *composition.Composition) (*composition.Result, error) {
	v.calls.Add(1)
	return v.Validates.Validate(ctx, c)
}

// failingValidator is a registry that is down: nothing real fails on
// demand, and the test needs the failure's detail never to be echoed.
type failingValidator struct{}

func (failingValidator) Validate(context.Context, *composition.Composition) (*composition.Result, error) {
	return nil, errors.New("registry down: secret detail")
}

type fixture struct {
	svc       *Service
	registry  *memory.Registry
	audit     *memory.Audit
	revoked   *memory.Revocations
	clients   *memory.Clients
	keyring   *keys.Keyring
	verifier  *verify.Verifier
	validator *countingValidator
}

func newFixture(t testing.TB) *fixture {
	t.Helper()
	ctx := context.Background()
	clock := func() time.Time { return testNow }
	f := &fixture{registry: memory.NewRegistry(), audit: memory.NewAudit(0), revoked: memory.NewRevocations()}

	data, err := os.ReadFile("../../examples/registry.json")
	if err != nil {
		t.Fatal(err)
	}
	lists, err := registry.ParseToolsFile(data)
	if err != nil {
		t.Fatal(err)
	}
	for _, list := range lists {
		for _, tool := range list.Tools {
			if _, err := f.registry.DeclareTool(ctx, list.Server, tool); err != nil {
				t.Fatal(err)
			}
		}
	}
	if _, err := f.registry.PutComposition(ctx, "stored", []byte(exampleDoc(t, "pipeline-valid.json"))); err != nil {
		t.Fatal(err)
	}

	store, hasher := memory.NewClients(), clients.NewRandomHasher()
	f.clients = store
	for _, c := range testClients {
		if c.TokenEndpointAuthMethod == "" {
			c.TokenEndpointAuthMethod = clients.SecretBasic
			c.SecretHash = hasher.Hash(c.ID, secret)
		}
		if err := store.Create(ctx, &c); err != nil {
			t.Fatal(err)
		}
	}
	auth, err := clients.NewAuthenticator(clients.AuthenticatorConfig{Clients: store, Hasher: hasher,
		Replay: memory.NewAssertionReplay(), Issuer: issuer, Now: clock})
	if err != nil {
		t.Fatal(err)
	}

	f.keyring = newKeyring(t, clock)
	minter, err := token.NewMinter(token.Config{Issuer: issuer, TTL: 5 * time.Minute, Signers: f.keyring, Now: clock})
	if err != nil {
		t.Fatal(err)
	}
	f.verifier, err = verify.New(verify.Config{Issuer: issuer, AcceptAnyAudience: true, Keys: f.keyring, Now: clock})
	if err != nil {
		t.Fatal(err)
	}
	proofs, err := dpop.New(dpop.Config{Replay: memory.NewProofReplay(memory.NewAssertionReplay(), clock), Now: clock})
	if err != nil {
		t.Fatal(err)
	}
	limiter, err := ratelimit.New(ratelimit.Config{Rate: 1, Burst: testBurst, Now: clock})
	if err != nil {
		t.Fatal(err)
	}
	resolver := registry.NewCache(f.registry)
	f.registry.Watch(resolver.Invalidate) // as the server wires it
	f.validator = &countingValidator{Validates: composition.NewValidator(resolver, f.registry, compat.NewChecker())}
	f.svc = &Service{
		Issuer: issuer, Authenticator: auth, Validator: f.validator, Compositions: f.registry, Declarations: f.registry,
		Minter: minter, Verifier: f.verifier, DPoP: proofs, Revocations: f.revoked, Clients: store, Limiter: limiter,
		Audit: f.audit, Now: auditClock(), Grants: Grants{Store: memory.NewGrants()},
	}
	return f
}

// testBurst is how many token requests a client may make at once.
const testBurst = 20

// auditClock is the Service's clock: testNow, a microsecond later at each
// reading, so that the audit log's newest-first order is the order of the
// requests.
func auditClock() func() time.Time {
	var ticks atomic.Int64
	return func() time.Time { return testNow.Add(time.Duration(ticks.Add(1)) * time.Microsecond) }
}

func newKeyring(t testing.TB, clock func() time.Time) *keys.Keyring {
	t.Helper()
	kek, err := keys.GenerateKEK()
	if err != nil {
		t.Fatal(err)
	}
	ring, err := keys.New(context.Background(), keys.Config{Store: memory.NewKeys(), KEK: kek, Now: clock})
	if err != nil {
		t.Fatal(err)
	}
	return ring
}

// decisions is the audit log, oldest first.
func (f *fixture) decisions(t testing.TB) []audit.Issuance {
	t.Helper()
	page, err := f.audit.Query(context.Background(), audit.Query{Limit: audit.MaxLimit})
	if err != nil {
		t.Fatal(err)
	}
	out := make([]audit.Issuance, len(page.Items))
	for i, rec := range page.Items {
		out[len(out)-1-i] = rec
	}
	return out
}

// isRevoked asks the revocation store.
func (f *fixture) isRevoked(t testing.TB, jti string) bool {
	t.Helper()
	ok, err := f.revoked.IsRevoked(context.Background(), jti)
	if err != nil {
		t.Fatal(err)
	}
	return ok
}

func exampleDoc(t testing.TB, name string) string {
	t.Helper()
	doc, err := os.ReadFile("../../examples/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return string(doc)
}

// creds is the Authorization header of a test client with the right secret.
func creds(id string) string { return basicAuth(id, secret) }

func basicAuth(id, secret string) string {
	return "Basic " + base64.StdEncoding.EncodeToString([]byte(url.QueryEscape(id)+":"+url.QueryEscape(secret)))
}

func details(composition string) string {
	return `[{"type":"mcp_composition","composition":` + composition + `}]`
}

func form(kv ...string) url.Values {
	v := url.Values{}
	for i := 0; i < len(kv); i += 2 {
		v.Add(kv[i], kv[i+1])
	}
	return v
}

// issueKey is what the tests compare of an issue: everything but the
// wording, which belongs to package compat.
type issueKey struct {
	Severity                   verdict.Severity
	Code, Source, Target, Edge string
	FieldPath                  string
}

func issueKeys(issues []verdict.Issue) []issueKey {
	var out []issueKey
	for _, is := range issues {
		out = append(out, issueKey{is.Severity, is.Code, is.SourceTool, is.TargetTool, is.Edge, is.FieldPath})
	}
	return out
}

// The example pipelines' verdicts (examples/pipeline-*.json).
var (
	unboundTo = issueKey{verdict.SeverityWarning, "unbound_required_input", "", "email_send", "", "->to"}
	csvRows   = issueKey{verdict.SeverityError, "type_mismatch", "db_query", "transform_csv", "q->csv", "rows->data"}
)
