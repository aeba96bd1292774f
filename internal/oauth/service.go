package oauth

import (
	"log/slog"
	"time"

	"github.com/typeward/typeward/internal/metrics"
)

// Service is the authorization server. Every field is required except
// Limiter (no rate limit) and Now (time.Now).
type Service struct {
	Issuer        string
	Authenticator Authenticator
	Validator     Validator
	Compositions  Compositions
	Minter        Minter
	Verifier      TokenVerifier
	Revocations   Revocations
	Limiter       RateLimiter
	Audit         AuditLog
	Metrics       *metrics.Metrics
	Log           *slog.Logger
	Now           func() time.Time

	validations validationCache
}

// RegistryChanged forgets every cached validation: call it on every
// registry change (a tool declared, changed or removed on any replica).
func (s *Service) RegistryChanged() { s.validations.clear() }

func (s *Service) now() time.Time {
	if s.Now != nil {
		return s.Now()
	}
	return time.Now()
}
