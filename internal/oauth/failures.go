package oauth

import (
	"context"
	"time"

	"github.com/typeward/typeward/internal/addrkey"
	"github.com/typeward/typeward/internal/clients"
)

// FailureLimiter counts failed client authentications per key;
// *ratelimit.Limiter implements it.
type FailureLimiter interface {
	// Allow counts one failure; false when the key had none left.
	Allow(key string) (ok bool, retryAfter time.Duration)
	// Blocked reports, counting nothing, whether the key has none left.
	Blocked(key string) (blocked bool, retryAfter time.Duration)
}

// FailureLimits are the two counts of failed client authentications:
// per remote address (WithRemoteAddr) and per claimed client id. Either
// may be nil (unlimited). They are set apart because they guard different
// things: an address's limit slows one source guessing at many clients
// (and may need room for many pipelines behind one NAT), a client id's
// slows many sources guessing at one client.
type FailureLimits struct {
	ByAddress, ByClient FailureLimiter
}

// ReasonTooManyFailures is the audit reason of a request refused because
// its address failed to authenticate too often.
const ReasonTooManyFailures = "too_many_failures"

type remoteAddrKey struct{}

// WithRemoteAddr tells the Service the network address a request came
// from ("host:port" or a bare host), for the per-address failure limit,
// which counts it as addrkey.Of does (an IPv6 address as its /64).
func WithRemoteAddr(ctx context.Context, addr string) context.Context {
	return context.WithValue(ctx, remoteAddrKey{}, addrkey.Of(addr))
}

func remoteAddr(ctx context.Context) string {
	addr, _ := ctx.Value(remoteAddrKey{}).(string)
	return addr
}

// addressBlocked refuses, before any credential is looked at, a request
// from an address whose failures are spent: its attempts cost nothing
// more. Only requests from that address are affected.
func (s *Service) addressBlocked(ctx context.Context) error {
	addr := remoteAddr(ctx)
	if s.Failures.ByAddress == nil || addr == "" {
		return nil
	}
	if blocked, wait := s.Failures.ByAddress.Blocked(addr); blocked {
		return tooManyFailures(wait)
	}
	return nil
}

// countFailure counts a failed authentication against the address and the
// client id it claimed, and turns the failure into a 429 once either is
// spent. A correct credential is never refused by the client id's count,
// so failing on purpose cannot lock a real client out; and failures never
// touch the per-client success bucket (Limiter).
func (s *Service) countFailure(ctx context.Context, claimedID string) error {
	var wait time.Duration
	if addr := remoteAddr(ctx); addr != "" && s.Failures.ByAddress != nil {
		if ok, w := s.Failures.ByAddress.Allow(addr); !ok {
			wait = max(wait, w)
		}
	}
	if claimedID != "" && len(claimedID) <= clients.MaxClientIDLen && s.Failures.ByClient != nil {
		if ok, w := s.Failures.ByClient.Allow(claimedID); !ok {
			wait = max(wait, w)
		}
	}
	if wait > 0 {
		return tooManyFailures(wait)
	}
	return nil
}

func tooManyFailures(wait time.Duration) *Error {
	return &Error{Kind: KindRateLimited, Code: CodeRateLimited,
		Description: "too many failed client authentications; retry later", RetryAfter: wait}
}

// allowCall applies the per-client limit to an authenticated introspection
// or revocation, in a bucket of its own per endpoint, so that neither can
// be used without limit nor spend the client's token requests.
func (s *Service) allowCall(endpoint string, caller *clients.Client) error {
	return s.allow(endpoint+"\x00"+caller.ID, endpoint+" requests")
}

// allow takes one request from the success bucket key (Limiter), and
// refuses with 429 and Retry-After, naming what is limited, when it is
// spent. The token and backchannel endpoints share the client's own
// bucket (key: its id); nil Limiter: unlimited.
func (s *Service) allow(key, what string) error {
	if s.Limiter == nil {
		return nil
	}
	if ok, wait := s.Limiter.Allow(key); !ok {
		return &Error{Kind: KindRateLimited, Code: CodeRateLimited,
			Description: "too many " + what + "; retry later", RetryAfter: wait}
	}
	return nil
}
