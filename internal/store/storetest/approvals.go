package storetest

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/typeward/typeward/internal/approval"
)

var approvalsEpoch = time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)

func pendingRequest(id, client string, at time.Duration) *approval.Request {
	return &approval.Request{
		ID: id, ClientID: client, Audience: "https://router.example.com/mcp", Scopes: []string{"extra"},
		Details: `[{"type":"mcp_composition","composition_id":"nightly"}]`, Digest: "sha256:abc",
		Tools: []string{"db_query", "email_send"}, BindingMessage: "<b>nightly</b> run 42",
		CreatedAt: approvalsEpoch.Add(at), ExpiresAt: approvalsEpoch.Add(at + 10*time.Minute),
		Interval: 5 * time.Second, Status: approval.Pending,
	}
}

func sameRequest(t *testing.T, got, want *approval.Request) {
	t.Helper()
	if got.ID != want.ID || got.ClientID != want.ClientID || got.Audience != want.Audience ||
		!slices.Equal(got.Scopes, want.Scopes) || got.Details != want.Details || got.Digest != want.Digest ||
		!slices.Equal(got.Tools, want.Tools) || got.BindingMessage != want.BindingMessage ||
		!got.CreatedAt.Equal(want.CreatedAt) || !got.ExpiresAt.Equal(want.ExpiresAt) || got.Interval != want.Interval ||
		got.Status != want.Status || got.DecidedBy != want.DecidedBy || !got.DecidedAt.Equal(want.DecidedAt) ||
		got.Reason != want.Reason || !got.LastPollAt.Equal(want.LastPollAt) || got.JTI != want.JTI {
		t.Errorf("request differs:\n got  %+v\n want %+v", got, want)
	}
}

