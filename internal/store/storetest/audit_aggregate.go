package storetest

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"sync"
	"testing"
	"time"

	"github.com/typeward/typeward/internal/audit"
)

func runAuditAggregate(t *testing.T, newStore func(t *testing.T) audit.Store) {
	ctx := context.Background()
	hour := func(h int) time.Time { return auditEpoch.Add(time.Duration(h) * time.Hour) }

	t.Run("AggregateCountsPerHourAndReason", func(t *testing.T) {
		t.Parallel()
		s := newStore(t)
		w := audit.Window{Since: hour(0), Until: hour(3)}
		for _, r := range []struct {
			at      time.Duration
			outcome audit.Outcome
			reason  string
		}{
			{-time.Microsecond, audit.Denied, "before"}, // outside: before Since
			{0, audit.Issued, ""},                       // Since is inclusive
			{time.Minute, audit.Issued, ""},
			{59*time.Minute + 59*time.Second, audit.Denied, "type_mismatch"},
			{time.Hour, audit.Denied, "bad_secret"},
			{2 * time.Hour, audit.Error, "server_error"},
			{2*time.Hour + time.Second, audit.Denied, "bad_secret"},
			{2*time.Hour + 2*time.Second, audit.Denied, "type_mismatch"},
			{2*time.Hour + 3*time.Second, audit.Denied, "approval_required"},
			{3 * time.Hour, audit.Denied, "after"}, // Until is exclusive
		} {
			rec := testIssuance("", "c", r.outcome, r.at)
			rec.Reason = r.reason
			if err := s.Append(ctx, rec); err != nil {
				t.Fatal(err)
			}
		}
		got, err := s.Aggregate(ctx, w)
		if err != nil {
			t.Fatal(err)
		}
		want := audit.Summary{
			Hours: []audit.HourCount{
				{Hour: hour(0), Outcome: audit.Denied, Count: 1}, {Hour: hour(0), Outcome: audit.Issued, Count: 2},
				{Hour: hour(1), Outcome: audit.Denied, Count: 1},
				{Hour: hour(2), Outcome: audit.Denied, Count: 3}, {Hour: hour(2), Outcome: audit.Error, Count: 1},
			},
			Reasons: []audit.ReasonCount{{Reason: "bad_secret", Count: 2}, {Reason: "type_mismatch", Count: 2},
				{Reason: "approval_required", Count: 1}, {Reason: "server_error", Count: 1}},
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("aggregate\n got %+v\nwant %+v", got, want)
		}
		for _, h := range got.Hours {
			if h.Hour.Location() != time.UTC {
				t.Errorf("hour %v is not in UTC", h.Hour)
			}
		}
		if empty, err := s.Aggregate(ctx, audit.Window{Since: hour(10), Until: hour(11)}); err != nil || len(empty.Hours) != 0 || len(empty.Reasons) != 0 {
			t.Errorf("an empty window: %+v, %v", empty, err)
		}
	})

	// Beyond any page size (the Activity page once drew at most 2000
	// records): counts are exact, and only the most frequent MaxReasons
	// reasons are named.
	t.Run("AggregateIsExactBeyondAPage", func(t *testing.T) {
		t.Parallel()
		s := newStore(t)
		const n = 2125
		var wg sync.WaitGroup
		errs := make(chan error, n)
		for i := range n {
			wg.Go(func() {
				rec := testIssuance("", "c", audit.Denied, time.Duration(i)*time.Millisecond)
				rec.Reason = fmt.Sprintf("r%03d", i%(audit.MaxReasons+10)) // 60 reasons: r000-r024 36 times, the rest 35
				if err := s.Append(ctx, rec); err != nil {
					errs <- err
				}
			})
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Fatal(err)
		}
		got, err := s.Aggregate(ctx, audit.Window{Since: hour(0), Until: hour(1)})
		if err != nil {
			t.Fatal(err)
		}
		if want := []audit.HourCount{{Hour: hour(0), Outcome: audit.Denied, Count: n}}; !reflect.DeepEqual(got.Hours, want) {
			t.Errorf("hours %+v, want %+v", got.Hours, want)
		}
		if len(got.Reasons) != audit.MaxReasons || got.Reasons[0] != (audit.ReasonCount{Reason: "r000", Count: 36}) ||
			got.Reasons[24] != (audit.ReasonCount{Reason: "r024", Count: 36}) || got.Reasons[25] != (audit.ReasonCount{Reason: "r025", Count: 35}) ||
			got.Reasons[audit.MaxReasons-1] != (audit.ReasonCount{Reason: "r049", Count: 35}) {
			t.Errorf("reasons %+v", got.Reasons)
		}
	})

	t.Run("AggregateRefusesBadWindows", func(t *testing.T) {
		t.Parallel()
		s := newStore(t)
		for name, w := range map[string]audit.Window{
			"zero":     {},
			"empty":    {Since: hour(1), Until: hour(1)},
			"inverted": {Since: hour(2), Until: hour(1)},
			"too long": {Since: hour(0), Until: hour(0).Add(audit.MaxAggregateWindow + time.Hour)},
		} {
			if _, err := s.Aggregate(ctx, w); !errors.Is(err, audit.ErrInvalidQuery) {
				t.Errorf("%s window: %v, want ErrInvalidQuery", name, err)
			}
		}
	})
}
