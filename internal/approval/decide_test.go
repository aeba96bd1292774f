package approval_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/typeward/typeward/internal/approval"
	"github.com/typeward/typeward/internal/store/memory"
)

// revalidator answers with err and counts its calls.
type revalidator struct {
	err   error
	calls int
}

func (v *revalidator) Revalidate(context.Context, *approval.Request) error {
	v.calls++
	return v.err
}

func TestDecideRevalidatesApprovalsOnly(t *testing.T) {
	ctx := context.Background()
	now := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	newRequest := func(t *testing.T, s approval.Store) string {
		r := &approval.Request{ID: approval.NewID(), ClientID: "c", Audience: "a", Details: "[]", Digest: "sha256:x",
			CreatedAt: now, ExpiresAt: now.Add(time.Minute), Interval: time.Second}
		if err := s.Create(ctx, r, 10); err != nil {
			t.Fatal(err)
		}
		return r.ID
	}
	stale := fmt.Errorf("%w: email_send changed", approval.ErrNoLongerValid)
	for _, tc := range []struct {
		name      string
		approve   bool
		at        time.Time
		refuse    error
		wantErr   error
		wantCalls int
		want      approval.Status
	}{
		{"approve, still valid", true, now, nil, nil, 1, approval.Approved},
		{"approve, no longer valid", true, now, stale, approval.ErrNoLongerValid, 1, approval.Pending},
		{"approve, the check fails", true, now, errors.New("registry down"), nil, 1, approval.Pending},
		{"deny is never revalidated", false, now, stale, nil, 0, approval.Denied},
		{"an expired request is not revalidated", true, now.Add(time.Hour), nil, approval.ErrNotPending, 0, approval.Pending},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := memory.NewApprovals()
			id := newRequest(t, s)
			v := &revalidator{err: tc.refuse}
			err := approval.Decide(ctx, s, v, id, approval.Decision{Approve: tc.approve, By: "alice", At: tc.at})
			switch {
			case tc.wantErr != nil && !errors.Is(err, tc.wantErr),
				tc.wantErr == nil && tc.refuse == nil && err != nil,
				tc.wantErr == nil && tc.refuse != nil && tc.approve && !errors.Is(err, tc.refuse):
				t.Errorf("Decide = %v", err)
			}
			if v.calls != tc.wantCalls {
				t.Errorf("revalidated %d times, want %d", v.calls, tc.wantCalls)
			}
			if r, _ := s.Get(ctx, id); r.Status != tc.want {
				t.Errorf("status %s, want %s", r.Status, tc.want)
			}
		})
	}
	t.Run("no revalidator approves nothing", func(t *testing.T) {
		s := memory.NewApprovals()
		id := newRequest(t, s)
		if err := approval.Decide(ctx, s, nil, id, approval.Decision{Approve: true, By: "alice", At: now}); err == nil {
			t.Error("approved without a revalidator")
		}
	})
}
