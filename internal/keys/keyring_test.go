package keys_test

import (
	"context"
	"crypto"
	"encoding/base64"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-jose/go-jose/v4"

	"github.com/typeward/typeward/internal/keys"
	"github.com/typeward/typeward/internal/store/memory"
)

// clock is a settable time source shared by the replicas of a test.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func newClock() *clock { return &clock{t: time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)} }

func (c *clock) Now() time.Time      { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) Set(t time.Time)     { c.mu.Lock(); defer c.mu.Unlock(); c.t = t }
func (c *clock) Add(d time.Duration) { c.Set(c.Now().Add(d)) }

func mustKEK(t *testing.T) *keys.KEK {
	t.Helper()
	kek, err := keys.GenerateKEK()
	if err != nil {
		t.Fatal(err)
	}
	return kek
}

// config is a keyring on store with short, distinct durations so the
// timeline below reads clearly: max-age 15m, refresh 30s, token TTL 5m,
// skew 1m.
func config(store keys.Store, kek *keys.KEK, c *clock) keys.Config {
	return keys.Config{
		Store: store, KEK: kek, Now: c.Now,
		JWKSMaxAge: 15 * time.Minute, RefreshEvery: 30 * time.Second,
		MaxTokenTTL: 5 * time.Minute, ClockSkew: time.Minute,
	}
}

func newKeyring(t *testing.T, cfg keys.Config) *keys.Keyring {
	t.Helper()
	k, err := keys.New(context.Background(), cfg)
	if err != nil {
		t.Fatalf("keys.New: %v", err)
	}
	return k
}

func signerKID(t *testing.T, k *keys.Keyring) string {
	t.Helper()
	s, err := k.Signer()
	if err != nil {
		t.Fatalf("Signer: %v", err)
	}
	return s.KID
}

// jwksKIDs parses a JWKS document, checks each key is public with its
// thumbprint as kid, and returns the kids.
func jwksKIDs(t *testing.T, k *keys.Keyring) []string {
	t.Helper()
	var set jose.JSONWebKeySet
	doc := k.JWKS()
	if err := json.Unmarshal(doc.Body, &set); err != nil {
		t.Fatalf("JWKS %s: %v", doc.Body, err)
	}
	if strings.Contains(string(doc.Body), `"d"`) {
		t.Fatalf("JWKS carries private key material: %s", doc.Body)
	}
	kids := []string{}
	for _, key := range set.Keys {
		if !key.IsPublic() || key.Use != "sig" {
			t.Errorf("key %s: public %v, use %q", key.KeyID, key.IsPublic(), key.Use)
		}
		sum, err := key.Thumbprint(crypto.SHA256)
		if err != nil || base64.RawURLEncoding.EncodeToString(sum) != key.KeyID {
			t.Errorf("kid %s is not the key's RFC 7638 thumbprint", key.KeyID)
		}
		kids = append(kids, key.KeyID)
	}
	return kids
}

func states(k *keys.Keyring) map[string]keys.State {
	out := map[string]keys.State{}
	for _, i := range k.Keys() {
		out[i.KID] = i.State
	}
	return out
}

