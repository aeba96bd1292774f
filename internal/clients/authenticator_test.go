package clients_test

import (
	"context"
	"crypto"
	"crypto/ed25519"
	"encoding/base64"
	"encoding/json"
	"errors"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	jose "github.com/go-jose/go-jose/v4"

	"github.com/typeward/typeward/internal/clients"
	"github.com/typeward/typeward/internal/store/memory"
)

const (
	issuer        = "https://as.example.com"
	tokenEndpoint = "https://as.example.com/oauth2/token"
	// adminSecret holds every character form-url-encoding must protect.
	adminID     = "ops:admin+1"
	adminSecret = "p%ss:w+rd/with spaces&=and-more-than-32-characters"
)

// fixture is an Authenticator over a memory store holding one client of
// each method, a disabled one, and an admin whose id and secret need
// form-url-encoding.
type fixture struct {
	auth    *clients.Authenticator
	store   *memory.Clients
	hasher  *clients.Hasher
	now     time.Time
	secrets map[string]string // client id -> secret
}

func newFixture(t testing.TB) *fixture {
	t.Helper()
	ctx := context.Background()
	f := &fixture{
		store:   memory.NewClients(),
		hasher:  testHasher(t),
		now:     time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC),
		secrets: map[string]string{},
	}
	k := loadTestKeys()
	tools := []string{"*"}
	auds := []string{"https://router.example.com/mcp"}
	for _, reg := range []clients.Registration{
		{ClientName: "basic", TokenEndpointAuthMethod: clients.SecretBasic, AllowedTools: tools, AllowedAudiences: auds},
		{ClientName: "post", TokenEndpointAuthMethod: clients.SecretPost, AllowedTools: tools, AllowedAudiences: auds},
		{ClientName: "disabled", AllowedTools: tools, AllowedAudiences: auds},
		{ClientName: "jwt", TokenEndpointAuthMethod: clients.PrivateKeyJWT, AllowedTools: tools, AllowedAudiences: auds,
			JWKS: jwksJSON(t, jwk(k.ec, "ec"), jwk(k.ed, "ed"), jwk(k.rsa, "rsa"))},
		{ClientName: "jwt-disabled", TokenEndpointAuthMethod: clients.PrivateKeyJWT, AllowedTools: tools, AllowedAudiences: auds,
			JWKS: jwksJSON(t, jwk(k.ec, "ec"))},
	} {
		c, secret, err := clients.NewClient(reg, f.hasher, f.now)
		if err != nil {
			t.Fatal(err)
		}
		c.ID = reg.ClientName // readable ids; the hash binds the id, so rehash
		if secret != "" {
			c.SecretHash = f.hasher.Hash(c.ID, secret)
		}
		c.Disabled = strings.HasSuffix(c.ID, "disabled")
		if err := f.store.Create(ctx, c); err != nil {
			t.Fatal(err)
		}
		f.secrets[c.ID] = secret
	}
	if _, err := clients.EnsureAdmin(ctx, f.store, f.hasher, adminID, adminSecret, f.now); err != nil {
		t.Fatal(err)
	}
	f.secrets[adminID] = adminSecret

	auth, err := clients.NewAuthenticator(clients.AuthenticatorConfig{
		Clients: f.store,
		Hasher:  f.hasher,
		Replay:  memory.NewAssertionReplay(),
		Issuer:  issuer,
		Now:     func() time.Time { return f.now },
	})
	if err != nil {
		t.Fatal(err)
	}
	f.auth = auth
	return f
}

// authenticate makes a request with the form and Authorization header a
// test case builds (either may be nil: none) and authenticates it.
func (f *fixture) authenticate(form func(*fixture) url.Values, header func(*fixture) string) (*clients.Client, error) {
	values, authorization := url.Values{}, ""
	if form != nil {
		values = form(f)
	}
	if header != nil {
		authorization = header(f)
	}
	return f.auth.Authenticate(context.Background(), values, authorization)
}

func basic(id, secret string) string {
	return "Basic " + base64.StdEncoding.EncodeToString([]byte(url.QueryEscape(id)+":"+url.QueryEscape(secret)))
}

