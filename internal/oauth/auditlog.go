package oauth

import (
	"context"
	"log/slog"
	"sync"
	"time"
)

// BufferedLogInterval is the most often the log says that refusals' audit
// records are held in memory during a database outage: the first refusal
// buffered is logged at once, then at most one line per interval gives
// the count buffered since the line before. (One line per refusal was
// thousands a second in an outage under load, and said nothing more.)
// The records themselves are all kept (the store's buffer); a record
// that is lost is still an error of its own, each time.
const BufferedLogInterval = 5 * time.Second

// bufferedLog summarises the "buffered until the database answers"
// warnings. Its zero value is ready; interval 0 is BufferedLogInterval.
type bufferedLog struct {
	interval time.Duration

	mu      sync.Mutex
	open    bool // a line was written less than an interval ago
	pending int  // refusals buffered since the last line
	total   uint64
	last    struct{ clientID, reason string }
	log     *slog.Logger
}

const bufferedMsg = "audit records of refusals buffered until the database answers"

// note counts one refusal whose record was buffered, and logs it when no
// line was written in the last interval.
func (b *bufferedLog) note(ctx context.Context, log *slog.Logger, clientID, reason string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.total++
	b.log = log
	if b.open {
		b.pending++
		b.last.clientID, b.last.reason = clientID, reason
		return
	}
	log.WarnContext(ctx, bufferedMsg, "buffered", 1, "buffered_total", b.total, "client_id", clientID, "reason", reason)
	b.open = true
	time.AfterFunc(b.every(), b.tick)
}

func (b *bufferedLog) every() time.Duration {
	if b.interval > 0 {
		return b.interval
	}
	return BufferedLogInterval
}

// tick ends an interval: the refusals buffered during it are logged as
// one line, and another interval starts; an interval with none closes,
// and the next refusal buffered is logged at once.
func (b *bufferedLog) tick() {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.pending == 0 {
		b.open = false
		return
	}
	b.log.Warn(bufferedMsg, "buffered", b.pending, "buffered_total", b.total, "since", b.every().String(),
		"last_client_id", b.last.clientID, "last_reason", b.last.reason)
	b.pending = 0
	time.AfterFunc(b.every(), b.tick)
}