// RunApprovals is the conformance suite of approval.Store.
func RunApprovals(t *testing.T, newStore func(t *testing.T) approval.Store) {
	ctx := context.Background()

	t.Run("CreateGetRoundTrip", func(t *testing.T) {
		t.Parallel()
		s := newStore(t)
		want := pendingRequest("r1", "c", 0)
		want.CreatedAt = want.CreatedAt.Add(123456789 * time.Nanosecond) // kept to the microsecond
		if err := s.Create(ctx, want, 5); err != nil {
			t.Fatal(err)
		}
		got, err := s.Get(ctx, "r1")
		if err != nil {
			t.Fatal(err)
		}
		want.CreatedAt = want.CreatedAt.Truncate(time.Microsecond)
		sameRequest(t, got, want)
		got.Tools[0] = "changed"
		if again, _ := s.Get(ctx, "r1"); again.Tools[0] != "db_query" {
			t.Errorf("a caller reached the stored request")
		}
	})

	t.Run("UnknownIsNotFound", func(t *testing.T) {
		t.Parallel()
		s := newStore(t)
		for name, err := range map[string]error{
			"get":    func() error { _, err := s.Get(ctx, "nope"); return err }(),
			"decide": s.Decide(ctx, "nope", approval.Decision{Approve: true, By: "a", At: approvalsEpoch}),
			"poll":   func() error { _, err := s.Poll(ctx, "nope", approvalsEpoch); return err }(),
			"redeem": s.Redeem(ctx, "nope", "jti", approvalsEpoch),
			"nul":    func() error { _, err := s.Get(ctx, "a\x00b"); return err }(),
		} {
			if !errors.Is(err, approval.ErrNotFound) {
				t.Errorf("%s of an unknown request: %v, want ErrNotFound", name, err)
			}
		}
	})

	t.Run("PendingPerClientIsBounded", func(t *testing.T) {
		t.Parallel()
		s := newStore(t)
		expired := pendingRequest("old", "c", -time.Hour) // expired long ago: does not count
		if err := s.Create(ctx, expired, 2); err != nil {
			t.Fatal(err)
		}
		for i := range 2 {
			if err := s.Create(ctx, pendingRequest(fmt.Sprint("p", i), "c", time.Duration(i)*time.Second), 2); err != nil {
				t.Fatal(err)
			}
		}
		if err := s.Create(ctx, pendingRequest("p2", "c", 3*time.Second), 2); !errors.Is(err, approval.ErrTooMany) {
			t.Errorf("a third pending request: %v, want ErrTooMany", err)
		}
		if _, err := s.Get(ctx, "p2"); !errors.Is(err, approval.ErrNotFound) {
			t.Errorf("the refused request was stored: %v", err)
		}
		if err := s.Create(ctx, pendingRequest("other", "d", 3*time.Second), 2); err != nil {
			t.Errorf("another client's request: %v", err)
		}
		// A decided request no longer counts.
		if err := s.Decide(ctx, "p0", approval.Decision{By: "a", At: approvalsEpoch.Add(4 * time.Second)}); err != nil {
			t.Fatal(err)
		}
		if err := s.Create(ctx, pendingRequest("p3", "c", 5*time.Second), 2); err != nil {
			t.Errorf("after a decision: %v", err)
		}
	})

	t.Run("ConcurrentCreatesKeepTheBound", func(t *testing.T) {
		t.Parallel()
		s := newStore(t)
		var wg sync.WaitGroup
		errs := make([]error, 8)
		for i := range errs {
			wg.Go(func() { errs[i] = s.Create(ctx, pendingRequest(fmt.Sprint("c", i), "c", time.Duration(i)), 3) })
		}
		wg.Wait()
		ok := 0
		for _, err := range errs {
			if err == nil {
				ok++
			} else if !errors.Is(err, approval.ErrTooMany) {
				t.Errorf("create: %v", err)
			}
		}
		if ok != 3 {
			t.Errorf("%d concurrent creates succeeded, want 3", ok)
		}
	})

	t.Run("PendingListsUndecidedUnexpiredOldestFirst", func(t *testing.T) {
		t.Parallel()
		s := newStore(t)
		for _, r := range []*approval.Request{pendingRequest("b", "c", 2*time.Second), pendingRequest("a", "c", time.Second),
			pendingRequest("gone", "c", -time.Hour), pendingRequest("decided", "d", 0), pendingRequest("z", "d", time.Second)} {
			if err := s.Create(ctx, r, 10); err != nil {
				t.Fatal(err)
			}
		}
		if err := s.Decide(ctx, "decided", approval.Decision{Approve: true, By: "x", At: approvalsEpoch.Add(time.Minute)}); err != nil {
			t.Fatal(err)
		}
		list, err := s.Pending(ctx, approvalsEpoch.Add(time.Minute), 10)
		if err != nil {
			t.Fatal(err)
		}
		var ids []string
		for _, r := range list {
			ids = append(ids, r.ID)
		}
		if !slices.Equal(ids, []string{"a", "z", "b"}) {
			t.Errorf("pending = %v, want [a z b]", ids)
		}
		if list, _ := s.Pending(ctx, approvalsEpoch.Add(time.Minute), 1); len(list) != 1 || list[0].ID != "a" {
			t.Errorf("limit 1: %v", list)
		}
	})

	t.Run("DecideOnceWhilePending", func(t *testing.T) {
		t.Parallel()
		s := newStore(t)
		for _, id := range []string{"yes", "no", "late"} {
			if err := s.Create(ctx, pendingRequest(id, "c", 0), 10); err != nil {
				t.Fatal(err)
			}
		}
		at := approvalsEpoch.Add(time.Minute)
		if err := s.Decide(ctx, "yes", approval.Decision{Approve: true, By: "alice", At: at}); err != nil {
			t.Fatal(err)
		}
		if err := s.Decide(ctx, "no", approval.Decision{By: "bob", At: at, Reason: "not tonight"}); err != nil {
			t.Fatal(err)
		}
		if err := s.Decide(ctx, "yes", approval.Decision{By: "mallory", At: at}); !errors.Is(err, approval.ErrNotPending) {
			t.Errorf("second decision: %v, want ErrNotPending", err)
		}
		if err := s.Decide(ctx, "late", approval.Decision{Approve: true, By: "alice", At: approvalsEpoch.Add(10 * time.Minute)}); !errors.Is(err, approval.ErrNotPending) {
			t.Errorf("decision at expiry: %v, want ErrNotPending", err)
		}
		yes, _ := s.Get(ctx, "yes")
		no, _ := s.Get(ctx, "no")
		if yes.Status != approval.Approved || yes.DecidedBy != "alice" || !yes.DecidedAt.Equal(at) ||
			no.Status != approval.Denied || no.DecidedBy != "bob" || no.Reason != "not tonight" {
			t.Errorf("decisions stored as %+v and %+v", yes, no)
		}
	})

	t.Run("PollReturnsThePreviousPoll", func(t *testing.T) {
		t.Parallel()
		s := newStore(t)
		if err := s.Create(ctx, pendingRequest("p", "c", 0), 10); err != nil {
			t.Fatal(err)
		}
		first, second := approvalsEpoch.Add(time.Second), approvalsEpoch.Add(3*time.Second)
		r, err := s.Poll(ctx, "p", first)
		if err != nil || !r.LastPollAt.IsZero() {
			t.Fatalf("first poll: %+v, %v", r, err)
		}
		if r, err = s.Poll(ctx, "p", second); err != nil || !r.LastPollAt.Equal(first) {
			t.Fatalf("second poll saw last poll %v, %v; want %v", r.LastPollAt, err, first)
		}
		if r, _ = s.Get(ctx, "p"); !r.LastPollAt.Equal(second) {
			t.Errorf("last poll %v, want %v", r.LastPollAt, second)
		}
	})

	t.Run("RedeemOnceAfterApproval", func(t *testing.T) {
		t.Parallel()
		s := newStore(t)
		if err := s.Create(ctx, pendingRequest("r", "c", 0), 10); err != nil {
			t.Fatal(err)
		}
		at := approvalsEpoch.Add(time.Minute)
		if err := s.Redeem(ctx, "r", "j0", at); !errors.Is(err, approval.ErrNotPending) {
			t.Errorf("redeem of a pending request: %v, want ErrNotPending", err)
		}
		if err := s.Decide(ctx, "r", approval.Decision{Approve: true, By: "alice", At: at}); err != nil {
			t.Fatal(err)
		}
		var wg sync.WaitGroup
		errs := make([]error, 6)
		for i := range errs {
			wg.Go(func() { errs[i] = s.Redeem(ctx, "r", fmt.Sprint("j", i), at) })
		}
		wg.Wait()
		winner := -1
		for i, err := range errs {
			switch {
			case err == nil && winner < 0:
				winner = i
			case err == nil:
				t.Errorf("two redemptions of one approval")
			case !errors.Is(err, approval.ErrNotPending):
				t.Errorf("redeem: %v", err)
			}
		}
		r, _ := s.Get(ctx, "r")
		if winner < 0 || r.Status != approval.Issued || r.JTI != fmt.Sprint("j", winner) {
			t.Errorf("after redemption: %+v (winner %d)", r, winner)
		}
		// An approval past its expiry is not redeemed.
		if err := s.Create(ctx, pendingRequest("late", "c", 0), 10); err != nil {
			t.Fatal(err)
		}
		_ = s.Decide(ctx, "late", approval.Decision{Approve: true, By: "a", At: at})
		if err := s.Redeem(ctx, "late", "j", approvalsEpoch.Add(11*time.Minute)); !errors.Is(err, approval.ErrNotPending) {
			t.Errorf("redeem after expiry: %v, want ErrNotPending", err)
		}
	})

	t.Run("PurgeRemovesOnlyExpired", func(t *testing.T) {
		t.Parallel()
		s := newStore(t)
		for _, r := range []*approval.Request{pendingRequest("old", "c", -time.Hour), pendingRequest("new", "c", 0)} {
			if err := s.Create(ctx, r, 10); err != nil {
				t.Fatal(err)
			}
		}
		n, err := s.Purge(ctx, approvalsEpoch)
		if err != nil || n != 1 {
			t.Fatalf("purge: %d, %v", n, err)
		}
		if _, err := s.Get(ctx, "old"); !errors.Is(err, approval.ErrNotFound) {
			t.Errorf("the expired request survived")
		}
		if _, err := s.Get(ctx, "new"); err != nil {
			t.Errorf("the live request was purged: %v", err)
		}
	})
}