// sign makes a compact JWS over claims with alg and kid.
func sign(t testing.TB, key any, alg jose.SignatureAlgorithm, kid string, claims map[string]any) string {
	t.Helper()
	opts := (&jose.SignerOptions{}).WithType("JWT")
	if kid != "" {
		opts = opts.WithHeader("kid", kid)
	}
	s, err := jose.NewSigner(jose.SigningKey{Algorithm: alg, Key: key}, opts)
	if err != nil {
		t.Fatal(err)
	}
	payload, _ := json.Marshal(claims)
	obj, err := s.Sign(payload)
	if err != nil {
		t.Fatal(err)
	}
	out, err := obj.CompactSerialize()
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// claimsFor are valid assertion claims for client id at now; edit uses
// them to break one thing.
func claimsFor(id string, now time.Time, edit func(map[string]any)) map[string]any {
	c := map[string]any{
		"iss": id, "sub": id, "aud": issuer,
		"exp": now.Add(2 * time.Minute).Unix(), "iat": now.Unix(), "jti": "jti-" + id,
	}
	if edit != nil {
		edit(c)
	}
	return c
}

func assertionForm(assertion string) url.Values {
	return url.Values{
		"client_assertion_type": {clients.JWTBearerAssertionType},
		"client_assertion":      {assertion},
	}
}

func TestAuthenticateSucceeds(t *testing.T) {
	k := loadTestKeys()
	for _, tc := range []struct {
		name   string
		form   func(f *fixture) url.Values
		header func(f *fixture) string
		want   string
	}{
		{"client_secret_basic", nil, func(f *fixture) string { return basic("basic", f.secrets["basic"]) }, "basic"},
		{"client_secret_basic with matching client_id in the body",
			func(*fixture) url.Values { return url.Values{"client_id": {"basic"}} },
			func(f *fixture) string { return basic("basic", f.secrets["basic"]) }, "basic"},
		{"client_secret_basic, form-url-encoded id and secret", nil,
			func(*fixture) string { return basic(adminID, adminSecret) }, adminID},
		{"client_secret_basic, lower-case scheme, unpadded base64", nil,
			func(f *fixture) string {
				return "basic " + base64.RawStdEncoding.EncodeToString([]byte("basic:"+f.secrets["basic"]))
			}, "basic"},
		{"client_secret_post",
			func(f *fixture) url.Values {
				return url.Values{"client_id": {"post"}, "client_secret": {f.secrets["post"]}}
			},
			nil, "post"},
		{"private_key_jwt ES256",
			func(f *fixture) url.Values {
				return assertionForm(sign(t, k.ec, jose.ES256, "ec", claimsFor("jwt", f.now, nil)))
			}, nil, "jwt"},
		{"private_key_jwt EdDSA, aud is the issuer in an array, client_id given",
			func(f *fixture) url.Values {
				v := assertionForm(sign(t, k.ed, jose.EdDSA, "ed", claimsFor("jwt", f.now, func(c map[string]any) {
					c["aud"] = []string{issuer}
				})))
				v.Set("client_id", "jwt")
				return v
			}, nil, "jwt"},
		{"private_key_jwt RS256 without kid",
			func(f *fixture) url.Values {
				return assertionForm(sign(t, k.rsa, jose.RS256, "", claimsFor("jwt", f.now, nil)))
			}, nil, "jwt"},
		{"private_key_jwt with exp inside the leeway",
			func(f *fixture) url.Values {
				return assertionForm(sign(t, k.ec, jose.ES256, "ec", claimsFor("jwt", f.now, func(c map[string]any) {
					c["exp"] = f.now.Add(-10 * time.Second).Unix()
				})))
			}, nil, "jwt"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := newFixture(t).authenticate(tc.form, tc.header)
			if err != nil {
				t.Fatalf("err = %v", err)
			}
			if c.ID != tc.want {
				t.Errorf("authenticated %q, want %q", c.ID, tc.want)
			}
		})
	}
}

