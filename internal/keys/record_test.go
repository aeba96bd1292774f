package keys

import (
	"testing"
	"time"
)

func TestStateAt(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	at := func(m int) time.Time { return t0.Add(time.Duration(m) * time.Minute) }
	rotated := Record{PublishAt: at(0), ActivateAt: at(15), RetireAt: at(60), ExpiresAt: at(70)}
	open := Record{PublishAt: at(0), ActivateAt: at(15)}
	scheduled := Record{PublishAt: at(10), ActivateAt: at(15)}
	withdrawn := Record{PublishAt: at(0), ActivateAt: at(0), RetireAt: at(5), ExpiresAt: at(5)}
	tests := []struct {
		name string
		rec  Record
		now  time.Time
		want State
	}{
		{"before publication", scheduled, at(5), StateScheduled},
		{"published, waiting", rotated, at(0), StatePending},
		{"last instant pending", rotated, at(15).Add(-time.Nanosecond), StatePending},
		{"activation is inclusive", rotated, at(15), StateActive},
		{"signing", rotated, at(59), StateActive},
		{"retirement is inclusive", rotated, at(60), StateRetired},
		{"retired, still published", rotated, at(69), StateRetired},
		{"expiry is inclusive", rotated, at(70), StateExpired},
		{"unscheduled key signs on", open, at(100000), StateActive},
		{"withdrawn at once", withdrawn, at(5), StateExpired},
	}
	for _, tc := range tests {
		if got := tc.rec.StateAt(tc.now); got != tc.want {
			t.Errorf("%s: StateAt = %s, want %s", tc.name, got, tc.want)
		}
	}
}
