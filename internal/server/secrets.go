package server

import (
	"fmt"

	"github.com/typeward/typeward/internal/clients"
	"github.com/typeward/typeward/internal/keys"
)

// KEKFromEnv reads the key encryption key from TYPEWARD_KEY_ENCRYPTION_KEY:
// serve and `typeward keys rotate` both need it, with one message.
func KEKFromEnv(getenv func(string) string) (*keys.KEK, error) {
	raw := getenv(EnvKEK)
	if raw == "" {
		return nil, fmt.Errorf("%s is required with a database: signing keys are stored encrypted under it (generate one with: openssl rand -base64 32)", EnvKEK)
	}
	kek, err := keys.ParseKEK(raw)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", EnvKEK, err)
	}
	return kek, nil
}

// PepperFromEnv reads the client secret pepper from
// TYPEWARD_CLIENT_SECRET_PEPPER: serve and `typeward clients create` both
// need it, with one message.
func PepperFromEnv(getenv func(string) string) ([]byte, error) {
	raw := getenv(EnvPepper)
	if raw == "" {
		return nil, fmt.Errorf("%s is required with a database: client secrets are stored as a keyed hash under it (generate one with: openssl rand -base64 32)", EnvPepper)
	}
	p, err := clients.ParsePepper(raw)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", EnvPepper, err)
	}
	return p, nil
}