func TestAuthenticateFails(t *testing.T) {
	k := loadTestKeys()
	generic := "client authentication failed"
	signed := func(key crypto.Signer, alg jose.SignatureAlgorithm, kid string, edit func(f *fixture, c map[string]any)) func(f *fixture) url.Values {
		return func(f *fixture) url.Values {
			return assertionForm(sign(t, key, alg, kid, claimsFor("jwt", f.now, func(c map[string]any) {
				if edit != nil {
					edit(f, c)
				}
			})))
		}
	}
	for _, tc := range []struct {
		name      string
		form      func(f *fixture) url.Values
		header    func(f *fixture) string
		code      clients.ErrorCode
		reason    clients.Reason
		desc      string
		basic     bool
		claimedID string
	}{
		{"no credentials", nil, nil, clients.InvalidClient, clients.ReasonNoCredentials, "client authentication required", false, ""},
		{"client_id alone",
			func(*fixture) url.Values { return url.Values{"client_id": {"post"}} }, nil,
			clients.InvalidClient, clients.ReasonNoCredentials, "client authentication required", false, "post"},
		{"wrong secret", nil, func(*fixture) string { return basic("basic", "wrong") },
			clients.InvalidClient, clients.ReasonBadSecret, generic, true, "basic"},
		{"unknown client reads like a wrong secret", nil, func(*fixture) string { return basic("nobody", "wrong") },
			clients.InvalidClient, clients.ReasonUnknownClient, generic, true, "nobody"},
		{"empty id", nil, func(*fixture) string { return basic("", "x") },
			clients.InvalidClient, clients.ReasonUnknownClient, generic, true, ""},
		{"disabled client with its right secret", nil, func(f *fixture) string { return basic("disabled", f.secrets["disabled"]) },
			clients.InvalidClient, clients.ReasonDisabled, "client is disabled", true, "disabled"},
		{"wrong secret of a disabled client does not reveal it is disabled", nil, func(*fixture) string { return basic("disabled", "x") },
			clients.InvalidClient, clients.ReasonBadSecret, generic, true, "disabled"},
		{"id and secret not form-url-encoded", nil,
			func(*fixture) string {
				return "Basic " + base64.StdEncoding.EncodeToString([]byte(adminID+":"+adminSecret))
			}, clients.InvalidClient, clients.ReasonMalformed,
			"malformed Basic credentials: want base64(form-url-encoded client_id, a colon, form-url-encoded client_secret), RFC 6749 section 2.3.1",
			true, ""},
		{"basic client using client_secret_post",
			func(f *fixture) url.Values {
				return url.Values{"client_id": {"basic"}, "client_secret": {f.secrets["basic"]}}
			}, nil, clients.InvalidClient, clients.ReasonMethodMismatch, "client is registered for client_secret_basic", false, "basic"},
		{"post client using client_secret_basic", nil, func(f *fixture) string { return basic("post", f.secrets["post"]) },
			clients.InvalidClient, clients.ReasonMethodMismatch, "client is registered for client_secret_post", true, "post"},
		{"jwt client using a secret", nil, func(*fixture) string { return basic("jwt", "anything") },
			clients.InvalidClient, clients.ReasonMethodMismatch, generic, true, "jwt"},
		{"secret client using an assertion",
			func(f *fixture) url.Values {
				return assertionForm(sign(t, k.ec, jose.ES256, "ec", claimsFor("basic", f.now, nil)))
			}, nil, clients.InvalidClient, clients.ReasonMethodMismatch, generic, false, "basic"},
		{"two methods: Basic and client_secret",
			func(f *fixture) url.Values { return url.Values{"client_secret": {f.secrets["basic"]}} },
			func(f *fixture) string { return basic("basic", f.secrets["basic"]) },
			clients.InvalidRequest, clients.ReasonMultipleMethods, "more than one client authentication method used", true, ""},
		{"two methods: client_secret and client_assertion",
			func(f *fixture) url.Values {
				v := signed(k.ec, jose.ES256, "ec", nil)(f)
				v.Set("client_id", "post")
				v.Set("client_secret", f.secrets["post"])
				return v
			}, nil, clients.InvalidRequest, clients.ReasonMultipleMethods, "more than one client authentication method used", false, "post"},
		{"repeated client_secret",
			func(*fixture) url.Values { return url.Values{"client_id": {"post"}, "client_secret": {"a", "b"}} }, nil,
			clients.InvalidRequest, clients.ReasonRepeatedParameter, "parameter client_secret is repeated", false, "post"},
		{"body client_id differs from Basic",
			func(*fixture) url.Values { return url.Values{"client_id": {"post"}} },
			func(f *fixture) string { return basic("basic", f.secrets["basic"]) },
			clients.InvalidRequest, clients.ReasonClientIDMismatch, "client_id differs from the Basic credentials", true, "post"},
		{"Basic header not base64", nil, func(*fixture) string { return "Basic !!!" },
			clients.InvalidClient, clients.ReasonMalformed,
			"malformed Basic credentials: want base64(form-url-encoded client_id, a colon, form-url-encoded client_secret), RFC 6749 section 2.3.1",
			true, ""},
		{"Bearer instead of Basic", nil, func(*fixture) string { return "Bearer abc" },
			clients.InvalidClient, clients.ReasonMalformed, "the Authorization scheme is not Basic", true, ""},
		{"client_secret without client_id",
			func(*fixture) url.Values { return url.Values{"client_secret": {"x"}} }, nil,
			clients.InvalidRequest, clients.ReasonMalformed, "client_secret without client_id", false, ""},
		{"wrong assertion type",
			func(f *fixture) url.Values {
				v := signed(k.ec, jose.ES256, "ec", nil)(f)
				v.Set("client_assertion_type", "urn:ietf:params:oauth:client-assertion-type:saml2-bearer")
				return v
			}, nil, clients.InvalidRequest, clients.ReasonMalformed,
			"client_assertion_type must be urn:ietf:params:oauth:client-assertion-type:jwt-bearer", false, ""},
		{"assertion type without assertion",
			func(*fixture) url.Values {
				return url.Values{"client_assertion_type": {clients.JWTBearerAssertionType}}
			}, nil, clients.InvalidRequest, clients.ReasonMalformed, "client_assertion is missing", false, ""},
		{"alg none",
			func(f *fixture) url.Values {
				payload, _ := json.Marshal(claimsFor("jwt", f.now, nil))
				enc := base64.RawURLEncoding.EncodeToString
				return assertionForm(enc([]byte(`{"alg":"none","typ":"JWT"}`)) + "." + enc(payload) + ".")
			}, nil, clients.InvalidClient, clients.ReasonBadAssertion,
			"client_assertion is not a compact JWS signed with ES256, EdDSA or RS256", false, ""},
		{"HS256 keyed with the public key",
			func(f *fixture) url.Values {
				pub := []byte(k.ed.Public().(ed25519.PublicKey))
				return assertionForm(sign(t, pub, jose.HS256, "ed", claimsFor("jwt", f.now, nil)))
			}, nil, clients.InvalidClient, clients.ReasonBadAssertion,
			"client_assertion is not a compact JWS signed with ES256, EdDSA or RS256", false, ""},
		{"not a JWT", func(*fixture) url.Values { return assertionForm("a.b.c") }, nil,
			clients.InvalidClient, clients.ReasonBadAssertion,
			"client_assertion is not a compact JWS signed with ES256, EdDSA or RS256", false, ""},
		{"bad signature: another key under a registered kid",
			signed(k.rsa1024, jose.RS256, "rsa", nil),
			nil, clients.InvalidClient, clients.ReasonBadSignature, generic, false, "jwt"},
		{"bad signature: alg of another registered key",
			signed(k.ec, jose.ES256, "ed", nil),
			nil, clients.InvalidClient, clients.ReasonBadSignature, generic, false, "jwt"},
		{"bad signature: unknown kid", signed(k.ec, jose.ES256, "nope", nil),
			nil, clients.InvalidClient, clients.ReasonBadSignature, generic, false, "jwt"},
		{"iss differs from sub", signed(k.ec, jose.ES256, "ec", func(_ *fixture, c map[string]any) { c["sub"] = "basic" }),
			nil, clients.InvalidClient, clients.ReasonAssertionClaims, "client_assertion iss and sub must both be the client_id", false, ""},
		{"unknown issuer",
			func(f *fixture) url.Values {
				return assertionForm(sign(t, k.ec, jose.ES256, "ec", claimsFor("nobody", f.now, nil)))
			}, nil, clients.InvalidClient, clients.ReasonUnknownClient, generic, false, "nobody"},
		{"body client_id differs from iss",
			func(f *fixture) url.Values {
				v := signed(k.ec, jose.ES256, "ec", nil)(f)
				v.Set("client_id", "basic")
				return v
			}, nil, clients.InvalidRequest, clients.ReasonClientIDMismatch, "client_id differs from the client_assertion issuer", false, "basic"},
		{"expired", signed(k.ec, jose.ES256, "ec", func(f *fixture, c map[string]any) { c["exp"] = f.now.Add(-31 * time.Second).Unix() }),
			nil, clients.InvalidClient, clients.ReasonExpired, "client_assertion has expired", false, "jwt"},
		{"no exp", signed(k.ec, jose.ES256, "ec", func(_ *fixture, c map[string]any) { delete(c, "exp") }),
			nil, clients.InvalidClient, clients.ReasonAssertionClaims, "client_assertion has no exp", false, "jwt"},
		{"exp too far ahead", signed(k.ec, jose.ES256, "ec", func(f *fixture, c map[string]any) { c["exp"] = f.now.Add(time.Hour).Unix() }),
			nil, clients.InvalidClient, clients.ReasonLifetime, "client_assertion exp is more than 5m0s ahead", false, "jwt"},
		{"nbf in the future", signed(k.ec, jose.ES256, "ec", func(f *fixture, c map[string]any) { c["nbf"] = f.now.Add(time.Minute).Unix() }),
			nil, clients.InvalidClient, clients.ReasonNotYetValid, "client_assertion is not valid yet (nbf)", false, "jwt"},
		{"iat in the future", signed(k.ec, jose.ES256, "ec", func(f *fixture, c map[string]any) { c["iat"] = f.now.Add(time.Minute).Unix() }),
			nil, clients.InvalidClient, clients.ReasonNotYetValid, "client_assertion was issued in the future (iat)", false, "jwt"},
		{"wrong aud", signed(k.ec, jose.ES256, "ec", func(_ *fixture, c map[string]any) { c["aud"] = "https://as.example.com/other" }),
			nil, clients.InvalidClient, clients.ReasonAudience, "client_assertion aud must be exactly this server's issuer identifier", false, "jwt"},
		{"no aud", signed(k.ec, jose.ES256, "ec", func(_ *fixture, c map[string]any) { delete(c, "aud") }),
			nil, clients.InvalidClient, clients.ReasonAudience, "client_assertion aud must be exactly this server's issuer identifier", false, "jwt"},
		{"aud is the token endpoint", signed(k.ec, jose.ES256, "ec", func(_ *fixture, c map[string]any) { c["aud"] = tokenEndpoint }),
			nil, clients.InvalidClient, clients.ReasonAudience, "client_assertion aud must be exactly this server's issuer identifier", false, "jwt"},
		{"aud names another server besides the issuer (audience injection)",
			signed(k.ec, jose.ES256, "ec", func(_ *fixture, c map[string]any) { c["aud"] = []string{"https://other.example", issuer} }),
			nil, clients.InvalidClient, clients.ReasonAudience, "client_assertion aud must be exactly this server's issuer identifier", false, "jwt"},
		{"no jti", signed(k.ec, jose.ES256, "ec", func(_ *fixture, c map[string]any) { delete(c, "jti") }),
			nil, clients.InvalidClient, clients.ReasonAssertionClaims, "client_assertion has no jti", false, "jwt"},
		{"jti with a NUL", signed(k.ec, jose.ES256, "ec", func(_ *fixture, c map[string]any) { c["jti"] = "a\x00b" }),
			nil, clients.InvalidClient, clients.ReasonAssertionClaims, "client_assertion jti must be printable text of at most 256 bytes", false, "jwt"},
		{"disabled jwt client",
			func(f *fixture) url.Values {
				return assertionForm(sign(t, k.ec, jose.ES256, "ec", claimsFor("jwt-disabled", f.now, nil)))
			}, nil, clients.InvalidClient, clients.ReasonDisabled, "client is disabled", false, "jwt-disabled"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := newFixture(t).authenticate(tc.form, tc.header)
			var ae *clients.AuthError
			if !errors.As(err, &ae) {
				t.Fatalf("got client %v, err %v; want an AuthError", c, err)
			}
			want := clients.AuthError{Code: tc.code, Reason: tc.reason, Description: tc.desc, BasicHeader: tc.basic, ClientID: tc.claimedID}
			if *ae != want {
				t.Errorf("error:\n got  %+v\n want %+v", *ae, want)
			}
			if !validDescription(ae.Description) {
				t.Errorf("description %q is not RFC 6749 error_description text", ae.Description)
			}
		})
	}
}

