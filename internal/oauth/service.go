package oauth

import (
	"log/slog"
	"time"

	"github.com/typeward/typeward/internal/metrics"
)

// Service is the authorization server. Every field is required except
// Limiter (no rate limit), Metrics (not counted), Log (not logged) and Now
// (time.Now).
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

	// inline caches validations by the authorization_details parameter,
	// so a repeated request is not even parsed; stored by the definition
	// of the stored composition it names.
	inline, stored validationCache
}

// RegistryChanged forgets every cached validation: call it on every
// registry change (a tool declared, changed or removed on any replica).
func (s *Service) RegistryChanged() {
	s.inline.clear()
	s.stored.clear()
}

func (s *Service) now() time.Time {
	if s.Now != nil {
		return s.Now()
	}
	return time.Now()
}
