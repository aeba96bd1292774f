package oauth

import (
	"context"
	"testing"
	"time"

	"github.com/typeward/typeward/internal/ratelimit"
)

const failureBurst = 5

func withFailureLimit(t *testing.T, f *fixture) {
	t.Helper()
	limiter := func() FailureLimiter {
		l, err := ratelimit.New(ratelimit.Config{Rate: 1, Burst: failureBurst, Now: func() time.Time { return testNow }})
		if err != nil {
			t.Fatal(err)
		}
		return l
	}
	f.svc.Failures = FailureLimits{ByAddress: limiter(), ByClient: limiter()}
}

func tokenFrom(f *fixture, addr, authorization string) error {
	ctx := WithRemoteAddr(context.Background(), addr)
	_, err := f.svc.Token(ctx, form("grant_type", "client_credentials", "resource", routerAud,
		"authorization_details", details(validDoc)), authorization)
	return err
}

var validDoc string

// TestFailedAuthenticationIsLimitedPerAddress: once an address has failed
// its burst, its requests are refused with 429 and Retry-After before any
// credential is checked; other addresses are not affected.
func TestFailedAuthenticationIsLimitedPerAddress(t *testing.T) {
	f := newFixture(t)
	withFailureLimit(t, f)
	validDoc = exampleDoc(t, "pipeline-valid.json")
	for i := range failureBurst {
		if e := AsError(tokenFrom(f, "203.0.113.7:4000", basicAuth("app", "wrong"))); e.Code != CodeInvalidClient {
			t.Fatalf("failure %d: %v, want invalid_client", i, e)
		}
	}
	e := AsError(tokenFrom(f, "203.0.113.7:4001", basicAuth("app", "wrong")))
	if e.Kind != KindRateLimited || e.RetryAfter <= 0 {
		t.Fatalf("failure past the burst: %v (retry after %v), want 429", e, e.RetryAfter)
	}
	if e := AsError(tokenFrom(f, "203.0.113.7:4002", basicAuth("nobody", "x"))); e.Kind != KindRateLimited {
		t.Errorf("the blocked address, another client id: %v, want 429", e)
	}
	if err := tokenFrom(f, "198.51.100.1:5000", creds("app")); err != nil {
		t.Errorf("another address with the right secret: %v", err)
	}
	last := f.decisions(t)
	if rec := last[len(last)-2]; rec.Reason != ReasonTooManyFailures || rec.ClientID != "nobody" {
		t.Errorf("audit record of the blocked request %+v", rec)
	}
}

// TestFailuresCannotLockOutARealClient: an attacker failing as "app" from
// many addresses spends app's failure count, and gets 429s; the real app,
// with its secret, still gets every token its own bucket allows.
func TestFailuresCannotLockOutARealClient(t *testing.T) {
	f := newFixture(t)
	withFailureLimit(t, f)
	validDoc = exampleDoc(t, "pipeline-valid.json")
	limited := 0
	for i := range 3 * failureBurst {
		addr := "203.0.113." + string(rune('0'+i%10)) + ":1"
		if AsError(tokenFrom(f, addr, basicAuth("app", "guess"))).Kind == KindRateLimited {
			limited++
		}
	}
	if limited < failureBurst {
		t.Errorf("%d of %d failed attempts as app were limited", limited, 3*failureBurst)
	}
	for i := range testBurst { // the whole success bucket is still there
		if err := tokenFrom(f, "198.51.100.1:5000", creds("app")); err != nil {
			t.Fatalf("the real client's request %d after the attack: %v", i, err)
		}
	}
	if e := AsError(tokenFrom(f, "198.51.100.1:5000", creds("app"))); e.Kind != KindRateLimited {
		t.Errorf("request past the success burst: %v, want the ordinary 429", e)
	}
}

// TestIntrospectionAndRevocationAreLimited: each has a per-client bucket
// of its own.
func TestIntrospectionAndRevocationAreLimited(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	for name, call := range map[string]func() error{
		"introspection": func() error { _, err := f.svc.Introspect(ctx, form("token", "x.y.z"), creds("multi")); return err },
		"revocation":    func() error { return f.svc.Revoke(ctx, form("token", "x.y.z"), creds("multi")) },
	} {
		for i := range testBurst {
			if err := call(); err != nil {
				t.Fatalf("%s %d: %v", name, i, err)
			}
		}
		if e := AsError(call()); e.Kind != KindRateLimited || e.RetryAfter <= 0 {
			t.Errorf("%s past its burst: %v, want 429 with a wait", name, e)
		}
	}
	if _, err := f.svc.Token(ctx, form("grant_type", "client_credentials", "resource", routerAud,
		"authorization_details", details(exampleDoc(t, "pipeline-valid.json"))), creds("multi")); err != nil {
		t.Errorf("a token after spending the introspection and revocation buckets: %v", err)
	}
}

// TestFailureLimitsAreSeparate: an address allowed many failures (many
// pipelines behind one NAT) still has each client id it claims limited by
// the client id's own, smaller, bucket; other ids from it are unaffected.
func TestFailureLimitsAreSeparate(t *testing.T) {
	f := newFixture(t)
	validDoc = exampleDoc(t, "pipeline-valid.json")
	limiter := func(burst int) FailureLimiter {
		l, err := ratelimit.New(ratelimit.Config{Rate: 1, Burst: burst, Now: func() time.Time { return testNow }})
		if err != nil {
			t.Fatal(err)
		}
		return l
	}
	f.svc.Failures = FailureLimits{ByAddress: limiter(100), ByClient: limiter(failureBurst)}
	const nat = "203.0.113.7:4000"
	for i := range failureBurst {
		if e := AsError(tokenFrom(f, nat, basicAuth("app", "guess"))); e.Code != CodeInvalidClient {
			t.Fatalf("failure %d as app: %v, want invalid_client", i, e)
		}
	}
	if e := AsError(tokenFrom(f, nat, basicAuth("app", "guess"))); e.Kind != KindRateLimited {
		t.Errorf("app's failures past its burst: %v, want 429", e)
	}
	if e := AsError(tokenFrom(f, nat, basicAuth("other", "guess"))); e.Code != CodeInvalidClient {
		t.Errorf("another id from the same address: %v, want invalid_client (the address has room)", e)
	}
	if err := tokenFrom(f, nat, creds("app")); err != nil {
		t.Errorf("app with its secret from the same address: %v", err)
	}
}
