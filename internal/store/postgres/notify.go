package postgres

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

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
// resets the Invalidator, since notifications sent meanwhile are lost: at
// the loss, after every failed attempt, and once listening again. So while
// it cannot listen, nothing the cache serves is older than MaxBackoff plus
// one bounded connection attempt (listenTimeout).
type Listener struct {
	db     *DB
	target Invalidator
	log    *slog.Logger

	// MinBackoff and MaxBackoff bound the wait between reconnections.
	MinBackoff, MaxBackoff time.Duration
	// Heartbeat is how long the listener waits for a notification before
	// it pings its connection: one dropped without a FIN or RST (a NAT or
	// load balancer forgetting it) would otherwise go unnoticed until TCP
	// keepalive gives up, minutes later, with every change unheard.
	Heartbeat time.Duration

	connects atomic.Uint64
}

// listenTimeout bounds one attempt to connect and LISTEN: a dropped route
// would otherwise hold it for as long as TCP retries.
const listenTimeout = 5 * time.Second

// NewListener returns a listener for db's registry; start it with Run.
func NewListener(db *DB, target Invalidator, log *slog.Logger) *Listener {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Listener{db: db, target: target, log: log, MinBackoff: 100 * time.Millisecond, MaxBackoff: 10 * time.Second, Heartbeat: 30 * time.Second}
}

// Connects counts successful LISTENs (the first and every reconnection).
func (l *Listener) Connects() uint64 { return l.connects.Load() }

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
		// Changes made meanwhile go unheard: forget what may be stale
		// now rather than at the reconnection, however late that comes.
		l.target.Reset()
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
	setup, cancel := context.WithTimeout(ctx, listenTimeout)
	defer cancel()
	conn, err := pgx.ConnectConfig(setup, l.db.Pool.Config().ConnConfig.Copy())
	if err != nil {
		return false, err
	}
	defer func() {
		closeCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Second)
		defer cancel()
		_ = conn.Close(closeCtx)
	}()
	var channel *string
	if err := conn.QueryRow(setup, "SELECT "+channelSQL, NotifyChannel).Scan(&channel); err != nil {
		return false, err
	}
	if channel == nil {
		return false, errors.New("no current schema: is search_path right?")
	}
	if _, err := conn.Exec(setup, "LISTEN "+pgx.Identifier{*channel}.Sanitize()); err != nil {
		return false, err
	}
	// Changes committed before LISTEN took effect were never heard.
	l.target.Reset()
	l.connects.Add(1)
	for {
		n, err := l.wait(ctx, conn)
		if err != nil {
			return true, err
		}
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

// wait waits for the next notification, pinging the connection after
// every Heartbeat of silence. A timed-out wait leaves the connection
// usable (pgx interrupts the read with a deadline, not by closing).
func (l *Listener) wait(ctx context.Context, conn *pgx.Conn) (*pgconn.Notification, error) {
	heartbeat := max(l.Heartbeat, time.Millisecond)
	for {
		waitCtx, cancel := context.WithTimeout(ctx, heartbeat)
		n, err := conn.WaitForNotification(waitCtx)
		cancel()
		if err == nil || ctx.Err() != nil || !pgconn.Timeout(err) {
			return n, err
		}
		pingCtx, cancel := context.WithTimeout(ctx, listenTimeout)
		err = conn.Ping(pingCtx)
		cancel()
		if err != nil {
			return nil, fmt.Errorf("heartbeat: %w", err)
		}
	}
}