// validDescription is RFC 6749 §5.2's charset: %x20-21 / %x23-5B / %x5D-7E.
func validDescription(s string) bool {
	for _, c := range []byte(s) {
		if c < 0x20 || c == '"' || c == '\\' || c > 0x7e {
			return false
		}
	}
	return true
}

func TestAssertionIsAcceptedOnce(t *testing.T) {
	f := newFixture(t)
	form := assertionForm(sign(t, loadTestKeys().ed, jose.EdDSA, "ed", claimsFor("jwt", f.now, nil)))
	if _, err := f.auth.Authenticate(context.Background(), form, ""); err != nil {
		t.Fatalf("first use: %v", err)
	}
	f.now = f.now.Add(time.Minute)
	_, err := f.auth.Authenticate(context.Background(), form, "")
	var ae *clients.AuthError
	if !errors.As(err, &ae) || ae.Reason != clients.ReasonReplayed || ae.Code != clients.InvalidClient ||
		ae.Description != "client_assertion jti was already used" {
		t.Fatalf("replay: err = %v", err)
	}
}

type failingStore struct{ clients.Getter }

func (failingStore) Get(context.Context, string) (*clients.Client, error) {
	return nil, errors.New("connection refused")
}

// A store outage is the server's fault, not an authentication failure.
func TestAuthenticateStoreErrorIsNotAnAuthError(t *testing.T) {
	auth, err := clients.NewAuthenticator(clients.AuthenticatorConfig{
		Clients: failingStore{}, Hasher: testHasher(t), Replay: memory.NewAssertionReplay(), Issuer: issuer,
	})
	if err != nil {
		t.Fatal(err)
	}
	_, err = auth.Authenticate(context.Background(), url.Values{}, basic("basic", "x"))
	var ae *clients.AuthError
	if err == nil || errors.As(err, &ae) || !strings.Contains(err.Error(), "connection refused") {
		t.Errorf("err = %v, want the store's error", err)
	}
}

