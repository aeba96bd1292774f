package keys

import (
	"context"
	"errors"
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
//
// A manual rotation is refused (a *RotationRefused) while the previous one
// is still pending (its key does not sign yet) or when MaxPublishedKeys
// are published: rotating faster only lengthens the JWKS. An emergency
// rotation is never refused, since it withdraws every other key.
//
// The guard holds across replicas: a manual rotation is conditional on
// the newest key being the one the check saw (Retirement.IfNewestCreated),
// so of rotations asked of several replicas at once one is made and the
// others, checked again against its key, are refused.
func (k *Keyring) Rotate(ctx context.Context, opts RotateOptions) (Record, error) {
	if opts.Emergency {
		return k.rotate(ctx, opts, time.Time{})
	}
	for range maxRotationAttempts {
		newest, err := k.rotationAllowed(ctx)
		if err != nil {
			return Record{}, err
		}
		rec, err := k.rotate(ctx, opts, newest)
		if !errors.Is(err, ErrRotatedMeanwhile) {
			return rec, err
		}
		// Another rotation came between the check and the write: check
		// again, against the key it made.
	}
	return Record{}, &RotationRefused{RetryAt: k.now().Add(time.Second),
		Reason: "other rotations keep coming first; retry"}
}

// maxRotationAttempts bounds how often a manual rotation is checked again
// when others (emergency ones, which nothing refuses) keep coming first.
const maxRotationAttempts = 4

// MaxPublishedKeys bounds the JWKS: the signing key, one pending, and the
// retired keys whose tokens may still be live fit with room to spare.
const MaxPublishedKeys = 10

// RotationRefused is a manual rotation that would come too soon.
type RotationRefused struct {
	Reason string
	// RetryAt is when a rotation will be accepted (zero: unknown).
	RetryAt time.Time
}

func (e *RotationRefused) Error() string { return "keys: rotation refused: " + e.Reason }

// rotationAllowed checks the guard against the store's current keys, and
// returns the newest key's CreatedAt, on which the rotation is then made
// conditional (zero: the store holds no key).
func (k *Keyring) rotationAllowed(ctx context.Context) (newest time.Time, err error) {
	k.mu.Lock()
	err = k.load(ctx)
	snap := k.snap.Load()
	k.mu.Unlock()
	if err != nil {
		return time.Time{}, err
	}
	now := k.now()
	published := 0
	var earliestExpiry time.Time
	for _, rec := range snap.records {
		if rec.CreatedAt.After(newest) {
			newest = rec.CreatedAt
		}
		if !rec.published(now) {
			continue
		}
		published++
		if !rec.ActivateAt.After(now) && !rec.ExpiresAt.IsZero() && (earliestExpiry.IsZero() || rec.ExpiresAt.Before(earliestExpiry)) {
			earliestExpiry = rec.ExpiresAt
		}
		if rec.ActivateAt.After(now) {
			return time.Time{}, &RotationRefused{RetryAt: rec.ActivateAt,
				Reason: fmt.Sprintf("key %s from the last rotation is still pending: it signs from %s; rotate again after that (or rotate with emergency for a compromised key)",
					rec.KID, rec.ActivateAt.UTC().Format(time.RFC3339))}
		}
	}
	if published >= MaxPublishedKeys {
		return time.Time{}, &RotationRefused{RetryAt: earliestExpiry,
			Reason: fmt.Sprintf("%d keys are published, at most %d: wait until retired keys leave the JWKS (the next at %s)",
				published, MaxPublishedKeys, earliestExpiry.UTC().Format(time.RFC3339))}
	}
	return newest, nil
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
