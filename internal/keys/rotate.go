package keys

import (
	"context"
	"fmt"
	"time"
)

// RotateOptions shape one rotation.
type RotateOptions struct {
	// Alg of the new key; the keyring's algorithm when empty.
	Alg Alg
	// Emergency is for a compromised key: the new key signs at once instead
	// of after the JWKS max-age, and every other key is withdrawn from the
	// JWKS at once, so that tokens signed with them stop verifying as soon
	// as verifiers refetch. Verifiers holding a cached JWKS fetch it again on
	// the new kid.
	Emergency bool
}

// Rotate creates a new signing key. Normally it is published now and signs
// only once every verifier's cached JWKS has it (JWKSMaxAge, plus one
// refresh interval for the other replicas to publish it); the key signing
// until then stops at that moment and stays published until the last
// token it signed has expired. It returns the new key's record.
func (k *Keyring) Rotate(ctx context.Context, opts RotateOptions) (Record, error) {
	return k.rotate(ctx, opts, time.Time{})
}

// rotate is Rotate, made conditional by a non-zero ifNewestCreated (see
// Retirement.IfNewestCreated).
func (k *Keyring) rotate(ctx context.Context, opts RotateOptions, ifNewestCreated time.Time) (Record, error) {
	alg := opts.Alg
	if alg == "" {
		alg = k.cfg.Alg
	}
	if _, err := ParseAlg(string(alg)); err != nil {
		return Record{}, err
	}
	k.mu.Lock()
	defer k.mu.Unlock()

	now := k.now()
	rec, _, err := newKey(alg, k.cfg.KEK, now)
	if err != nil {
		return Record{}, err
	}
	retire := Retirement{At: now, ExpiresAt: now}
	if !opts.Emergency {
		rec.ActivateAt = now.Add(k.cfg.JWKSMaxAge + k.cfg.RefreshEvery)
		retire = k.retirement(rec.ActivateAt)
	}
	retire.IfNewestCreated = ifNewestCreated
	if err := k.cfg.Store.Rotate(ctx, rec, retire); err != nil {
		return Record{}, fmt.Errorf("keys: rotate: %w", err)
	}
	// Keys out of the JWKS are of no further use: destroy their private halves.
	if n, err := k.cfg.Store.Prune(ctx, now); err != nil {
		k.cfg.Logger.Warn("signing keys: prune failed", "err", err)
	} else if n > 0 {
		k.cfg.Logger.Info("signing keys: pruned expired keys", "count", n)
	}
	if err := k.load(ctx); err != nil {
		return rec, fmt.Errorf("keys: rotated to %s but reloading failed: %w", rec.KID, err)
	}
	k.cfg.Logger.Info("signing keys: rotated", "kid", rec.KID, "alg", rec.Alg, "activate_at", rec.ActivateAt, "emergency", opts.Emergency)
	return rec, nil
}
