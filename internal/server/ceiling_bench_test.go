package server_test

import (
	"context"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/typeward/typeward/internal/audit"
	"github.com/typeward/typeward/internal/store/postgres"
	"github.com/typeward/typeward/internal/token"
	"github.com/typeward/typeward/verify"
)

// durableCeiling is the least a durable issuer does per token, the limit
// BenchmarkDurableCeiling measures typeward on Postgres against: parse the
// form, sign the claims with a fresh jti (ES256, the same keyring), and
// commit one minimal audit row (jti, time, client) before answering. The
// rows are group-committed as typeward's audit log commits its records
// (postgres.Audit): the appends waiting at one moment are one multi-row
// INSERT, prepared per batch size, on a pool opened as typeward opens its
// own, in the same database with synchronous_commit on; the row's table
// has no index, no partitions and no trigger.
func durableCeiling(b *testing.B, h *harness, minter *token.Minter, claims verify.Claims) http.Handler {
	db, err := postgres.Open(context.Background(), h.cfg.DatabaseURL)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(db.Close)
	if _, err := db.Pool.Exec(context.Background(),
		`CREATE TABLE durable_ceiling (jti text NOT NULL, at timestamptz NOT NULL, client_id text NOT NULL)`); err != nil {
		b.Fatal(err)
	}
	var sc string
	if err := db.Pool.QueryRow(context.Background(), `SHOW synchronous_commit`).Scan(&sc); err != nil || sc != "on" {
		b.Fatalf("synchronous_commit is %q (%v): the ceiling would not wait for the disk", sc, err)
	}
	log := &minimalLog{db: db}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if err := r.ParseForm(); err != nil || r.PostForm.Get("authorization_details") == "" {
			http.Error(w, "bad form", http.StatusBadRequest)
			return
		}
		c := claims
		c.ID = audit.NewID()
		tok, err := minter.Sign(&c)
		if err == nil {
			err = log.append(r.Context(), minimalRow{jti: c.ID, at: time.Now(), client: c.ClientID})
		}
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		writeCeilingAnswer(w, tok, c)
	})
}

// minimalRow is the durable ceiling's audit row.
type minimalRow struct {
	jti, client string
	at          time.Time
	done        chan error
}

// minimalLog group-commits minimalRows: what postgres.Audit does for an
// issuance, with nothing else (no outage buffer, no corrections).
type minimalLog struct {
	db       *postgres.DB
	mu       sync.Mutex
	pending  []minimalRow
	flushing bool
}

func (l *minimalLog) append(ctx context.Context, r minimalRow) error {
	r.done = make(chan error, 1)
	l.mu.Lock()
	l.pending = append(l.pending, r)
	if !l.flushing {
		l.flushing = true
		go l.flush()
	}
	l.mu.Unlock()
	select {
	case err := <-r.done:
		return err
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (l *minimalLog) flush() {
	for {
		l.mu.Lock()
		n := min(len(l.pending), 500)
		if n == 0 {
			l.flushing = false
			l.pending = nil
			l.mu.Unlock()
			return
		}
		batch := l.pending[:n:n]
		l.pending = l.pending[n:]
		l.mu.Unlock()

		var sql strings.Builder
		sql.WriteString(`INSERT INTO durable_ceiling (jti, at, client_id) VALUES `)
		args := make([]any, 0, 3*n)
		for i, r := range batch {
			if i > 0 {
				sql.WriteString(", ")
			}
			sql.WriteString("($" + strconv.Itoa(3*i+1) + ", $" + strconv.Itoa(3*i+2) + ", $" + strconv.Itoa(3*i+3) + ")")
			args = append(args, r.jti, r.at, r.client)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		_, err := l.db.Pool.Exec(ctx, sql.String(), args...)
		cancel()
		for _, r := range batch {
			r.done <- err
		}
	}
}