func TestNewAuthenticatorNamesWhatIsMissing(t *testing.T) {
	_, err := clients.NewAuthenticator(clients.AuthenticatorConfig{})
	if err == nil || err.Error() != "clients: authenticator config lacks [Clients Hasher Replay Issuer]" {
		t.Errorf("err = %v", err)
	}
}

// FuzzAuthenticate feeds arbitrary bodies and headers: never a panic, and
// every failure is a well-formed AuthError.
func FuzzAuthenticate(f *testing.F) {
	fx := newFixture(f)
	k := loadTestKeys()
	f.Add("", basic("basic", fx.secrets["basic"]))
	f.Add("client_id=post&client_secret="+url.QueryEscape(fx.secrets["post"]), "")
	f.Add(assertionForm(sign(f, k.ec, jose.ES256, "ec", claimsFor("jwt", fx.now, nil))).Encode(), "")
	f.Add("client_assertion_type="+url.QueryEscape(clients.JWTBearerAssertionType)+"&client_assertion=e30.e30.", "")
	f.Add("client_id=a&client_id=b", "Basic Og==")
	f.Fuzz(func(t *testing.T, body, header string) {
		form, err := url.ParseQuery(body)
		if err != nil {
			return // the HTTP layer answers unparsable bodies itself
		}
		c, err := fx.auth.Authenticate(context.Background(), form, header)
		if err == nil {
			if c == nil || c.Disabled {
				t.Fatalf("authenticated %+v", c)
			}
			return
		}
		var ae *clients.AuthError
		if !errors.As(err, &ae) {
			t.Fatalf("non-auth error %v", err)
		}
		if (ae.Code != clients.InvalidClient && ae.Code != clients.InvalidRequest) || ae.Reason == "" || !validDescription(ae.Description) {
			t.Fatalf("malformed AuthError %+v", ae)
		}
		if ae.BasicHeader != (header != "") {
			t.Fatalf("BasicHeader = %v for header %q", ae.BasicHeader, header)
		}
	})
}

