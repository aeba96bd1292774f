package oauth

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/typeward/typeward/internal/audit"
)

// outageAudit is an audit store during a database outage: it keeps every
// refusal (buffered) and answers ErrBuffered, as postgres.Audit does, or
// loses them when lose is set.
type outageAudit struct {
	mu   sync.Mutex
	kept int
	lose bool
}

func (a *outageAudit) Append(_ context.Context, rec *audit.Issuance) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.lose {
		return fmt.Errorf("audit: connection refused")
	}
	a.kept++
	return fmt.Errorf("%w: connection refused", audit.ErrBuffered)
}

// syncBuffer is a log destination safe for concurrent writers.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) lines(t *testing.T) []map[string]any {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []map[string]any
	for line := range strings.SplitSeq(strings.TrimSpace(s.b.String()), "\n") {
		if line == "" {
			continue
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("log line %q: %v", line, err)
		}
		out = append(out, m)
	}
	return out
}

// TestBufferedRefusalsAreSummarisedInTheLog: a burst of refusals during a
// database outage, each audit record buffered, logs the first at once and
// then at most one line per interval with the count buffered since the
// line before; the counts add up to every refusal, and every record is
// still handed to the store. A record the store loses is still an error
// line of its own. Before, each buffered refusal wrote a warning (3,730
// lines in 2 s of an outage under load).
func TestBufferedRefusalsAreSummarisedInTheLog(t *testing.T) {
	f := newFixture(t)
	store := &outageAudit{}
	var out syncBuffer
	f.svc.Audit, f.svc.Log = store, slog.New(slog.NewJSONHandler(&out, nil))
	const interval = 200 * time.Millisecond
	f.svc.buffered.interval = interval

	const workers, each = 8, 250
	start := time.Now()
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for i := range each {
				if err := tokenFrom(f, fmt.Sprintf("203.0.113.%d:1", w), basicAuth("nobody", "x")); err == nil {
					t.Errorf("refusal %d of worker %d was issued", i, w)
				}
			}
		})
	}
	wg.Wait()
	burst := time.Since(start)
	if lines := out.lines(t); len(lines) == 0 || lines[0]["buffered"] != 1.0 {
		t.Fatalf("the first buffered refusal was not logged at once: %v", lines)
	}
	// The last interval's line, then the window closes: waited for, not
	// slept, since timers run late on a loaded machine (a 3-interval sleep
	// failed under load).
	for deadline := time.Now().Add(30 * time.Second); f.svc.buffered.isOpen(); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the summary window never closed")
		}
	}

	lines := out.lines(t)
	total := 0
	for _, l := range lines {
		if l["msg"] != bufferedMsg || l["level"] != "WARN" {
			t.Fatalf("unexpected log line %v", l)
		}
		total += int(l["buffered"].(float64))
	}
	if max := 2 + int(burst/interval); len(lines) > max {
		t.Errorf("%d log lines for %d buffered refusals in %v, want at most %d (one per %v)", len(lines), workers*each, burst, max, interval)
	}
	if total != workers*each || store.kept != workers*each {
		t.Errorf("the lines count %d refusals, the store kept %d; want %d", total, store.kept, workers*each)
	}
	if last := lines[len(lines)-1]; last["buffered_total"] != float64(workers*each) {
		t.Errorf("last line %v, want buffered_total %d", last, workers*each)
	}
	t.Logf("%d refusals in %v: %d lines", workers*each, burst, len(lines))

	// Once an interval passed with none, the next is logged at once.
	_ = tokenFrom(f, "203.0.113.9:1", basicAuth("nobody", "x"))
	if after := out.lines(t); len(after) != len(lines)+1 || after[len(after)-1]["buffered"] != 1.0 {
		t.Errorf("after a quiet interval: %d lines (had %d), last %v", len(after), len(lines), after[len(after)-1])
	}

	// Lost records are errors, one each.
	store.mu.Lock()
	store.lose = true
	store.mu.Unlock()
	before := len(out.lines(t))
	for range 3 {
		_ = tokenFrom(f, "203.0.113.9:1", basicAuth("nobody", "x"))
	}
	lost := out.lines(t)[before:]
	if len(lost) != 3 {
		t.Fatalf("%d lines for 3 lost records, want 3: %v", len(lost), lost)
	}
	for _, l := range lost {
		if l["level"] != "ERROR" || l["msg"] != "audit record of a refusal failed" {
			t.Errorf("lost record logged as %v", l)
		}
	}
}

// isOpen reports whether a line was written less than an interval ago.
func (b *bufferedLog) isOpen() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.open
}