// The rotation timeline: a new key is published at once but signs only
// after max-age + one refresh; the old key signs until then and stays
// published for the longest token TTL plus skew; then it leaves the JWKS.
func TestRotationTimeline(t *testing.T) {
	t.Parallel()
	c := newClock()
	store := memory.NewKeys()
	k := newKeyring(t, config(store, mustKEK(t), c))
	ctx := context.Background()

	a := signerKID(t, k)
	if got := jwksKIDs(t, k); !slices.Equal(got, []string{a}) {
		t.Fatalf("first JWKS %v, want [%s]", got, a)
	}
	etagA := k.JWKS().ETag

	c.Add(time.Hour)
	rotatedAt := c.Now()
	next, err := k.Rotate(ctx, keys.RotateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	b := next.KID
	activate := rotatedAt.Add(15*time.Minute + 30*time.Second)
	expireA := activate.Add(5*time.Minute + time.Minute)
	if !next.PublishAt.Equal(rotatedAt) || !next.ActivateAt.Equal(activate) {
		t.Fatalf("new key publish %v activate %v; want %v and %v", next.PublishAt, next.ActivateAt, rotatedAt, activate)
	}

	steps := []struct {
		name   string
		at     time.Time
		signer string
		jwks   []string
		states map[string]keys.State
	}{
		{"right after rotating", rotatedAt, a, []string{a, b}, map[string]keys.State{a: keys.StateActive, b: keys.StatePending}},
		{"last instant before activation", activate.Add(-time.Microsecond), a, []string{a, b}, map[string]keys.State{a: keys.StateActive, b: keys.StatePending}},
		{"activation", activate, b, []string{a, b}, map[string]keys.State{a: keys.StateRetired, b: keys.StateActive}},
		{"old key's last published instant", expireA.Add(-time.Microsecond), b, []string{a, b}, map[string]keys.State{a: keys.StateRetired, b: keys.StateActive}},
		{"old key's tokens all expired", expireA, b, []string{b}, map[string]keys.State{a: keys.StateExpired, b: keys.StateActive}},
	}
	for _, s := range steps {
		c.Set(s.at)
		if got := signerKID(t, k); got != s.signer {
			t.Errorf("%s: signer %s, want %s", s.name, got, s.signer)
		}
		if got := jwksKIDs(t, k); !slices.Equal(got, s.jwks) {
			t.Errorf("%s: JWKS %v, want %v", s.name, got, s.jwks)
		}
		if got := states(k); !mapsEqual(got, s.states) {
			t.Errorf("%s: states %v, want %v", s.name, got, s.states)
		}
	}
	if k.JWKS().ETag == etagA {
		t.Error("the ETag did not change with the key set")
	}
	if age, ok := k.SigningKeyAge(); !ok || age != expireA.Sub(rotatedAt) {
		t.Errorf("SigningKeyAge = %v, %v; want %v", age, ok, expireA.Sub(rotatedAt))
	}

	// The next rotation destroys the expired key.
	if _, err := k.Rotate(ctx, keys.RotateOptions{}); err != nil {
		t.Fatal(err)
	}
	recs, _ := store.List(ctx)
	for _, r := range recs {
		if r.KID == a {
			t.Errorf("expired key %s still stored after a rotation", a)
		}
	}
}

func mapsEqual(a, b map[string]keys.State) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

// An emergency rotation signs with the new key at once and withdraws every
// other key, pending ones included.
func TestEmergencyRotation(t *testing.T) {
	t.Parallel()
	c := newClock()
	k := newKeyring(t, config(memory.NewKeys(), mustKEK(t), c))
	ctx := context.Background()
	a := signerKID(t, k)
	pending, err := k.Rotate(ctx, keys.RotateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	c.Add(time.Minute)
	fresh, err := k.Rotate(ctx, keys.RotateOptions{Emergency: true, Alg: keys.EdDSA})
	if err != nil {
		t.Fatal(err)
	}
	if got := signerKID(t, k); got != fresh.KID {
		t.Errorf("signer %s, want the emergency key %s", got, fresh.KID)
	}
	if s, _ := k.Signer(); s.Alg != keys.EdDSA {
		t.Errorf("emergency key alg %s, want EdDSA", s.Alg)
	}
	if got := jwksKIDs(t, k); !slices.Equal(got, []string{fresh.KID}) {
		t.Errorf("JWKS %v, want only %s (withdrawn: %s, %s)", got, fresh.KID, a, pending.KID)
	}
	// Much later, the withdrawn pending key must not come back to sign.
	c.Add(24 * time.Hour)
	if got := signerKID(t, k); got != fresh.KID {
		t.Errorf("a day later the signer is %s, want %s", got, fresh.KID)
	}
}

// Replicas on one store sign with the same key and serve the same JWKS
// bytes; a rotation on one reaches the others when they refresh.
func TestReplicasConverge(t *testing.T) {
	t.Parallel()
	c := newClock()
	store, kek := memory.NewKeys(), mustKEK(t)
	r1 := newKeyring(t, config(store, kek, c))
	r2 := newKeyring(t, config(store, kek, c))
	if signerKID(t, r1) != signerKID(t, r2) {
		t.Fatal("replicas sign with different keys")
	}
	next, err := r1.Rotate(context.Background(), keys.RotateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if slices.Contains(jwksKIDs(t, r2), next.KID) {
		t.Fatal("replica 2 publishes the new key before refreshing")
	}
	if err := r2.Refresh(context.Background()); err != nil {
		t.Fatal(err)
	}
	d1, d2 := r1.JWKS(), r2.JWKS()
	if string(d1.Body) != string(d2.Body) || d1.ETag != d2.ETag {
		t.Errorf("replicas serve different JWKS:\n%s %s\n%s %s", d1.Body, d1.ETag, d2.Body, d2.ETag)
	}
	c.Set(next.ActivateAt)
	if signerKID(t, r1) != next.KID || signerKID(t, r2) != next.KID {
		t.Errorf("after activation: %s and %s, want %s", signerKID(t, r1), signerKID(t, r2), next.KID)
	}
}

// Run refreshes in the background until its context ends.
func TestRunRefreshes(t *testing.T) {
	t.Parallel()
	store, kek := memory.NewKeys(), mustKEK(t)
	cfg := keys.Config{Store: store, KEK: kek, RefreshEvery: time.Millisecond}
	r1, r2 := newKeyring(t, cfg), newKeyring(t, cfg)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { r2.Run(ctx); close(done) }()
	next, err := r1.Rotate(context.Background(), keys.RotateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for !slices.Contains(jwksKIDs(t, r2), next.KID) {
		if time.Now().After(deadline) {
			t.Fatal("Run did not pick up the rotation")
		}
		time.Sleep(time.Millisecond)
	}
	cancel()
	<-done
}

// A restart with the same KEK opens the stored key; another KEK is refused
// with an error naming both.
func TestRestartAndWrongKEK(t *testing.T) {
	t.Parallel()
	c := newClock()
	store, kek := memory.NewKeys(), mustKEK(t)
	first := newKeyring(t, config(store, kek, c))
	s1, _ := first.Signer()

	again := newKeyring(t, config(store, kek, c))
	s2, _ := again.Signer()
	if s2.KID != s1.KID || !s2.Key.Public().(interface{ Equal(crypto.PublicKey) bool }).Equal(s1.Key.Public()) {
		t.Fatalf("after restart the signer is %s, want %s with the same key", s2.KID, s1.KID)
	}

	wrong := mustKEK(t)
	_, err := keys.New(context.Background(), config(store, wrong, c))
	if !errors.Is(err, keys.ErrWrongKEK) || !strings.Contains(err.Error(), kek.ID()) || !strings.Contains(err.Error(), wrong.ID()) {
		t.Fatalf("New with another KEK = %v; want ErrWrongKEK naming %s and %s", err, kek.ID(), wrong.ID())
	}
	if recs, _ := store.List(context.Background()); len(recs) != 1 {
		t.Errorf("the refused start changed the store: %d keys", len(recs))
	}
}

// tamperStore alters what the store returns, as a corrupted or edited
// database would.
type tamperStore struct {
	keys.Store
	alter func(*keys.Record)
}

func (s tamperStore) List(ctx context.Context) ([]keys.Record, error) {
	recs, err := s.Store.List(ctx)
	for i := range recs {
		s.alter(&recs[i])
	}
	return recs, err
}

func TestTamperedStoreRefused(t *testing.T) {
	t.Parallel()
	c := newClock()
	store, kek := memory.NewKeys(), mustKEK(t)
	newKeyring(t, config(store, kek, c))
	other := memory.NewKeys()
	newKeyring(t, config(other, kek, c))
	otherRecs, _ := other.List(context.Background())

	tests := []struct {
		name    string
		alter   func(*keys.Record)
		wantErr string
	}{
		{"public key swapped", func(r *keys.Record) { r.PublicJWK = otherRecs[0].PublicJWK }, "thumbprint"},
		{"private key swapped", func(r *keys.Record) { r.Sealed = otherRecs[0].Sealed }, "does not decrypt"},
		{"alg changed", func(r *keys.Record) { r.Alg = keys.EdDSA }, "not an EdDSA key"},
		{"JWK not JSON", func(r *keys.Record) { r.PublicJWK = []byte("{") }, "public JWK"},
	}
	for _, tc := range tests {
		_, err := keys.New(context.Background(), config(tamperStore{store, tc.alter}, kek, c))
		if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
			t.Errorf("%s: New = %v, want an error containing %q", tc.name, err, tc.wantErr)
		}
	}
}

func TestConfigRefused(t *testing.T) {
	t.Parallel()
	store, kek := memory.NewKeys(), mustKEK(t)
	tests := []struct {
		name    string
		cfg     keys.Config
		wantErr string
	}{
		{"no store", keys.Config{KEK: kek}, "needs a Store"},
		{"no KEK", keys.Config{Store: store}, "key encryption key"},
		{"bad alg", keys.Config{Store: store, KEK: kek, Alg: "RS256"}, `unsupported signing algorithm "RS256"`},
		{"negative duration", keys.Config{Store: store, KEK: kek, JWKSMaxAge: -time.Second}, "negative duration"},
	}
	for _, tc := range tests {
		if _, err := keys.New(context.Background(), tc.cfg); err == nil || !strings.Contains(err.Error(), tc.wantErr) {
			t.Errorf("%s: New = %v, want an error containing %q", tc.name, err, tc.wantErr)
		}
	}
	if recs, _ := store.List(context.Background()); len(recs) != 0 {
		t.Errorf("refused configurations stored %d keys", len(recs))
	}
}

// The embedded default: a memory store and a random KEK give one key that
// signs at once, ES256 unless EdDSA is asked for.
func TestEphemeral(t *testing.T) {
	t.Parallel()
	for _, alg := range []keys.Alg{"", keys.ES256, keys.EdDSA} {
		k := newKeyring(t, keys.Config{Store: memory.NewKeys(), KEK: mustKEK(t), Alg: alg})
		s, err := k.Signer()
		want := alg
		if want == "" {
			want = keys.ES256
		}
		if err != nil || s.Alg != want {
			t.Errorf("alg %q: signer %v, %v; want an %s key", alg, s, err, want)
		}
		pub, pubAlg, err := k.Key(context.Background(), s.KID)
		if err != nil || pubAlg != string(want) || !pub.(interface{ Equal(crypto.PublicKey) bool }).Equal(s.Key.Public()) {
			t.Errorf("alg %q: Key(%s) = %v, %v", alg, s.KID, pubAlg, err)
		}
		if _, _, err := k.Key(context.Background(), "unknown"); err == nil || err.Error() != `keys: kid "unknown" is not published` {
			t.Errorf("Key of an unknown kid = %v", err)
		}
	}
}

func TestParseAlg(t *testing.T) {
	tests := []struct {
		in   string
		want keys.Alg
		ok   bool
	}{{"ES256", keys.ES256, true}, {"EdDSA", keys.EdDSA, true}, {"Ed25519", keys.EdDSA, true}, {"HS256", "", false}, {"", "", false}}
	for _, tc := range tests {
		got, err := keys.ParseAlg(tc.in)
		if got != tc.want || (err == nil) != tc.ok {
			t.Errorf("ParseAlg(%q) = %q, %v", tc.in, got, err)
		}
	}
}

// A store whose keys were all retired by hand: the keyring starts signing
// with a new key at once, and the old one stays published for its tokens.
func TestNoSigningKeyLeft(t *testing.T) {
	t.Parallel()
	c := newClock()
	t0 := c.Now()
	store, kek := memory.NewKeys(), mustKEK(t)
	old := signerKID(t, newKeyring(t, config(store, kek, c)))
	retiredByHand := tamperStore{store, func(r *keys.Record) {
		if r.KID == old {
			r.RetireAt, r.ExpiresAt = t0.Add(time.Second), t0.Add(time.Hour)
		}
	}}
	c.Add(time.Minute)
	k := newKeyring(t, config(retiredByHand, kek, c))
	fresh := signerKID(t, k)
	if fresh == old {
		t.Fatalf("still signing with the retired key %s", old)
	}
	if got := jwksKIDs(t, k); !slices.Equal(got, []string{old, fresh}) {
		t.Errorf("JWKS %v, want [%s %s]", got, old, fresh)
	}
}

func TestScheduledRotation(t *testing.T) {
	t.Parallel()
	c := newClock()
	cfg := config(memory.NewKeys(), mustKEK(t), c)
	cfg.RotateEvery = 24 * time.Hour
	k := newKeyring(t, cfg)
	ctx := context.Background()
	steps := []struct {
		after   time.Duration
		rotated bool
		keys    int
	}{
		{0, false, 1},
		{24*time.Hour - time.Second, false, 1},
		{time.Second, true, 2},    // the first key is a day old
		{time.Hour, false, 2},     // the new key is an hour old
		{23 * time.Hour, true, 2}, // the first key has left the JWKS and is pruned
	}
	for i, s := range steps {
		c.Add(s.after)
		rotated, err := k.RotateIfDue(ctx)
		if err != nil || rotated != s.rotated || len(k.Keys()) != s.keys {
			t.Fatalf("step %d: RotateIfDue = %v, %v with %d keys; want %v with %d", i, rotated, err, len(k.Keys()), s.rotated, s.keys)
		}
	}
	off := newKeyring(t, config(memory.NewKeys(), mustKEK(t), c))
	c.Add(365 * 24 * time.Hour)
	if rotated, err := off.RotateIfDue(ctx); rotated || err != nil {
		t.Errorf("without RotateEvery: RotateIfDue = %v, %v", rotated, err)
	}
}

// Replicas finding a scheduled rotation due at the same moment make one
// rotation between them: the second's is conditional on the key it saw
// and gives way, loading the first's key instead.
func TestScheduledRotationOnceAcrossReplicas(t *testing.T) {
	t.Parallel()
	c := newClock()
	store, kek := memory.NewKeys(), mustKEK(t)
	cfg := config(store, kek, c)
	cfg.RotateEvery = 24 * time.Hour
	a, b := newKeyring(t, cfg), newKeyring(t, cfg)
	ctx := context.Background()
	c.Add(25 * time.Hour)

	if rotated, err := a.RotateIfDue(ctx); !rotated || err != nil {
		t.Fatalf("replica A: RotateIfDue = %v, %v; want a rotation", rotated, err)
	}
	// B has not refreshed since: it too finds the rotation due.
	if rotated, err := b.RotateIfDue(ctx); rotated || err != nil {
		t.Fatalf("replica B: RotateIfDue = %v, %v; want it to give way", rotated, err)
	}
	stored, err := store.List(ctx)
	if err != nil || len(stored) != 2 {
		t.Fatalf("store holds %d keys (%v), want 2: one rotation", len(stored), err)
	}
	if got, want := len(b.Keys()), 2; got != want {
		t.Errorf("replica B loaded %d keys after giving way, want %d", got, want)
	}
}
