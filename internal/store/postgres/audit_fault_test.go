package postgres_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/typeward/typeward/internal/audit"
	"github.com/typeward/typeward/internal/store/postgres"
	"github.com/typeward/typeward/internal/store/postgres/pgtest"
	"github.com/typeward/typeward/internal/verdict"
)

// waitFor polls until cond holds, for at most 30 s.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if cond() {
			return
		}
	}
	t.Fatalf("timed out waiting for %s", what)
}

func recordsOf(t *testing.T, s *postgres.Audit, q audit.Query) map[string]audit.Issuance {
	t.Helper()
	out := map[string]audit.Issuance{}
	q.Limit = audit.MaxLimit
	for {
		page, err := s.Query(context.Background(), q)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range page.Items {
			out[r.ID] = r
		}
		if page.Next == "" {
			return out
		}
		q.Cursor = page.Next
	}
}

// A stalled database (here: the log locked by another session) holds
// the INSERT. An append whose deadline passes during its INSERT returns at
// its deadline, and its issuance, committed once the stall ends, is
// corrected to not delivered; one whose deadline passes while it waits
// for the next INSERT is written as not delivered. An append without a
// deadline waits for the commit and is issued.
func TestAuditDeadlineNeverClaimsUndeliveredToken(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db, schemaName := pgtest.New(t)
	s := postgres.NewAudit(db)
	locker := pgtest.Open(t, schemaName)
	tx, err := locker.Pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec(ctx, "LOCK TABLE oauth_issuances IN ACCESS EXCLUSIVE MODE"); err != nil {
		t.Fatal(err)
	}

	issuance := func(id string) *audit.Issuance {
		return &audit.Issuance{ID: id, Time: time.Now(), ClientID: "c", Outcome: audit.Issued, JTI: "jti-" + id}
	}
	errs := map[string]chan error{}
	appendWithin := func(id string, d time.Duration) {
		result := make(chan error, 1)
		errs[id] = result
		go func() {
			actx, cancel := context.WithCancel(ctx)
			if d > 0 {
				actx, cancel = context.WithTimeout(ctx, d)
			}
			defer cancel()
			started := time.Now()
			err := s.Append(actx, issuance(id))
			if d > 0 && time.Since(started) > d+2*time.Second {
				err = fmt.Errorf("returned %s after its %s deadline (%v)", time.Since(started), d, err)
			}
			result <- err
		}()
	}
	appendWithin("in-insert", 400*time.Millisecond) // starts the INSERT that blocks
	time.Sleep(100 * time.Millisecond)
	appendWithin("queued", 200*time.Millisecond) // waits for the next INSERT
	appendWithin("patient", 0)
	for _, id := range []string{"in-insert", "queued"} {
		if err := <-errs[id]; !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("%s: %v, want context.DeadlineExceeded at its deadline", id, err)
		}
	}
	if err := tx.Rollback(ctx); err != nil { // the stall ends
		t.Fatal(err)
	}
	if err := <-errs["patient"]; err != nil {
		t.Fatalf("append without deadline: %v", err)
	}
	waitFor(t, "both late issuances to be marked not delivered", func() bool {
		got := recordsOf(t, s, audit.Query{Outcome: audit.Error})
		return len(got) == 2
	})
	got := recordsOf(t, s, audit.Query{})
	for _, id := range []string{"in-insert", "queued"} {
		if r := got[id]; r.Outcome != audit.Error || r.Reason != audit.ReasonNotDelivered || r.JTI != "jti-"+id {
			t.Errorf("late issuance %s stored as %+v", id, r)
		}
	}
	if r := got["patient"]; r.Outcome != audit.Issued {
		t.Errorf("the issuance that waited is stored as %+v", r)
	}
}

