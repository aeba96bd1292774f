package keys

import (
	"context"
	"errors"
	"time"
)

// ErrConflict is wrapped by a Store asked to insert a kid it already holds.
var ErrConflict = errors.New("keys: key already exists")

// ErrRotatedMeanwhile is wrapped by a Store refusing a conditional rotation
// (Retirement.IfNewestCreated) because a newer key was stored since.
var ErrRotatedMeanwhile = errors.New("keys: another rotation came first")

// Store keeps signing keys. Implementations: memory.Keys and postgres.Keys;
// both pass storetest.RunKeys. Every write is atomic, and writes from
// several replicas are serialised, so replicas sharing a store agree on the
// schedule.
type Store interface {
	// InsertFirst stores rec only when the store holds no key at all, and
	// reports whether it did: replicas starting together on an empty store
	// end up with one key.
	InsertFirst(ctx context.Context, rec Record) (bool, error)
	// Rotate stores next and, in the same transaction, moves every other
	// key's RetireAt and ExpiresAt to r's times where those are earlier
	// (or unset). A kid already stored is ErrConflict, and a set
	// r.IfNewestCreated that is not the newest key's CreatedAt is
	// ErrRotatedMeanwhile; both change nothing.
	Rotate(ctx context.Context, next Record, r Retirement) error
	// List returns every key, earliest activation first (ties by kid).
	List(ctx context.Context) ([]Record, error)
	// Prune deletes the keys that left the JWKS at or before t (their
	// private halves are no longer needed) and reports how many.
	Prune(ctx context.Context, t time.Time) (int, error)
}
