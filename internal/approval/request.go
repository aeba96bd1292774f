package approval

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"slices"
	"time"
)

// Sentinels every Store returns (wrapped).
var (
	ErrNotFound = errors.New("backchannel authentication request not found")
	// ErrNotPending: the request was already decided (Decide), or is not
	// approved or already redeemed (Redeem), or has expired.
	ErrNotPending = errors.New("backchannel authentication request is not in the state asked for")
	// ErrTooMany: the client has as many pending requests as it may.
	ErrTooMany = errors.New("too many pending backchannel authentication requests")
)

// Status is where a request is in its life.
type Status string

const (
	Pending  Status = "pending"
	Approved Status = "approved"
	Denied   Status = "denied"
	// Issued: the approval was redeemed for its one token.
	Issued Status = "issued"
)

// Request is one backchannel authentication request (CIBA auth_req_id):
// a client's composition that waits for a person's decision.
type Request struct {
	ID       string // the auth_req_id
	ClientID string
	// Audience, Scopes and Details are what the token will be for:
	// Details is the authorization_details parameter as the client sent it.
	Audience string
	Scopes   []string
	Details  string
	// Digest is the composition's digest when the request was made; a
	// token is issued only while a fresh validation has the same digest.
	Digest         string
	Tools          []string // the composition's tools, for the approver
	BindingMessage string
	CreatedAt      time.Time
	ExpiresAt      time.Time
	Interval       time.Duration // the least time between two polls
	Status         Status
	// DecidedBy, DecidedAt and Reason are set by the person's decision.
	DecidedBy string
	DecidedAt time.Time
	Reason    string
	// LastPollAt is the last token request for this id (zero before).
	LastPollAt time.Time
	JTI        string // of the one token, once issued
}

// Expired reports whether the request has expired at now.
func (r *Request) Expired(now time.Time) bool { return !now.Before(r.ExpiresAt) }

// Clone returns a deep copy.
func (r *Request) Clone() *Request {
	d := *r
	d.Scopes, d.Tools = slices.Clone(r.Scopes), slices.Clone(r.Tools)
	return &d
}

// Decision is a person's answer to a pending request.
type Decision struct {
	Approve bool
	By      string // the console user
	At      time.Time
	Reason  string
}

// Store keeps backchannel authentication requests for every replica.
// Implementations: memory.Approvals, postgres.Approvals; both pass
// storetest.RunApprovals. Times are kept to the microsecond.
type Store interface {
	// Create stores a new pending request, or ErrTooMany when the client
	// already has maxPending requests pending and unexpired at
	// r.CreatedAt.
	Create(ctx context.Context, r *Request, maxPending int) error
	// Get returns one request, or ErrNotFound.
	Get(ctx context.Context, id string) (*Request, error)
	// Pending lists the requests pending and unexpired at now, oldest
	// first, at most limit.
	Pending(ctx context.Context, now time.Time, limit int) ([]*Request, error)
	// Decide approves or denies a request pending and unexpired at d.At,
	// at most once: ErrNotPending otherwise.
	Decide(ctx context.Context, id string, d Decision) error
	// Poll records a token request for id at at and returns the request
	// as it was before (its LastPollAt the previous poll's), atomically,
	// so that two replicas never both see an old poll time.
	Poll(ctx context.Context, id string, at time.Time) (*Request, error)
	// Redeem moves an approved, unexpired request to Issued with the jti
	// of its token, at most once: ErrNotPending otherwise.
	Redeem(ctx context.Context, id, jti string, at time.Time) error
	// Purge deletes requests that expired before before.
	Purge(ctx context.Context, before time.Time) (int64, error)
}

// NewID returns a fresh auth_req_id: 256 random bits, base64url.
func NewID() string {
	var b [32]byte
	_, _ = rand.Read(b[:])
	return base64.RawURLEncoding.EncodeToString(b[:])
}
