package postgres

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/typeward/typeward/internal/audit"
	"github.com/typeward/typeward/internal/registry"
)

// Audit is the Postgres audit.Store, on the oauth_issuances table.
//
// Append is on every token request's path and a commit waits for the WAL
// to reach disk, so appends are group-committed: the appends waiting at
// one moment are written by one multi-row INSERT (a prepared statement per
// batch size, cached by pgx on each connection), and each returns once
// that INSERT has committed. Under load one disk flush serves many
// requests; alone, an append costs what a plain INSERT does. The
// registry's cross-replica guard rides in the same round trip and
// transaction (insert); the table itself checks nothing.
//
// Two faults are handled here. An append whose context ends before its
// record commits returns at once, and its record is still written, an
// issuance as audit.Undelivered (when the INSERT was already under way,
// it is corrected right after the commit). And while the database is
// unavailable, refusals are kept in a bounded in-memory buffer and written
// once it answers again (see audit.ErrBuffered); so is a failed issuance,
// as undelivered: the caller withholds its token.
type Audit struct {
	db *DB
	// Log, when set, hears about records lost to a full outage buffer and
	// corrections that failed.
	Log *slog.Logger
	// OutageBytes bounds the outage buffer by audit.Size
	// (OutageBufferBytes from NewAudit); set it before the first Append.
	OutageBytes int64

	// appends group-commits the waiting appends (write).
	appends group[*pendingIssuance]

	outageMu  sync.Mutex
	outage    []audit.Issuance // refusals waiting for the database to answer
	outageLen int64            // audit.Size of outage
	retrying  bool             // a retry goroutine is running; it stops when outage is empty
	overflown uint64           // refusals dropped because the buffer was full
}

// pendingIssuance is one waiting append. Its state moves once, from
// waiting to answered (by the flusher, after the commit) or to abandoned
// (by Append, when its context ends): whichever comes first decides
// whether an issuance is stored as issued.
type pendingIssuance struct {
	rec   audit.Issuance
	state atomic.Int32
	done  chan error // buffered: the flusher never blocks on a caller gone away
}

const (
	waiting int32 = iota
	answered
	abandoned
)

var _ audit.Store = (*Audit)(nil)

// NewAudit returns the issuance log of db.
func NewAudit(db *DB) *Audit {
	s := &Audit{db: db, OutageBytes: OutageBufferBytes}
	s.appends = group[*pendingIssuance]{max: maxAuditBatch, run: s.write}
	return s
}

const (
	issuanceColumns = `id, at, client_id, outcome, reason, composition_digest, tools, issue_codes, jti, audience,
		auth_req_id, approved_by, approved_at, issues, issues_dropped, dpop_jkt`
	// maxAuditBatch bounds one INSERT: 17 parameters a row, far below
	// Postgres's 65535.
	maxAuditBatch = 500
	// auditFlushTimeout bounds one INSERT; it is not any caller's context
	// because the rows of many callers share it.
	auditFlushTimeout = 10 * time.Second
	// OutageBufferSize bounds the refusals held while the database is
	// unavailable, and OutageBufferBytes their size (audit.Size: about
	// 1 KiB each, up to tens of KiB with a refusal's issues): beyond
	// either they are counted, logged and dropped.
	OutageBufferSize  = 10_000
	OutageBufferBytes = 32 << 20
	// outageRetryMin and outageRetryMax bound the wait between attempts to
	// write the buffer (doubling from the first).
	outageRetryMin = 200 * time.Millisecond
	outageRetryMax = 5 * time.Second
)

// auditColumnCount is the number of issuanceColumns.
const auditColumnCount = 16

// Append implements audit.Store.
func (s *Audit) Append(ctx context.Context, rec *audit.Issuance) error {
	if err := audit.Normalize(rec); err != nil {
		return err
	}
	p := &pendingIssuance{rec: audit.Clone(*rec), done: make(chan error, 1)}
	s.appends.add(p)
	select {
	case err := <-p.done:
		return err
	case <-ctx.Done():
		if p.state.CompareAndSwap(waiting, abandoned) {
			return fmt.Errorf("audit append: %w (the record is still written, an issuance as not delivered)", ctx.Err())
		}
		return <-p.done // answered first: the flusher is sending the result
	}
}

// write inserts a batch and tells each caller. When Postgres refuses the
// INSERT for a value (a duplicate id, a value it cannot hold) the whole
// batch fails, so then the rows are retried one by one: one bad record
// must not fail its neighbours. A lost connection fails them all alike.
func (s *Audit) write(batch []*pendingIssuance) {
	ctx, cancel := context.WithTimeout(context.Background(), auditFlushTimeout)
	defer cancel()
	rows := make([]audit.Issuance, len(batch))
	for i, p := range batch {
		rows[i] = p.rec
		if p.state.Load() == abandoned {
			rows[i] = audit.Undelivered(p.rec)
		}
	}
	var corrections []audit.Issuance
	err := s.insert(ctx, rows, false)
	if refusedValue(err) && len(batch) > 1 {
		for i, p := range batch {
			corrections = s.answer(p, rows[i], s.insert(ctx, rows[i:i+1], false), corrections)
		}
	} else {
		for i, p := range batch {
			corrections = s.answer(p, rows[i], err, corrections)
		}
	}
	if len(corrections) > 0 {
		if err := s.insert(ctx, corrections, true); err != nil {
			s.buffer(corrections...)
		}
	}
}

