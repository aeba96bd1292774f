package oauth

import (
	"log/slog"
	"time"

	"github.com/typeward/typeward/internal/metrics"
	"github.com/typeward/typeward/internal/registry"
)

// Service is the authorization server. Every field is required except
// Limiter (no rate limit), Metrics (not counted), Log (not logged), Now
// (time.Now), Failures, Tools and ValidationCacheBytes.
type Service struct {
	Issuer        string
	Authenticator Authenticator
	Validator     Validator
	Compositions  Compositions
	// Declarations has the tools' annotations, which the approval policy
	// reads.
	Declarations Declarations
	Minter       Minter
	Verifier     TokenVerifier
	Revocations  Revocations
	Clients      Clients
	Limiter      RateLimiter
	// Failures limits failed client authentications per remote address
	// and per claimed client id; unset: unlimited.
	Failures FailureLimits
	Audit    AuditLog
	Metrics  *metrics.Metrics
	Log      *slog.Logger
	Now      func() time.Time
	// Tools resolves the tool names a composition asks for, so that the
	// allow-list is checked before anything is validated or cached; nil
	// checks it only after validation.
	Tools registry.Resolver
	// Backchannel is the CIBA endpoint's store and bounds; without a
	// store there is no backchannel authentication.
	Backchannel Backchannel
	// ValidationCacheBytes bounds each validation cache
	// (DefaultValidationCacheBytes when 0).
	ValidationCacheBytes int64

	// vc caches validations by the authorization_details parameter, so a
	// repeated request is not even parsed (inline), and by the definition
	// of the stored composition it names (stored).
	vc validationCaches
	// buffered summarises the warnings of refusals whose audit records
	// wait for the database.
	buffered bufferedLog
}

// RegistryChanged forgets every cached validation: call it on every
// registry change (a tool declared, changed or removed on any replica).
func (s *Service) RegistryChanged() {
	c := s.caches()
	c.inline.Clear()
	c.stored.Clear()
}

func (s *Service) now() time.Time {
	if s.Now != nil {
		return s.Now()
	}
	return time.Now()
}
