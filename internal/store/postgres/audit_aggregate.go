package postgres

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/typeward/typeward/internal/audit"
)

// Aggregate implements audit.Store with two GROUP BY queries over the
// window's partitions (pruned by at). The reasons read the partial index
// of refusals; the hourly counts read every record of the window, which a
// 24-hour chart bounds to a day or two of partitions.
func (s *Audit) Aggregate(ctx context.Context, w audit.Window) (audit.Summary, error) {
	if err := w.Check(); err != nil {
		return audit.Summary{}, err
	}
	var sum audit.Summary
	rows, err := s.db.Pool.Query(ctx, `SELECT date_trunc('hour', at AT TIME ZONE 'UTC'), outcome, count(*)
		FROM oauth_issuances WHERE at >= $1 AND at < $2 GROUP BY 1, 2 ORDER BY 1, outcome COLLATE "C"`, w.Since, w.Until)
	if err != nil {
		return sum, fmt.Errorf("audit aggregate: %w", err)
	}
	sum.Hours, err = pgx.CollectRows(rows, func(row pgx.CollectableRow) (audit.HourCount, error) {
		var h audit.HourCount
		var hour time.Time
		var outcome string
		err := row.Scan(&hour, &outcome, &h.Count)
		h.Hour, h.Outcome = time.Date(hour.Year(), hour.Month(), hour.Day(), hour.Hour(), 0, 0, 0, time.UTC), audit.Outcome(outcome)
		return h, err
	})
	if err != nil {
		return sum, fmt.Errorf("audit aggregate: %w", err)
	}
	rows, err = s.db.Pool.Query(ctx, `SELECT reason, count(*) FROM oauth_issuances
		WHERE outcome <> 'issued' AND at >= $1 AND at < $2
		GROUP BY 1 ORDER BY 2 DESC, reason COLLATE "C" LIMIT $3`, w.Since, w.Until, audit.MaxReasons)
	if err != nil {
		return sum, fmt.Errorf("audit aggregate: %w", err)
	}
	sum.Reasons, err = pgx.CollectRows(rows, func(row pgx.CollectableRow) (audit.ReasonCount, error) {
		var r audit.ReasonCount
		return r, row.Scan(&r.Reason, &r.Count)
	})
	if err != nil {
		return sum, fmt.Errorf("audit aggregate: %w", err)
	}
	return sum, nil
}