// answer tells p's caller how its row went, and returns corrections with
// the row appended when it was committed as issued after its caller gave
// up (so it must be rewritten as not delivered).
func (s *Audit) answer(p *pendingIssuance, row audit.Issuance, err error, corrections []audit.Issuance) []audit.Issuance {
	gaveUp := !p.state.CompareAndSwap(waiting, answered)
	switch {
	case err == nil:
		if gaveUp && row.Outcome == audit.Issued {
			corrections = append(corrections, audit.Undelivered(row))
		}
	case errors.Is(err, registry.ErrChanged):
		// Nothing was written: the refusal is, with the corrections.
		corrections = append(corrections, audit.RegistryChanged(row))
	case refusedValue(err):
	case row.Outcome != audit.Issued:
		s.buffer(row)
		err = fmt.Errorf("%w: %w", audit.ErrBuffered, err)
	default:
		// The token is withheld: its record says so once the database
		// answers, replacing the issuance if that committed after all.
		s.buffer(audit.Undelivered(row))
	}
	p.done <- err
	return corrections
}

// registryGeneration is the registry generation an issuance's validation
// read, NULL for none (a refusal, or no composition validated).
func registryGeneration(r *audit.Issuance) *int64 {
	if r.Outcome != audit.Issued || r.RegistryGeneration == 0 {
		return nil
	}
	g := r.RegistryGeneration
	return &g
}

// refusedValue reports whether Postgres refused a row for its values
// (SQLSTATE classes 22, data exception, and 23, integrity constraint
// violation, or an upsert naming one row twice) rather than failed to
// answer.
func refusedValue(err error) bool {
	pgErr, ok := errors.AsType[*pgconn.PgError](err)
	return ok && (strings.HasPrefix(pgErr.Code, "22") || strings.HasPrefix(pgErr.Code, "23") || pgErr.Code == "21000")
}

// upsertIssuance is the conflict clause of corrections and of the outage
// buffer: a refusal written for a request replaces an issuance of the same
// request (same id and time) that committed although its caller never
// learned it; anything else already stored is kept.
const upsertIssuance = ` ON CONFLICT (at, id) DO UPDATE SET outcome = EXCLUDED.outcome, reason = EXCLUDED.reason
	WHERE oauth_issuances.outcome = 'issued' AND EXCLUDED.outcome <> 'issued'`

// insertColumns is the number of values of a row insert writes.
const insertColumns = auditColumnCount + 1

// insert writes rows in one statement. When some of them are issuances
// whose validation read a registry generation, the registry's guard
// (registryGuardSQL) runs first in the same transaction and round trip:
// if the registry is at another generation, nothing is written and the
// error wraps registry.ErrChanged (write then retries the rows one by
// one, so that only the stale ones are refused).
func (s *Audit) insert(ctx context.Context, rows []audit.Issuance, upsert bool) error {
	args := make([]any, 0, insertColumns*len(rows))
	var validated []int64
	for i := range rows {
		r := &rows[i]
		issues, err := encodeIssues(r.Issues)
		if err != nil {
			return fmt.Errorf("audit append: %w", err)
		}
		gen := registryGeneration(r)
		if gen != nil && !slices.Contains(validated, *gen) {
			validated = append(validated, *gen)
		}
		args = append(args, r.ID, r.Time, r.ClientID, string(r.Outcome), r.Reason, r.CompositionDigest,
			nonNilStrings(r.Tools), nonNilStrings(r.IssueCodes), r.JTI, r.Audience,
			r.AuthReqID, r.ApprovedBy, nullTime(r.ApprovedAt), string(issues), r.IssuesDropped, r.DPoPJKT, gen)
	}
	sql := insertSQL(len(rows), upsert)
	var err error
	if len(validated) == 0 {
		_, err = s.db.Pool.Exec(ctx, sql, args...)
	} else {
		// One implicit transaction: an error skips what follows it.
		var b pgx.Batch
		b.Queue(registryGuardSQL, validated)
		b.Queue(sql, args...)
		err = s.db.Pool.SendBatch(ctx, &b).Close()
	}
	switch {
	case err == nil:
		return nil
	case registryChanged(err):
		return fmt.Errorf("audit: %d records: %w: %w", len(rows), registry.ErrChanged, err)
	case isUniqueViolation(err) && len(rows) == 1:
		return fmt.Errorf("audit: record %q: %w: %w", rows[0].ID, audit.ErrDuplicateID, err)
	default:
		return fmt.Errorf("audit append: %w", err)
	}
}

