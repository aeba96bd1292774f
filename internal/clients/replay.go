package clients

import (
	"context"
	"errors"
	"time"
)

// ErrReplayed is what a ReplayStore returns for an assertion jti it has
// already seen and not yet forgotten.
var ErrReplayed = errors.New("assertion jti already used")

// ErrInvalidJTI is what a ReplayStore returns for a jti ValidJTI refuses.
var ErrInvalidJTI = errors.New("assertion jti is empty, longer than 256 bytes, or not printable text")

// ReplayStore remembers the jti of every private_key_jwt assertion until
// the assertion expires, so that each is accepted once (RFC 7523 §3 item
// 7). Implementations: memory.AssertionReplay, postgres.AssertionReplay;
// both pass storetest.RunAssertionReplay. With several replicas it must be
// shared (Postgres), or an assertion could be replayed at another replica.
type ReplayStore interface {
	// Claim records (clientID, jti) until expiresAt. It returns ErrReplayed
	// when the pair is recorded with an expiry after now (an expired record
	// is replaced), and ErrInvalidJTI for a jti ValidJTI refuses.
	Claim(ctx context.Context, clientID, jti string, expiresAt, now time.Time) error
	// Purge forgets every record that expired at or before now and says
	// how many it removed.
	Purge(ctx context.Context, now time.Time) (int64, error)
}
