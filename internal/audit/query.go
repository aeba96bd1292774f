package audit

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Page sizes of Query.
const (
	DefaultLimit = 50
	MaxLimit     = 500
)

// ErrInvalidQuery is wrapped by every error about a malformed query (bad
// limit, outcome or cursor): the caller's fault, a 400.
var ErrInvalidQuery = errors.New("audit: invalid query")

var errBadCursor = fmt.Errorf("%w: malformed pagination cursor", ErrInvalidQuery)

// ErrDuplicateID is wrapped by Append for a record already stored: one
// with the same id and time. A record is named by both (its Position):
// ids are random, so only a retried record repeats one, with its time.
var ErrDuplicateID = errors.New("record id already exists")

// Query selects issuances, newest first. Zero fields do not filter.
type Query struct {
	ClientID string
	Outcome  Outcome
	// Since keeps records at or after this time.
	Since time.Time
	// Cursor continues after the last record of a previous page (its Next).
	Cursor string
	// Limit is the page size: 0 means DefaultLimit; at most MaxLimit.
	Limit int
}

// Page is one page of a query. Next is "" on the last page.
type Page struct {
	Items []Issuance `json:"items"`
	Next  string     `json:"next,omitempty"`
}

// Store is the issuance log. Implementations: memory.Audit, postgres.Audit;
// both pass storetest.RunAudit.
type Store interface {
	// Append records rec (after Normalize, whose id and time it keeps) and
	// returns once it is durable. A record whose id and time are stored is
	// ErrDuplicateID and stores nothing. When ctx ends first, Append
	// returns ctx's error at once and the record is still written, as
	// Undelivered: the caller must then withhold the token.
	Append(ctx context.Context, rec *Issuance) error
	// Query returns one page, ordered by time then id, newest first. The
	// keyset cursor makes pages stable while records are appended.
	Query(ctx context.Context, q Query) (Page, error)
	// Aggregate counts the records of a window per UTC hour and outcome,
	// and the refusals per reason (see Summary), without reading them
	// out: a chart stays right however many records the window holds.
	// A window that fails Check is ErrInvalidQuery.
	Aggregate(ctx context.Context, w Window) (Summary, error)
	// Retain applies the retention period at time now: records older than
	// now-retention go (retention 0 keeps everything). A store may keep an
	// older record a little longer, never a newer one shorter: Postgres
	// drops whole UTC days, each once all of it is older than the cutoff.
	// Postgres also makes the partitions of the coming days here.
	Retain(ctx context.Context, now time.Time, retention time.Duration) error
}

// Position is a record's place in the order: what a cursor encodes.
type Position struct {
	Time time.Time
	ID   string
}

// Older reports whether p comes after o in newest-first order: p is
// older, or as old with a smaller id.
func (p Position) Older(o Position) bool {
	if !p.Time.Equal(o.Time) {
		return p.Time.Before(o.Time)
	}
	return p.ID < o.ID
}

// EncodeCursor makes the opaque cursor of the page that ends at p.
func EncodeCursor(p Position) string {
	return base64.RawURLEncoding.EncodeToString([]byte(strconv.FormatInt(p.Time.UnixMicro(), 10) + "." + p.ID))
}

// DecodeCursor reads a cursor made by EncodeCursor.
func DecodeCursor(c string) (Position, error) {
	raw, err := base64.RawURLEncoding.DecodeString(c)
	if err != nil {
		return Position{}, errBadCursor
	}
	micros, id, ok := strings.Cut(string(raw), ".")
	if !ok || id == "" {
		return Position{}, errBadCursor
	}
	n, err := strconv.ParseInt(micros, 10, 64)
	if err != nil {
		return Position{}, errBadCursor
	}
	return Position{Time: time.UnixMicro(n).UTC(), ID: id}, nil
}

// Normalize checks q and fills its default limit; both backends call it.
// The returned position is the cursor's, or nil for a first page.
func (q *Query) Normalize() (*Position, error) {
	if q.Limit == 0 {
		q.Limit = DefaultLimit
	}
	q.ClientID = storable(q.ClientID) // as Append stored it
	if q.Limit < 0 || q.Limit > MaxLimit {
		return nil, fmt.Errorf("%w: limit %d is not between 1 and %d", ErrInvalidQuery, q.Limit, MaxLimit)
	}
	if q.Outcome != "" {
		if _, err := ParseOutcome(string(q.Outcome)); err != nil {
			return nil, fmt.Errorf("%w: %w", ErrInvalidQuery, err)
		}
	}
	if q.Cursor == "" {
		return nil, nil
	}
	p, err := DecodeCursor(q.Cursor)
	if err != nil {
		return nil, err
	}
	return &p, nil
}