// buffer keeps refusals for the database's return and makes sure a retry
// goroutine is running.
func (s *Audit) buffer(rows ...audit.Issuance) {
	s.outageMu.Lock()
	defer s.outageMu.Unlock()
	for i := range rows {
		size := int64(audit.Size(&rows[i]))
		if len(s.outage) >= OutageBufferSize || s.outageLen+size > s.OutageBytes {
			lost := len(rows) - i
			s.overflown += uint64(lost)
			if s.Log != nil {
				s.Log.Error("audit outage buffer full: refusals dropped", "dropped", lost, "dropped_total", s.overflown)
			}
			break
		}
		s.outage = append(s.outage, rows[i])
		s.outageLen += size
	}
	if !s.retrying && len(s.outage) > 0 {
		s.retrying = true
		go s.retry()
	}
}

// retry writes the outage buffer, oldest first, waiting longer after each
// failure, until it is empty.
func (s *Audit) retry() {
	wait := outageRetryMin
	for {
		time.Sleep(wait)
		s.outageMu.Lock()
		n := min(len(s.outage), maxAuditBatch)
		batch := slices.Clone(s.outage[:n])
		s.outageMu.Unlock()

		ctx, cancel := context.WithTimeout(context.Background(), auditFlushTimeout)
		done, err := s.insertBuffered(ctx, batch)
		cancel()
		s.outageMu.Lock()
		for i := range done {
			s.outageLen -= int64(audit.Size(&s.outage[i]))
		}
		s.outage = slices.Delete(s.outage, 0, done)
		if len(s.outage) == 0 {
			s.retrying = false
			s.outage, s.outageLen = nil, 0
			s.outageMu.Unlock()
			return
		}
		s.outageMu.Unlock()
		if err != nil {
			wait = min(max(2*wait, outageRetryMin), outageRetryMax)
		} else {
			wait = 0
		}
	}
}

// insertBuffered writes buffered rows and returns how many of the first
// are done with: written, or refused for their values (a retry would not
// change that; a duplicate was written before).
func (s *Audit) insertBuffered(ctx context.Context, rows []audit.Issuance) (int, error) {
	err := s.insert(ctx, rows, true)
	if err == nil {
		return len(rows), nil
	}
	if !refusedValue(err) {
		return 0, err
	}
	for i := range rows {
		if err := s.insert(ctx, rows[i:i+1], true); err != nil && !refusedValue(err) {
			return i, err
		} else if err != nil && s.Log != nil {
			s.Log.Error("audit: a buffered record was refused", "id", rows[i].ID, "err", err)
		}
	}
	return len(rows), nil
}

// Flush writes the outage buffer, oldest first, until it is empty or ctx
// ends, for a server that stops: refusals still waiting then are lost,
// and the log says how many (an error), since each was logged as buffered
// until the database answers. It returns how many were lost. A retry
// running meanwhile may write the same rows: the second write changes
// nothing (upsertIssuance).
func (s *Audit) Flush(ctx context.Context) (lost int) {
	for {
		s.outageMu.Lock()
		n := min(len(s.outage), maxAuditBatch)
		batch := slices.Clone(s.outage[:n])
		s.outageMu.Unlock()
		if n == 0 {
			return 0
		}
		done, err := s.insertBuffered(ctx, batch)
		s.outageMu.Lock()
		// The retry may have written (and removed) rows meanwhile: remove
		// only the ones still at the front.
		removed := 0
		for removed < done && removed < len(s.outage) && s.outage[removed].ID == batch[removed].ID && s.outage[removed].Time.Equal(batch[removed].Time) {
			s.outageLen -= int64(audit.Size(&s.outage[removed]))
			removed++
		}
		s.outage = slices.Delete(s.outage, 0, removed)
		lost = len(s.outage)
		s.outageMu.Unlock()
		if err != nil || ctx.Err() != nil {
			if lost > 0 && s.Log != nil {
				s.Log.Error("audit: refusals buffered during the outage were lost at shutdown: the database did not answer", "lost", lost, "err", err)
			}
			return lost
		}
	}
}

// Buffered reports the refusals waiting for the database, and how many
// were dropped because the buffer was full.
func (s *Audit) Buffered() (waiting int, dropped uint64) {
	s.outageMu.Lock()
	defer s.outageMu.Unlock()
	return len(s.outage), s.overflown
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
	var approvedAt *time.Time
	var issues []byte
	err := row.Scan(&r.ID, &r.Time, &r.ClientID, &outcome, &r.Reason, &r.CompositionDigest,
		&r.Tools, &r.IssueCodes, &r.JTI, &r.Audience, &r.AuthReqID, &r.ApprovedBy, &approvedAt, &issues, &r.IssuesDropped, &r.DPoPJKT)
	if err != nil {
		return r, err
	}
	if r.Issues, err = decodeIssues(issues); err != nil {
		return r, err
	}
	r.Outcome = audit.Outcome(outcome)
	r.ApprovedAt = timeOrZero(approvedAt)
	r.Time = r.Time.UTC()
	return r, err
}
