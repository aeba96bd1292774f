package clients

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"
)

// Environment variables of the admin bootstrap.
const (
	AdminClientIDEnv     = "TYPEWARD_ADMIN_CLIENT_ID"
	AdminClientSecretEnv = "TYPEWARD_ADMIN_CLIENT_SECRET"
)

// minAdminSecretLen is the shortest operator-chosen admin secret accepted.
// The hash is fast because secrets are meant to carry full entropy, so an
// operator secret must be generated too (32 base64 characters = 192 bits).
const minAdminSecretLen = 32

// AdminName is the name of the bootstrapped admin client.
const AdminName = "typeward admin (bootstrap)"

// EnsureOutcome says what EnsureAdmin did.
type EnsureOutcome string

const (
	AdminCreated   EnsureOutcome = "created"
	AdminUpdated   EnsureOutcome = "updated"
	AdminUnchanged EnsureOutcome = "unchanged"
	// AdminDisabled: the client exists but an operator disabled it; the
	// bootstrap does not undo that (the caller should warn).
	AdminDisabled EnsureOutcome = "disabled"
)

// ValidateAdminCredentials checks the operator's admin id and secret and
// returns every problem at once, for start-up validation.
func ValidateAdminCredentials(id, secret string) []error {
	var errs []error
	switch {
	case id == "":
		errs = append(errs, fmt.Errorf("%s is empty", AdminClientIDEnv))
	case len(id) > MaxClientIDLen:
		errs = append(errs, fmt.Errorf("%s is longer than %d characters", AdminClientIDEnv, MaxClientIDLen))
	case slices.ContainsFunc([]byte(id), func(c byte) bool { return c < 0x21 || c > 0x7e }):
		errs = append(errs, fmt.Errorf("%s must be visible ASCII", AdminClientIDEnv))
	}
	if len(secret) < minAdminSecretLen {
		errs = append(errs, fmt.Errorf("%s has %d characters, need at least %d from a random generator (e.g. openssl rand -base64 32)", AdminClientSecretEnv, len(secret), minAdminSecretLen))
	}
	return errs
}

// EnsureAdmin makes the admin client id exist with the operator's secret
// (hashed like any other) and the AdminScope. It is idempotent and safe for
// replicas starting at once; a changed secret replaces the stored hash.
func EnsureAdmin(ctx context.Context, s Store, h *Hasher, id, secret string, now time.Time) (EnsureOutcome, error) {
	if errs := ValidateAdminCredentials(id, secret); len(errs) > 0 {
		return "", errors.Join(errs...)
	}
	for range 3 { // a concurrent replica can create the client between Get and Create
		c, err := s.Get(ctx, id)
		if errors.Is(err, ErrNotFound) {
			err = s.Create(ctx, &Client{
				ID:                      id,
				Name:                    AdminName,
				TokenEndpointAuthMethod: SecretBasic,
				SecretHash:              h.Hash(id, secret),
				AllowedScopes:           []string{AdminScope},
				CreatedAt:               now.UTC(),
			})
			if errors.Is(err, ErrConflict) {
				continue
			}
			if err != nil {
				return "", fmt.Errorf("bootstrap admin client: %w", err)
			}
			return AdminCreated, nil
		}
		if err != nil {
			return "", fmt.Errorf("bootstrap admin client: %w", err)
		}
		return updateAdmin(ctx, s, h, c, secret)
	}
	return "", fmt.Errorf("bootstrap admin client: %w", ErrConflict)
}

func updateAdmin(ctx context.Context, s Store, h *Hasher, c *Client, secret string) (EnsureOutcome, error) {
	changed := false
	if !c.TokenEndpointAuthMethod.UsesSecret() {
		c.TokenEndpointAuthMethod, c.JWKS = SecretBasic, nil
		changed = true
	}
	if !h.Verify(c.ID, secret, c.SecretHash) {
		c.SecretHash = h.Hash(c.ID, secret)
		changed = true
	}
	if !c.AllowsScope(AdminScope) {
		c.AllowedScopes = append(c.AllowedScopes, AdminScope)
		changed = true
	}
	if changed {
		if err := s.Update(ctx, c); err != nil {
			return "", fmt.Errorf("bootstrap admin client: %w", err)
		}
	}
	switch {
	case c.Disabled:
		return AdminDisabled, nil
	case changed:
		return AdminUpdated, nil
	}
	return AdminUnchanged, nil
}
