// Package keys manages typeward's token signing keys: generation (ES256 by
// default, EdDSA selectable; kid = RFC 7638 thumbprint), encryption at rest
// under a key encryption key, the rotation schedule every replica derives
// the same active signer from, and the JWKS document.
package keys

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-jose/go-jose/v4"
)

// Defaults of Config.
const (
	DefaultJWKSMaxAge   = 15 * time.Minute
	MaxTokenTTL         = time.Hour // the longest token lifetime typeward allows (the default of Config.MaxTokenTTL)
	DefaultClockSkew    = time.Minute
	DefaultRefreshEvery = 30 * time.Second
)

// ErrNoSigner is wrapped when no key may sign at the moment.
var ErrNoSigner = errors.New("keys: no active signing key")

// Config configures a Keyring. Store and KEK are required.
type Config struct {
	Store Store
	KEK   *KEK
	// Alg is the algorithm of keys this keyring generates (ES256 when empty).
	Alg Alg
	// JWKSMaxAge is how long verifiers may cache the JWKS (its Cache-Control
	// max-age), so how long a new key is published before it signs.
	JWKSMaxAge time.Duration
	// MaxTokenTTL bounds the lifetime of the tokens a key signs: a retired
	// key stays published this long (plus ClockSkew) after it stops signing.
	MaxTokenTTL time.Duration
	// ClockSkew is the clock difference tolerated between typeward and
	// verifiers.
	ClockSkew time.Duration
	// RefreshEvery is how often Run reloads the store so replicas converge.
	// A new key waits this long too before signing, so that every replica's
	// JWKS has it for the full max-age.
	RefreshEvery time.Duration
	// RotateEvery, when positive, makes Run rotate once the newest key is
	// this old: scheduled rotation.
	RotateEvery time.Duration
	Now         func() time.Time
	Logger      *slog.Logger
}

func (c *Config) withDefaults() error {
	if c.Store == nil || c.KEK == nil {
		return errors.New("keys: a Keyring needs a Store and a key encryption key")
	}
	if c.Alg == "" {
		c.Alg = ES256
	}
	if _, err := ParseAlg(string(c.Alg)); err != nil {
		return err
	}
	for _, d := range []struct {
		v   *time.Duration
		def time.Duration
	}{{&c.JWKSMaxAge, DefaultJWKSMaxAge}, {&c.MaxTokenTTL, MaxTokenTTL}, {&c.ClockSkew, DefaultClockSkew}, {&c.RefreshEvery, DefaultRefreshEvery}, {&c.RotateEvery, 0}} {
		if *d.v < 0 {
			return fmt.Errorf("keys: negative duration %v in Config", *d.v)
		}
		if *d.v == 0 {
			*d.v = d.def
		}
	}
	if c.Now == nil {
		c.Now = time.Now
	}
	if c.Logger == nil {
		c.Logger = slog.New(slog.DiscardHandler)
	}
	return nil
}

// Keyring holds the keys of one replica: the schedule loaded from the
// store, the private keys that sign now or will, and the JWKS. Signer and
// JWKS are lock-free; Refresh and Rotate replace the loaded state whole.
type Keyring struct {
	cfg  Config
	mu   sync.Mutex // serialises Refresh and Rotate on this replica
	snap atomic.Pointer[snapshot]
	jwks atomic.Pointer[jwksCache]
}

// snapshot is the store's keys as of one load.
type snapshot struct {
	records    []Record // earliest activation first, ties by kid
	public     map[string]jose.JSONWebKey
	publicJSON map[string][]byte  // each public JWK as published
	signers    map[string]*Signer // keys not retired at load time
}

// New loads the keys from the store. When none can sign now or later (a
// new deployment), it creates one that signs at once; replicas starting
// together agree on a single such key. A key that does not open with the
// KEK (ErrWrongKEK) or does not match its public half is an error: the
// keyring refuses to start rather than replace keys it cannot read.
func New(ctx context.Context, cfg Config) (*Keyring, error) {
	if err := cfg.withDefaults(); err != nil {
		return nil, err
	}
	k := &Keyring{cfg: cfg}
	if err := k.Refresh(ctx); err != nil {
		return nil, err
	}
	if k.canSign() {
		return k, nil
	}
	if err := k.bootstrap(ctx); err != nil {
		return nil, err
	}
	if _, err := k.Signer(); err != nil {
		return nil, err
	}
	return k, nil
}

// canSign reports whether some loaded key signs now or will later.
func (k *Keyring) canSign() bool {
	now := k.now()
	for _, r := range k.snap.Load().records {
		if r.signs(now) || (!r.retired() && r.ActivateAt.After(now)) {
			return true
		}
	}
	return false
}

// bootstrap makes a key that signs at once.
func (k *Keyring) bootstrap(ctx context.Context) error {
	k.mu.Lock()
	defer k.mu.Unlock()
	now := k.now()
	rec, _, err := newKey(k.cfg.Alg, k.cfg.KEK, now)
	if err != nil {
		return err
	}
	if len(k.snap.Load().records) == 0 {
		if _, err := k.cfg.Store.InsertFirst(ctx, rec); err != nil {
			return fmt.Errorf("keys: store first key: %w", err)
		}
	} else {
		// Keys exist but none signs: a store edited by hand. Start signing
		// with a new key; the others keep serving their tokens.
		if err := k.cfg.Store.Rotate(ctx, rec, k.retirement(now)); err != nil {
			return fmt.Errorf("keys: store new key: %w", err)
		}
	}
	return k.load(ctx)
}

