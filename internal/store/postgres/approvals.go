package postgres

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/typeward/typeward/internal/approval"
)

// Approvals is the Postgres approval.Store, on the approval_requests
// table: pending requests survive a restart and every replica sees them.
type Approvals struct {
	db *DB
}

var _ approval.Store = (*Approvals)(nil)

// NewApprovals returns the backchannel request store of db.
func NewApprovals(db *DB) *Approvals { return &Approvals{db: db} }

const approvalColumns = `id, client_id, audience, scopes, details, digest, tools, binding_message,
	created_at, expires_at, interval_us, status, decided_by, decided_at, reason, last_poll_at, jti`

// Create implements approval.Store. The count of the client's pending
// requests and the insert are one transaction under a lock on the client,
// so replicas cannot both let the client past its bound.
func (s *Approvals) Create(ctx context.Context, r *approval.Request, maxPending int) error {
	if !storable(r.ID, r.ClientID, r.Audience, r.Details, r.Digest, r.BindingMessage) || !storable(r.Scopes...) || !storable(r.Tools...) {
		return fmt.Errorf("create backchannel request: text with NUL or invalid UTF-8")
	}
	return pgx.BeginFunc(ctx, s.db.Pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock(hashtext('approval_requests'), hashtext($1))`, r.ClientID); err != nil {
			return fmt.Errorf("create backchannel request: %w", err)
		}
		var n int
		if err := tx.QueryRow(ctx, `SELECT count(*) FROM approval_requests
			WHERE client_id = $1 AND status = 'pending' AND expires_at > $2`, r.ClientID, r.CreatedAt).Scan(&n); err != nil {
			return fmt.Errorf("create backchannel request: %w", err)
		}
		if n >= maxPending {
			return fmt.Errorf("client %q: %w", r.ClientID, approval.ErrTooMany)
		}
		_, err := tx.Exec(ctx, `INSERT INTO approval_requests (id, client_id, audience, scopes, details, digest,
			tools, binding_message, created_at, expires_at, interval_us)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)`,
			r.ID, r.ClientID, r.Audience, nonNilStrings(r.Scopes), r.Details, r.Digest, nonNilStrings(r.Tools),
			r.BindingMessage, r.CreatedAt, r.ExpiresAt, r.Interval.Microseconds())
		if err != nil {
			return fmt.Errorf("create backchannel request: %w", err)
		}
		return nil
	})
}

// Get implements approval.Store.
func (s *Approvals) Get(ctx context.Context, id string) (*approval.Request, error) {
	if !storable(id) {
		return nil, fmt.Errorf("request: %w", approval.ErrNotFound)
	}
	rows, err := s.db.Pool.Query(ctx, `SELECT `+approvalColumns+` FROM approval_requests WHERE id = $1`, id)
	if err != nil {
		return nil, fmt.Errorf("get backchannel request: %w", err)
	}
	return oneRequest(rows)
}

func oneRequest(rows pgx.Rows) (*approval.Request, error) {
	r, err := pgx.CollectExactlyOneRow(rows, scanRequest)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, fmt.Errorf("request: %w", approval.ErrNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("backchannel request: %w", err)
	}
	return r, nil
}

// Pending implements approval.Store.
func (s *Approvals) Pending(ctx context.Context, now time.Time, limit int) ([]*approval.Request, error) {
	rows, err := s.db.Pool.Query(ctx, `SELECT `+approvalColumns+` FROM approval_requests
		WHERE status = 'pending' AND expires_at > $1 ORDER BY created_at, id LIMIT $2`, now, limit)
	if err != nil {
		return nil, fmt.Errorf("pending backchannel requests: %w", err)
	}
	out, err := pgx.CollectRows(rows, scanRequest)
	if err != nil {
		return nil, fmt.Errorf("pending backchannel requests: %w", err)
	}
	return out, nil
}

// Decide implements approval.Store.
func (s *Approvals) Decide(ctx context.Context, id string, d approval.Decision) error {
	if !storable(id, d.By, d.Reason) {
		return fmt.Errorf("decide request: %w", approval.ErrNotFound)
	}
	status := approval.Denied
	if d.Approve {
		status = approval.Approved
	}
	tag, err := s.db.Pool.Exec(ctx, `UPDATE approval_requests SET status = $2, decided_by = $3, decided_at = $4, reason = $5
		WHERE id = $1 AND status = 'pending' AND expires_at > $4`, id, string(status), d.By, d.At, d.Reason)
	if err != nil {
		return fmt.Errorf("decide backchannel request: %w", err)
	}
	if tag.RowsAffected() == 0 {
		return s.missingOr(ctx, id, approval.ErrNotPending)
	}
	return nil
}

// missingOr is ErrNotFound when id does not exist, else err.
func (s *Approvals) missingOr(ctx context.Context, id string, err error) error {
	var one int
	switch e := s.db.Pool.QueryRow(ctx, `SELECT 1 FROM approval_requests WHERE id = $1`, id).Scan(&one); {
	case errors.Is(e, pgx.ErrNoRows):
		return fmt.Errorf("request: %w", approval.ErrNotFound)
	case e != nil:
		return fmt.Errorf("backchannel request: %w", e)
	}
	return fmt.Errorf("backchannel request: %w", err)
}

// Poll implements approval.Store: the row lock makes the previous poll
// time each caller sees its own.
func (s *Approvals) Poll(ctx context.Context, id string, at time.Time) (*approval.Request, error) {
	if !storable(id) {
		return nil, fmt.Errorf("request: %w", approval.ErrNotFound)
	}
	var r *approval.Request
	err := pgx.BeginFunc(ctx, s.db.Pool, func(tx pgx.Tx) error {
		rows, err := tx.Query(ctx, `SELECT `+approvalColumns+` FROM approval_requests WHERE id = $1 FOR UPDATE`, id)
		if err != nil {
			return fmt.Errorf("poll backchannel request: %w", err)
		}
		if r, err = oneRequest(rows); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `UPDATE approval_requests SET last_poll_at = $2 WHERE id = $1`, id, at); err != nil {
			return fmt.Errorf("poll backchannel request: %w", err)
		}
		return nil
	})
	return r, err
}

// Redeem implements approval.Store.
func (s *Approvals) Redeem(ctx context.Context, id, jti string, at time.Time) error {
	if !storable(id, jti) {
		return fmt.Errorf("redeem request: %w", approval.ErrNotFound)
	}
	tag, err := s.db.Pool.Exec(ctx, `UPDATE approval_requests SET status = 'issued', jti = $2
		WHERE id = $1 AND status = 'approved' AND expires_at > $3`, id, jti, at)
	if err != nil {
		return fmt.Errorf("redeem backchannel request: %w", err)
	}
	if tag.RowsAffected() == 0 {
		return s.missingOr(ctx, id, approval.ErrNotPending)
	}
	return nil
}

// Purge implements approval.Store.
func (s *Approvals) Purge(ctx context.Context, before time.Time) (int64, error) {
	tag, err := s.db.Pool.Exec(ctx, `DELETE FROM approval_requests WHERE expires_at < $1`, before)
	if err != nil {
		return 0, fmt.Errorf("purge backchannel requests: %w", err)
	}
	return tag.RowsAffected(), nil
}

func scanRequest(row pgx.CollectableRow) (*approval.Request, error) {
	var r approval.Request
	var status string
	var intervalUS int64
	var decidedAt, lastPoll *time.Time
	err := row.Scan(&r.ID, &r.ClientID, &r.Audience, &r.Scopes, &r.Details, &r.Digest, &r.Tools, &r.BindingMessage,
		&r.CreatedAt, &r.ExpiresAt, &intervalUS, &status, &r.DecidedBy, &decidedAt, &r.Reason, &lastPoll, &r.JTI)
	if err != nil {
		return nil, err
	}
	r.Status, r.Interval = approval.Status(status), time.Duration(intervalUS)*time.Microsecond
	r.CreatedAt, r.ExpiresAt = r.CreatedAt.UTC(), r.ExpiresAt.UTC()
	r.DecidedAt, r.LastPollAt = timeOrZero(decidedAt), timeOrZero(lastPoll)
	return &r, nil
}
