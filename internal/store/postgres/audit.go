package postgres

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/typeward/typeward/internal/audit"
)

// Audit is the Postgres audit.Store, on the oauth_issuances table.
//
// Append is on every token request's path and a commit waits for the WAL
// to reach disk, so appends are group-committed: concurrent appends are
// written by one multi-row INSERT, and each returns once that INSERT has
// committed. Under load one disk flush serves many requests; alone, an
// append costs what a plain INSERT does.
type Audit struct {
	db *DB

	mu       sync.Mutex
	pending  []*pendingIssuance
	flushing bool // a flush goroutine is running; it stops when pending is empty
}

type pendingIssuance struct {
	rec  audit.Issuance
	done chan error // buffered: the flusher never blocks on a caller gone away
}

var _ audit.Store = (*Audit)(nil)

// NewAudit returns the issuance log of db.
func NewAudit(db *DB) *Audit { return &Audit{db: db} }

const (
	issuanceColumns = `id, at, client_id, outcome, reason, composition_digest, tools, issue_codes, jti, audience`
	// maxAuditBatch bounds one INSERT: 10 parameters a row, far below
	// Postgres's 65535.
	maxAuditBatch = 500
	// auditFlushTimeout bounds one INSERT; it is not any caller's context
	// because the rows of many callers share it.
	auditFlushTimeout = 10 * time.Second
)

// Append implements audit.Store. When ctx ends first, Append returns its
// error but the record may still be written.
func (s *Audit) Append(ctx context.Context, rec *audit.Issuance) error {
	if err := audit.Normalize(rec); err != nil {
		return err
	}
	p := &pendingIssuance{rec: *rec, done: make(chan error, 1)}
	p.rec.Tools = slices.Clone(rec.Tools)
	p.rec.IssueCodes = slices.Clone(rec.IssueCodes)

	s.mu.Lock()
	s.pending = append(s.pending, p)
	if !s.flushing {
		s.flushing = true
		go s.flush()
	}
	s.mu.Unlock()

	select {
	case err := <-p.done:
		return err
	case <-ctx.Done():
		return fmt.Errorf("audit append: %w (the record may still be written)", ctx.Err())
	}
}

// flush writes batches until nothing is pending.
func (s *Audit) flush() {
	for {
		s.mu.Lock()
		n := min(len(s.pending), maxAuditBatch)
		if n == 0 {
			s.flushing = false
			s.pending = nil // drop the grown array
			s.mu.Unlock()
			return
		}
		batch := s.pending[:n:n]
		s.pending = s.pending[n:]
		s.mu.Unlock()
		s.write(batch)
	}
}

// write inserts a batch and tells each caller. When Postgres refuses the
// INSERT (a duplicate id, a value it cannot hold) the whole batch fails, so
// then the rows are retried one by one: one bad record must not fail its
// neighbours. A lost connection fails them all alike.
func (s *Audit) write(batch []*pendingIssuance) {
	ctx, cancel := context.WithTimeout(context.Background(), auditFlushTimeout)
	defer cancel()
	err := s.insert(ctx, batch)
	if _, refused := errors.AsType[*pgconn.PgError](err); refused && len(batch) > 1 {
		for _, p := range batch {
			p.done <- s.insert(ctx, []*pendingIssuance{p})
		}
		return
	}
	for _, p := range batch {
		p.done <- err
	}
}

func (s *Audit) insert(ctx context.Context, batch []*pendingIssuance) error {
	var sql strings.Builder
	sql.WriteString(`INSERT INTO oauth_issuances (` + issuanceColumns + `) VALUES `)
	args := make([]any, 0, 10*len(batch))
	for i, p := range batch {
		if i > 0 {
			sql.WriteString(", ")
		}
		sql.WriteString("(")
		for j := range 10 {
			if j > 0 {
				sql.WriteString(", ")
			}
			sql.WriteString("$" + strconv.Itoa(10*i+j+1))
		}
		sql.WriteString(")")
		r := &p.rec
		args = append(args, r.ID, r.Time, r.ClientID, string(r.Outcome), r.Reason, r.CompositionDigest,
			nonNilStrings(r.Tools), nonNilStrings(r.IssueCodes), r.JTI, r.Audience)
	}
	_, err := s.db.Pool.Exec(ctx, sql.String(), args...)
	switch {
	case err == nil:
		return nil
	case isUniqueViolation(err) && len(batch) == 1:
		return fmt.Errorf("audit: record %q: %w", batch[0].rec.ID, audit.ErrDuplicateID)
	default:
		return fmt.Errorf("audit append: %w", err)
	}
}

// Query implements audit.Store with a keyset page over (at, id) descending.
func (s *Audit) Query(ctx context.Context, q audit.Query) (audit.Page, error) {
	after, err := q.Normalize()
	if err != nil {
		return audit.Page{}, err
	}
	var where []string
	var args []any
	arg := func(v any) string {
		args = append(args, v)
		return "$" + strconv.Itoa(len(args))
	}
	if q.ClientID != "" {
		where = append(where, "client_id = "+arg(q.ClientID))
	}
	if q.Outcome != "" {
		where = append(where, "outcome = "+arg(string(q.Outcome)))
	}
	if !q.Since.IsZero() {
		where = append(where, "at >= "+arg(q.Since))
	}
	if after != nil {
		where = append(where, "(at, id) < ("+arg(after.Time)+", "+arg(after.ID)+")")
	}
	sql := `SELECT ` + issuanceColumns + ` FROM oauth_issuances`
	if len(where) > 0 {
		sql += " WHERE " + strings.Join(where, " AND ")
	}
	// One row more than the page tells whether there is a next page.
	sql += " ORDER BY at DESC, id DESC LIMIT " + arg(q.Limit+1)

	rows, err := s.db.Pool.Query(ctx, sql, args...)
	if err != nil {
		return audit.Page{}, fmt.Errorf("audit query: %w", err)
	}
	items, err := pgx.CollectRows(rows, scanIssuance)
	if err != nil {
		return audit.Page{}, fmt.Errorf("audit query: %w", err)
	}
	if items == nil {
		items = []audit.Issuance{} // an empty page lists nothing, not null
	}
	page := audit.Page{Items: items}
	if len(items) > q.Limit {
		page.Items = items[:q.Limit]
		last := page.Items[q.Limit-1]
		page.Next = audit.EncodeCursor(audit.Position{Time: last.Time, ID: last.ID})
	}
	return page, nil
}

func scanIssuance(row pgx.CollectableRow) (audit.Issuance, error) {
	var r audit.Issuance
	var outcome string
	err := row.Scan(&r.ID, &r.Time, &r.ClientID, &outcome, &r.Reason, &r.CompositionDigest,
		&r.Tools, &r.IssueCodes, &r.JTI, &r.Audience)
	r.Outcome = audit.Outcome(outcome)
	r.Time = r.Time.UTC()
	return r, err
}