// BenchmarkAuthenticate measures the hot path of a token request's client
// authentication (memory store): the keyed hash is microseconds, not the
// tens of milliseconds of a password hash.
func BenchmarkAuthenticate(b *testing.B) {
	ctx := context.Background()
	b.Run("client_secret_basic", func(b *testing.B) {
		f := newFixture(b)
		header := basic("basic", f.secrets["basic"])
		form := url.Values{}
		b.ReportAllocs()
		for b.Loop() {
			if _, err := f.auth.Authenticate(ctx, form, header); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("client_secret_basic_wrong_secret", func(b *testing.B) {
		f := newFixture(b)
		header := basic("basic", "wrong")
		b.ReportAllocs()
		for b.Loop() {
			if _, err := f.auth.Authenticate(ctx, url.Values{}, header); err == nil {
				b.Fatal("authenticated")
			}
		}
	})
	b.Run("private_key_jwt_ES256", func(b *testing.B) {
		f := newFixture(b)
		k := loadTestKeys()
		// Every assertion needs its own jti; sign a pool before timing.
		forms := make([]url.Values, 2000)
		for i := range forms {
			forms[i] = assertionForm(sign(b, k.ec, jose.ES256, "ec", claimsFor("jwt", f.now, func(c map[string]any) {
				c["jti"] = "bench-" + strconv.Itoa(i)
			})))
		}
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			if i == len(forms) {
				b.StopTimer()
				f.auth, _ = clients.NewAuthenticator(clients.AuthenticatorConfig{
					Clients: f.store, Hasher: f.hasher, Replay: memory.NewAssertionReplay(),
					Issuer: issuer, Now: func() time.Time { return f.now },
				})
				i = 0
				b.StartTimer()
			}
			if _, err := f.auth.Authenticate(ctx, forms[i], ""); err != nil {
				b.Fatal(err)
			}
			i++
		}
	})
}

// TestAssertionTyp: an explicit typ must say the JWT is a client assertion
// (or an untyped JWT); an access token or other typed JWT signed with the
// client's key is not accepted as one.
func TestAssertionTyp(t *testing.T) {
	k := loadTestKeys()
	for _, tc := range []struct {
		typ string // "-": no typ header
		ok  bool
	}{
		{"-", true},
		{"JWT", true},
		{"client-authentication+jwt", true},
		{"application/client-authentication+JWT", true},
		{"at+jwt", false},
		{"dpop+jwt", false},
		{"", false},
	} {
		t.Run(tc.typ, func(t *testing.T) {
			f := newFixture(t)
			opts := (&jose.SignerOptions{}).WithHeader("kid", "ec")
			if tc.typ != "-" {
				opts = opts.WithType(jose.ContentType(tc.typ))
			}
			s, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.ES256, Key: k.ec}, opts)
			if err != nil {
				t.Fatal(err)
			}
			payload, _ := json.Marshal(claimsFor("jwt", f.now, nil))
			obj, err := s.Sign(payload)
			if err != nil {
				t.Fatal(err)
			}
			raw, _ := obj.CompactSerialize()
			_, err = f.auth.Authenticate(context.Background(), assertionForm(raw), "")
			var ae *clients.AuthError
			switch {
			case tc.ok && err != nil:
				t.Errorf("typ %q refused: %v", tc.typ, err)
			case !tc.ok && (!errors.As(err, &ae) || ae.Reason != clients.ReasonBadAssertion || ae.Code != clients.InvalidClient):
				t.Errorf("typ %q: err = %v, want invalid_client bad_assertion", tc.typ, err)
			}
		})
	}
}
