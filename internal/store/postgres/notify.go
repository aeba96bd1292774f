package postgres

import (
	"context"
	"errors"
	"log/slog"
	"math/rand/v2"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/typeward/typeward/internal/registry"
)

// Invalidator is what a Listener keeps current: registry.Cache.
type Invalidator interface {
	Invalidate(registry.Change)
	Reset()
}

// Listener hears the registry changes every replica commits and passes
// them to an Invalidator. Its connection is its own, outside the pool.
// When the connection is lost it reconnects with exponential backoff and
// resets the Invalidator, since notifications sent meanwhile are lost.
type Listener struct {
	db     *DB
	target Invalidator
	log    *slog.Logger

	// MinBackoff and MaxBackoff bound the wait between reconnections.
	MinBackoff, MaxBackoff time.Duration

	connects atomic.Uint64
	received atomic.Uint64
}

// NewListener returns a listener for db's registry; start it with Run.
func NewListener(db *DB, target Invalidator, log *slog.Logger) *Listener {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Listener{db: db, target: target, log: log, MinBackoff: 100 * time.Millisecond, MaxBackoff: 10 * time.Second}
}

// Connects counts successful LISTENs (the first and every reconnection).
func (l *Listener) Connects() uint64 { return l.connects.Load() }

// Received counts notifications handled.
func (l *Listener) Received() uint64 { return l.received.Load() }

// Run listens until ctx ends; it returns ctx's error.
func (l *Listener) Run(ctx context.Context) error {
	floor := max(l.MinBackoff, time.Millisecond) // never spin
	backoff := floor
	for {
		listened, err := l.session(ctx)
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if listened {
			backoff = floor
		}
		l.log.Warn("registry listener: connection lost, reconnecting", "error", err, "backoff", backoff)
		// Jittered, so that replicas cut off together do not all come back
		// at the same instant.
		wait := backoff/2 + rand.N(backoff/2+1)
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(wait):
		}
		backoff = max(floor, min(2*backoff, l.MaxBackoff))
	}
}

// session connects, listens and handles notifications until the
// connection fails; listened reports whether LISTEN took effect.
func (l *Listener) session(ctx context.Context) (listened bool, err error) {
	conn, err := pgx.ConnectConfig(ctx, l.db.Pool.Config().ConnConfig.Copy())
	if err != nil {
		return false, err
	}
	defer func() {
		closeCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Second)
		defer cancel()
		_ = conn.Close(closeCtx)
	}()
	var channel *string
	if err := conn.QueryRow(ctx, "SELECT "+channelSQL, NotifyChannel).Scan(&channel); err != nil {
		return false, err
	}
	if channel == nil {
		return false, errors.New("no current schema: is search_path right?")
	}
	if _, err := conn.Exec(ctx, "LISTEN "+pgx.Identifier{*channel}.Sanitize()); err != nil {
		return false, err
	}
	// Changes committed before LISTEN took effect were never heard.
	l.target.Reset()
	l.connects.Add(1)
	for {
		n, err := conn.WaitForNotification(ctx)
		if err != nil {
			return true, err
		}
		l.received.Add(1)
		change, err := ParseChangePayload(n.Payload)
		if err != nil {
			// Not ours to understand: forget everything rather than guess.
			l.log.Warn("registry listener: unreadable notification", "error", err)
			l.target.Reset()
			continue
		}
		l.target.Invalidate(change)
	}
}