// Refresh reloads the keys from the store: what other replicas rotated
// reaches this one. On error the keys loaded before stay in use.
func (k *Keyring) Refresh(ctx context.Context) error {
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.load(ctx)
}

// Run refreshes every RefreshEvery until ctx ends, rotating when a
// rotation is due (RotateEvery), logging failures.
func (k *Keyring) Run(ctx context.Context) {
	t := time.NewTicker(k.cfg.RefreshEvery)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			if err := k.Refresh(ctx); err != nil && ctx.Err() == nil {
				k.cfg.Logger.Warn("signing keys: refresh failed; keeping the keys loaded before", "err", err)
				continue
			}
			if _, err := k.RotateIfDue(ctx); err != nil && ctx.Err() == nil {
				k.cfg.Logger.Warn("signing keys: scheduled rotation failed", "err", err)
			}
		}
	}
}

// RotateIfDue rotates when RotateEvery is set and the newest key was
// created at least that long ago, and reports whether it did. Replicas
// share the schedule: the rotation is conditional on the newest key
// being the one this replica saw, so when several find it due at once,
// one rotates and the others load its key instead.
func (k *Keyring) RotateIfDue(ctx context.Context) (bool, error) {
	if k.cfg.RotateEvery <= 0 {
		return false, nil
	}
	var newest time.Time
	for _, r := range k.snap.Load().records {
		if r.CreatedAt.After(newest) {
			newest = r.CreatedAt
		}
	}
	if k.now().Sub(newest) < k.cfg.RotateEvery {
		return false, nil
	}
	_, err := k.rotate(ctx, RotateOptions{}, newest)
	if errors.Is(err, ErrRotatedMeanwhile) {
		return false, k.Refresh(ctx)
	}
	return err == nil, err
}

// load builds a snapshot from the store; callers hold mu.
func (k *Keyring) load(ctx context.Context) error {
	records, err := k.cfg.Store.List(ctx)
	if err != nil {
		return fmt.Errorf("keys: list: %w", err)
	}
	now := k.now()
	prev := k.snap.Load()
	next := &snapshot{records: records, public: map[string]jose.JSONWebKey{}, publicJSON: map[string][]byte{}, signers: map[string]*Signer{}}
	for i := range records {
		rec := &records[i]
		if rec.StateAt(now) == StateExpired {
			continue // neither published nor signing: nothing to load
		}
		jwk, err := publicKey(rec)
		if err != nil {
			return err
		}
		next.public[rec.KID] = jwk
		if next.publicJSON[rec.KID], err = json.Marshal(jwk); err != nil {
			return fmt.Errorf("keys: key %s: encode public JWK: %w", rec.KID, err)
		}
		if !rec.RetireAt.IsZero() && !now.Before(rec.RetireAt) {
			continue // published for verification only
		}
		if prev != nil && prev.signers[rec.KID] != nil {
			next.signers[rec.KID] = prev.signers[rec.KID]
			continue
		}
		s, err := openSigner(rec, jwk.Key, k.cfg.KEK)
		if err != nil {
			return err
		}
		next.signers[rec.KID] = s
	}
	k.snap.Store(next)
	return nil
}

// Signer is the key to sign with now: among the keys whose signing window
// holds now, the latest activated (ties by greatest kid). The rule reads
// only stored times, so every replica with the same store picks the same
// key.
func (k *Keyring) Signer() (*Signer, error) {
	_, s := k.active(k.now())
	if s == nil {
		return nil, ErrNoSigner
	}
	return s, nil
}

func (k *Keyring) active(now time.Time) (*Record, *Signer) {
	snap := k.snap.Load()
	for i := len(snap.records) - 1; i >= 0; i-- {
		rec := &snap.records[i]
		if rec.signs(now) && rec.published(now) && snap.signers[rec.KID] != nil {
			return rec, snap.signers[rec.KID]
		}
	}
	return nil, nil
}

// SigningKeyAge is how long ago the active signing key was created, false
// when no key signs.
func (k *Keyring) SigningKeyAge() (time.Duration, bool) {
	now := k.now()
	rec, _ := k.active(now)
	if rec == nil {
		return 0, false
	}
	return now.Sub(rec.CreatedAt), true
}

// MaxAge is how long verifiers may cache the JWKS.
func (k *Keyring) MaxAge() time.Duration { return k.cfg.JWKSMaxAge }

// retirement ends the other keys' signing at `at`, and their publication
// once the last token they may have signed has expired.
func (k *Keyring) retirement(at time.Time) Retirement {
	return Retirement{At: at, ExpiresAt: at.Add(k.cfg.MaxTokenTTL + k.cfg.ClockSkew)}
}

// now is the configured clock at the precision Postgres keeps, so that a
// time written and read back compares equal.
func (k *Keyring) now() time.Time {
	return k.cfg.Now().UTC().Truncate(time.Microsecond)
}
