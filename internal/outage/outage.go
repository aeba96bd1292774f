// Package outage tells a failure that will pass — the database is down,
// restarting, stalled past the request's deadline, out of connections —
// from everything else. Such failures are answered 503 with Retry-After,
// not 500: the client did nothing wrong and should try again shortly.
package outage

import (
	"context"
	"errors"
	"io"
	"net"
	"syscall"
)

// RetryAfter is the wait an outage answer suggests, in seconds: short,
// since most outages typeward sees are a failover or a restart.
const RetryAfter = 1

// Is reports whether err is a dependency being unavailable: a network
// error, a refused or reset connection, a connection cut mid-answer, a
// deadline reached, or a database error of SQLSTATE class 08 (connection
// exception), 53 (insufficient resources) or 57 (operator intervention:
// shutdown, crash recovery, cancel). A cancellation by the caller is not
// an outage (see Canceled).
func Is(err error) bool {
	if err == nil || errors.Is(err, context.Canceled) {
		return false
	}
	if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) ||
		errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE) {
		return true
	}
	var ne net.Error
	if errors.As(err, &ne) {
		return true
	}
	var state interface{ SQLState() string }
	if errors.As(err, &state) {
		switch code := state.SQLState(); {
		case len(code) != 5:
		case code[:2] == "08", code[:2] == "53", code[:2] == "57":
			return true
		}
	}
	return false
}

// Canceled reports whether err is the caller's own cancellation (the
// client hung up): not a server error, and not an outage.
func Canceled(ctx context.Context, err error) bool {
	return errors.Is(err, context.Canceled) && ctx.Err() != nil
}
