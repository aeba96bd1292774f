package oauth

import (
	"github.com/typeward/typeward/internal/nonce"
	"github.com/typeward/typeward/verify/dpop"
	"log/slog"
	"time"

	"github.com/typeward/typeward/internal/composition"
	"github.com/typeward/typeward/internal/grant"
	"github.com/typeward/typeward/internal/metrics"
	"github.com/typeward/typeward/internal/registry"
)

// Service is the authorization server. Every field is required except
// Limiter (no rate limit), Metrics (not counted), Log (not logged), Now
// (time.Now), Failures, Tools and ValidationCacheBytes.
type Service struct {
	Issuer        string
	Authenticator Authenticator
	Validator     composition.Validates
	Compositions  Compositions
	// Declarations has the tools' annotations, which the approval policy
	// reads.
	Declarations Declarations
	Minter       Minter
	Verifier     TokenVerifier
	// DPoP checks the token requests' DPoP proofs (RFC 9449); nil refuses
	// them.
	DPoP *dpop.Checker
	// DPoPNonces, when set, requires a server nonce in every DPoP proof
	// (RFC 9449 §8, serve --dpop-nonce); nil accepts proofs without one.
	DPoPNonces  nonce.Store
	Revocations Revocations
	Clients     Clients
	Limiter     RateLimiter
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
	// Grants keeps the authorization codes and refresh families of the
	// authorization endpoint; without a store there is none.
	Grants Grants
	// Backchannel is the CIBA endpoint's store and bounds; without a
	// store there is no backchannel authentication.
	Backchannel Backchannel
	// ValidationCacheBytes bounds each validation cache
	// (DefaultValidationCacheBytes when 0).
	ValidationCacheBytes int64
	// RegistryGeneration, when set, is the registry generation the caches
	// in front of the registry are current with (postgres.Listener), 0 when
	// unknown. Each issuance records the one its validation read, and the
	// registry's guard, run in the transaction of the audit record,
	// refuses it once the registry is at another (registry.ErrChanged,
	// from Audit.Append): the token is withheld, the request
	// answered 503 with Retry-After, the validation caches emptied, and
	// RegistryBehind called. Unset (one process, changes heard at commit),
	// nothing is checked.
	RegistryGeneration func() int64
	// RegistryBehind is told the generation of a validation the registry's
	// guard refused: the registry is at a later one
	// (postgres.Listener.Behind).
	RegistryBehind func(validated int64)

	// vc caches validations by the authorization_details parameter, so a
	// repeated request is not even parsed (inline), and by the definition
	// of the stored composition it names (stored).
	vc validationCaches
	// buffered summarises the warnings of refusals whose audit records
	// wait for the database.
	buffered bufferedLog
}

// Grants configures the authorization code flow's storage and the
// lifetimes of its refresh families.
type Grants struct {
	Store grant.Store
	// IdleLifetime ends a refresh token unused this long
	// (DefaultRefreshIdle when 0); AbsoluteLifetime ends the family
	// (DefaultRefreshAbsolute when 0).
	IdleLifetime     time.Duration
	AbsoluteLifetime time.Duration
}

// The default refresh lifetimes.
const (
	DefaultRefreshIdle     = 24 * time.Hour
	DefaultRefreshAbsolute = 30 * 24 * time.Hour
)

func (g Grants) idle() time.Duration     { return cmpOr(g.IdleLifetime, DefaultRefreshIdle) }
func (g Grants) absolute() time.Duration { return cmpOr(g.AbsoluteLifetime, DefaultRefreshAbsolute) }

// RegistryChanged forgets every cached validation: call it on every
// registry change (a tool declared, changed or removed on any replica).
func (s *Service) RegistryChanged() {
	c := s.caches()
	c.inline.Clear()
	c.stored.Clear()
}

// registryGeneration is the precondition of an issuance validated now:
// 0 checks nothing, -1 (the generation is unknown) is always refused.
func (s *Service) registryGeneration() int64 {
	if s.RegistryGeneration == nil {
		return 0
	}
	if g := s.RegistryGeneration(); g > 0 {
		return g
	}
	return -1
}

func (s *Service) now() time.Time {
	if s.Now != nil {
		return s.Now()
	}
	return time.Now()
}
