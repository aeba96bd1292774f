package audit

import (
	"cmp"
	"fmt"
	"slices"
	"time"
)

// Bounds of an aggregate: a chart's window, and how many refusal reasons
// it names (the most frequent).
const (
	MaxAggregateWindow = 31 * 24 * time.Hour
	MaxReasons         = 50
)

// Window selects the records of an aggregate: Since <= time < Until.
type Window struct {
	Since, Until time.Time
}

// Check refuses an empty, inverted or too long window.
func (w Window) Check() error {
	if w.Since.IsZero() || w.Until.IsZero() || !w.Since.Before(w.Until) {
		return fmt.Errorf("%w: the window must have a start before its end", ErrInvalidQuery)
	}
	if w.Until.Sub(w.Since) > MaxAggregateWindow {
		return fmt.Errorf("%w: the window is longer than %s", ErrInvalidQuery, MaxAggregateWindow)
	}
	return nil
}

// HourCount is how many records of one outcome fall in one UTC hour.
type HourCount struct {
	Hour    time.Time // the hour's start, UTC
	Outcome Outcome
	Count   int
}

// ReasonCount is how many refusals (denied and error records) give one
// reason.
type ReasonCount struct {
	Reason string
	Count  int
}

// Summary is the aggregate of a window: the counts per hour and outcome
// (hours without records are absent), ordered by hour then outcome, and
// the refusals' reasons, the most frequent first (ties by reason, bytewise),
// at most MaxReasons of them.
type Summary struct {
	Hours   []HourCount
	Reasons []ReasonCount
}

// Summarize aggregates records in memory with the semantics every store
// gives Aggregate (memory uses it; the Postgres store's GROUP BY is
// checked against it by the conformance suite).
func Summarize(records []Issuance, w Window) Summary {
	type key struct {
		hour    time.Time
		outcome Outcome
	}
	hours := map[key]int{}
	reasons := map[string]int{}
	for _, r := range records {
		if r.Time.Before(w.Since) || !r.Time.Before(w.Until) {
			continue
		}
		hours[key{r.Time.UTC().Truncate(time.Hour), r.Outcome}]++
		if r.Outcome != Issued {
			reasons[r.Reason]++
		}
	}
	var s Summary
	for k, n := range hours {
		s.Hours = append(s.Hours, HourCount{Hour: k.hour, Outcome: k.outcome, Count: n})
	}
	slices.SortFunc(s.Hours, func(a, b HourCount) int {
		return cmp.Or(a.Hour.Compare(b.Hour), cmp.Compare(a.Outcome, b.Outcome))
	})
	for r, n := range reasons {
		s.Reasons = append(s.Reasons, ReasonCount{Reason: r, Count: n})
	}
	slices.SortFunc(s.Reasons, func(a, b ReasonCount) int {
		return cmp.Or(cmp.Compare(b.Count, a.Count), cmp.Compare(a.Reason, b.Reason))
	})
	if len(s.Reasons) > MaxReasons {
		s.Reasons = s.Reasons[:MaxReasons]
	}
	return s
}
