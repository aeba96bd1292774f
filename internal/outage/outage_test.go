package outage

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"syscall"
	"testing"
)

type pgError string

func (e pgError) Error() string    { return "pg: " + string(e) }
func (e pgError) SQLState() string { return string(e) }

func TestIs(t *testing.T) {
	for _, tc := range []struct {
		err  error
		want bool
	}{
		{nil, false},
		{errors.New("bug"), false},
		{context.Canceled, false},
		{fmt.Errorf("query: %w", context.DeadlineExceeded), true},
		{&net.OpError{Op: "dial", Net: "tcp", Err: syscall.ECONNREFUSED}, true},
		{fmt.Errorf("read: %w", io.ErrUnexpectedEOF), true},
		{fmt.Errorf("x: %w", pgError("57P01")), true}, // admin shutdown
		{pgError("08006"), true},                      // connection failure
		{pgError("53300"), true},                      // too many connections
		{pgError("23505"), false},                     // unique violation: a bug or a conflict
		{pgError("x"), false},
	} {
		if got := Is(tc.err); got != tc.want {
			t.Errorf("Is(%v) = %v, want %v", tc.err, got, tc.want)
		}
	}
}

func TestCanceled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	if Canceled(ctx, context.Canceled) {
		t.Error("a cancellation while the caller's context is live is not the caller's")
	}
	cancel()
	if !Canceled(ctx, fmt.Errorf("q: %w", context.Canceled)) || Canceled(ctx, errors.New("other")) {
		t.Error("Canceled misreads")
	}
}