// During an outage of the database (a private cluster, stopped and
// started by this test) refusals are held in memory and arrive once it is
// back; an issuance fails at once (its token is withheld), and arrives as
// not delivered.
func TestAuditOutageLeavesTrace(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	cluster := pgtest.NewCluster(t)
	db := cluster.Open()
	s := postgres.NewAudit(db)
	s.OutageBytes = 128 << 10 // the small refusals and a few large ones
	if err := s.Append(ctx, &audit.Issuance{ID: "before", Time: time.Now(), ClientID: "c", Outcome: audit.Issued}); err != nil {
		t.Fatal(err)
	}

	cluster.Stop()
	stopped := time.Now()
	const refusals = 40
	var wg sync.WaitGroup
	errs := make([]error, refusals)
	for i := range refusals {
		wg.Go(func() {
			errs[i] = s.Append(ctx, &audit.Issuance{ID: fmt.Sprintf("down-%02d", i), Time: time.Now(),
				ClientID: "attacker", Outcome: audit.Denied, Reason: "bad_secret"})
		})
	}
	wg.Wait()
	for i, err := range errs {
		if !errors.Is(err, audit.ErrBuffered) {
			t.Fatalf("refusal %d during the outage: %v, want ErrBuffered", i, err)
		}
	}
	issued := &audit.Issuance{ID: "down-issued", Time: time.Now(), ClientID: "c", Outcome: audit.Issued, JTI: "j"}
	if err := s.Append(ctx, issued); err == nil || errors.Is(err, audit.ErrBuffered) {
		t.Fatalf("an issuance during the outage: %v, want a plain failure", err)
	}
	if n, dropped := s.Buffered(); n != refusals+1 || dropped != 0 {
		t.Fatalf("buffered %d (dropped %d), want %d: the refusals and the withheld issuance", n, dropped, refusals+1)
	}
	t.Logf("%d refusals buffered within %s of the outage", refusals+1, time.Since(stopped).Round(time.Millisecond))
	// Refusals with many issues are large: the buffer is bounded by their
	// size as well as by their count.
	witness := json.RawMessage(`"` + strings.Repeat("w", audit.MaxWitnessBytes-2) + `"`)
	const large = 8
	for i := range large {
		rec := &audit.Issuance{ID: fmt.Sprintf("large-%d", i), Time: time.Now(), ClientID: "c", Outcome: audit.Denied}
		for range audit.MaxIssues {
			rec.Issues = append(rec.Issues, audit.Issue{Issue: verdict.Issue{Code: "type_mismatch", Message: strings.Repeat("m", audit.MaxIssueMessage), Witness: witness}})
		}
		_ = s.Append(ctx, rec) // buffered, or dropped when the buffer is full
	}
	n, dropped := s.Buffered()
	if dropped == 0 || n+int(dropped) != refusals+1+large {
		t.Fatalf("buffered %d, dropped %d of %d large refusals; want some dropped by the 128 KiB bound", n, dropped, large)
	}
	keptLarge := large - int(dropped)

	cluster.Start()
	restarted := time.Now()
	waitFor(t, "the buffer to be written", func() bool { n, _ := s.Buffered(); return n == 0 })
	t.Logf("buffer written %s after the database came back", time.Since(restarted).Round(time.Millisecond))
	got := recordsOf(t, s, audit.Query{})
	if len(got) != refusals+2+keptLarge {
		t.Errorf("after recovery the log holds %d records, want %d", len(got), refusals+2+keptLarge)
	}
	for i := range keptLarge {
		if r := got[fmt.Sprintf("large-%d", i)]; len(r.Issues) != audit.MaxIssues {
			t.Errorf("large refusal %d after recovery holds %d issues", i, len(r.Issues))
		}
	}
	for i := range refusals {
		if r := got[fmt.Sprintf("down-%02d", i)]; r.Outcome != audit.Denied || r.ClientID != "attacker" || r.Reason != "bad_secret" {
			t.Errorf("refusal %d after recovery: %+v", i, r)
		}
	}
	if r := got["down-issued"]; r.Outcome != audit.Error || r.Reason != audit.ReasonNotDelivered || r.JTI != "j" {
		t.Errorf("the withheld issuance after recovery: %+v", r)
	}
	if err := s.Append(ctx, &audit.Issuance{Time: time.Now(), ClientID: "c", Outcome: audit.Issued}); err != nil {
		t.Errorf("append after recovery: %v", err)
	}
}

// TestAuditFlushOnClose: refusals buffered during an outage are not lost
// silently when the server stops: Flush writes what the database takes
// before its deadline and reports, and logs as an error, how many records
// it could not write, so that the log never claims them buffered and then
// says nothing more.
func TestAuditFlushOnClose(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name     string
		recover  bool // the database is back before Flush
		wantLost int
	}{
		{"database still down", false, 5},
		{"database back", true, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			cluster := pgtest.NewCluster(t)
			db := cluster.Open()
			s := postgres.NewAudit(db)
			var logs strings.Builder
			var mu sync.Mutex
			s.Log = slog.New(slog.NewTextHandler(writerFunc(func(p []byte) (int, error) {
				mu.Lock()
				defer mu.Unlock()
				return logs.Write(p)
			}), nil))
			cluster.Stop()
			for i := range 5 {
				err := s.Append(ctx, &audit.Issuance{ID: fmt.Sprintf("down-%d", i), Time: time.Now(), ClientID: "c", Outcome: audit.Denied, Reason: "bad_secret"})
				if !errors.Is(err, audit.ErrBuffered) {
					t.Fatalf("refusal %d during the outage: %v, want ErrBuffered", i, err)
				}
			}
			if tc.recover {
				cluster.Start()
			}
			flushCtx, cancel := context.WithTimeout(ctx, 3*time.Second)
			lost := s.Flush(flushCtx)
			cancel()
			if lost != tc.wantLost {
				t.Errorf("Flush lost %d records, want %d", lost, tc.wantLost)
			}
			mu.Lock()
			logged := logs.String()
			mu.Unlock()
			if said := strings.Contains(logged, "level=ERROR") && strings.Contains(logged, "lost=5"); said != (tc.wantLost > 0) {
				t.Errorf("the log says the records were lost: %v, want %v:\n%s", said, tc.wantLost > 0, logged)
			}
			if tc.recover {
				if got := recordsOf(t, s, audit.Query{}); len(got) != 5 {
					t.Errorf("after Flush the log holds %d records, want 5", len(got))
				}
			}
		})
	}
}

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(p []byte) (int, error) { return f(p) }
