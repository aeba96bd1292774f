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
	// gen is the registry generation every change up to which the
	// Invalidator has been told of; 0 while not listening.
	gen atomic.Int64
	// kick asks the session to reconnect (Behind); lastKick debounces.
	kick     chan struct{}
	lastKick atomic.Int64
}

// kickEvery bounds how often Behind makes the listener reconnect.
const kickEvery = time.Second

// listenTimeout bounds one attempt to connect and LISTEN: a dropped route
// would otherwise hold it for as long as TCP retries.
const listenTimeout = 5 * time.Second

// NewListener returns a listener for db's registry; start it with Run.
func NewListener(db *DB, target Invalidator, log *slog.Logger) *Listener {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Listener{db: db, target: target, log: log, MinBackoff: 100 * time.Millisecond, MaxBackoff: 10 * time.Second, Heartbeat: 30 * time.Second,
		kick: make(chan struct{}, 1)}
}

// Generation is the registry generation (migration 0015) that the
// Invalidator is current with: every change committed up to it has been
// passed on. 0 while the listener is not listening: then nothing says the
// cache is current. A token is recorded only while its validation's
// generation is still the database's (registry.ErrChanged), so a
// missed or late notification costs a refused request, never a token for
// a replaced schema.
func (l *Listener) Generation() int64 { return l.gen.Load() }

// Behind tells the listener that the database is at a later generation
// than validated, the one a refused issuance was validated at: a
// notification is on its way (this replica's own change echoing back),
// was lost, or the connection is dead without a word (a NAT forgetting
// it). Unless the listener has heard a later generation by then (at once,
// or within behindGrace), it reconnects, resetting the Invalidator and
// learning the generation anew, rather than at the next heartbeat; at
// most once a second.
func (l *Listener) Behind(validated int64) {
	if l.gen.Load() > validated {
		return // heard meanwhile: the next validation is current
	}
	now := time.Now().UnixNano()
	last := l.lastKick.Load()
	if now-last < int64(kickEvery) || !l.lastKick.CompareAndSwap(last, now) {
		return
	}
	time.AfterFunc(behindGrace, func() {
		if l.gen.Load() > validated {
			return
		}
		select {
		case l.kick <- struct{}{}:
		default:
		}
	})
}

// behindGrace is how long Behind waits for a notification on its way.
const behindGrace = 250 * time.Millisecond

// Connects counts successful LISTENs (the first and every reconnection).
func (l *Listener) Connects() uint64 { return l.connects.Load() }

// Run listens until ctx ends; it returns ctx's error.
func (l *Listener) Run(ctx context.Context) error {
	floor := max(l.MinBackoff, time.Millisecond) // never spin
	backoff := floor
	for {
		listened, err := l.session(ctx)
		l.gen.Store(0)
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
	// Read before LISTEN: a change committed in between is heard by nobody
	// but found by the first token it affects (the database is then ahead
	// of gen, so Behind reconnects), never taken for heard. What the cache
	// loads after the reset below is at least this current.
	var gen int64
	if err := conn.QueryRow(setup, `SELECT gen FROM registry_generation`).Scan(&gen); err != nil {
		return false, err
	}
	if _, err := conn.Exec(setup, "LISTEN "+pgx.Identifier{*channel}.Sanitize()); err != nil {
		return false, err
	}
	// Changes committed before LISTEN took effect were never heard.
	l.target.Reset()
	l.gen.Store(gen)
	l.connects.Add(1)
	// A kick (Behind) ends the session: the caller reconnects.
	session, stop := context.WithCancelCause(ctx)
	defer stop(nil)
	go func() {
		select {
		case <-l.kick:
			stop(errBehind)
		case <-session.Done():
		}
	}()
	for {
		n, err := l.wait(session, conn)
		if err != nil {
			if cause := context.Cause(session); errors.Is(cause, errBehind) {
				err = cause
			}
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
		// In commit order: this is the newest change heard. One without a
		// generation (a replica from before) leaves it, so the next token
		// finds the database ahead and asks for a reconnection.
		l.advance(change.Generation)
	}
}

// advance raises the generation heard to gen, never lowers it: this
// replica's own change may have raised it before its notification came.
func (l *Listener) advance(gen int64) {
	for {
		cur := l.gen.Load()
		if gen <= cur || l.gen.CompareAndSwap(cur, gen) {
			return
		}
	}
}

// Committed tells the listener of the generation a transaction of this
// replica made, once the Invalidator has been told of all its changes
// (Registry.Committed): when every change before it was heard, it is
// current here at once, without waiting for its notifications to come
// back.
func (l *Listener) Committed(gen int64) {
	if gen > 1 {
		l.gen.CompareAndSwap(gen-1, gen)
	}
}

// errBehind ends a session that Behind asked to reconnect.
var errBehind = errors.New("the database is at a later registry generation than heard")

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
