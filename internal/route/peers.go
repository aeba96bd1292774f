package route

import (
	"net/http"
	"sync"
	"time"

	"github.com/typeward/typeward/internal/cache"
	"github.com/typeward/typeward/verify"
)

// peer is one client of one MCP session: what the router ties the
// messages of a conversation to. A session id is the client's to send,
// so the token's client is part of it: another client naming the session
// reaches none of its state.
type peer struct{ session, client string }

func peerOf(r *http.Request, c *verify.Claims) peer {
	client := c.ClientID
	if client == "" {
		client = c.Subject
	}
	return peer{session: r.Header.Get("Mcp-Session-Id"), client: client}
}

// conversations is what the router remembers of the streams it relayed,
// bounded (internal/cache): which judge read each event id (a stream
// resumed with Last-Event-ID is judged as the stream it resumes), the
// server's requests it passed (only their answers go back), and the
// client's requests in flight (only they can be cancelled).
type conversations struct {
	events   *cache.Cache[eventKey, *judge]
	asks     *cache.Cache[askKey, time.Time]
	askTTL   time.Duration
	now      func() time.Time
	mu       sync.Mutex
	inFlight map[askKey]int
}

type eventKey struct {
	peer peer
	id   string
}

type askKey struct {
	peer peer
	id   string // the JSON-RPC id as spelt
}

// Bounds of what is remembered: an event costs its key and the request
// its judge keeps (shared by its stream's events, counted for each).
const (
	eventStateBytes = 8 << 20
	askStateBytes   = 4 << 20
)

func newConversations(askTTL time.Duration, now func() time.Time) *conversations {
	return &conversations{
		// Each event id is charged its judge's request too (an overcount
		// when a stream has many ids, which keeps the bound safe).
		events: cache.New(cache.Config[eventKey, *judge]{MaxBytes: eventStateBytes,
			Size: func(k eventKey, j *judge) int64 {
				return int64(len(k.peer.session)+len(k.peer.client)+len(k.id)) + 256 + j.retained
			}}),
		asks: cache.New(cache.Config[askKey, time.Time]{MaxBytes: askStateBytes,
			Size: func(k askKey, _ time.Time) int64 { return int64(len(k.peer.session)+len(k.peer.client)+len(k.id)) + 64 }}),
		askTTL: askTTL, now: now, inFlight: map[askKey]int{},
	}
}

// relayed records that event id of p's stream was judged by j.
func (cv *conversations) relayed(p peer, id string, j *judge) {
	cv.events.Put(eventKey{p, id}, j)
}

// resumes is the judge of the stream event id belongs to.
func (cv *conversations) resumes(p peer, id string) (*judge, bool) {
	return cv.events.Get(eventKey{p, id})
}

// asked records a request of the server's the router passed to p.
func (cv *conversations) asked(p peer, id string) {
	cv.asks.Put(askKey{p, id}, cv.now().Add(cv.askTTL))
}

// answered takes the record of the server's request id to p: true once,
// for a request passed no longer ago than the upstream timeout.
func (cv *conversations) answered(p peer, id string) bool {
	until, ok := cv.asks.Get(askKey{p, id})
	if !ok {
		return false
	}
	cv.asks.Delete(askKey{p, id})
	return cv.now().Before(until)
}

// begin marks p's request id in flight until the returned func runs.
func (cv *conversations) begin(p peer, id string) func() {
	k := askKey{p, id}
	cv.mu.Lock()
	cv.inFlight[k]++
	cv.mu.Unlock()
	return func() {
		cv.mu.Lock()
		if cv.inFlight[k]--; cv.inFlight[k] <= 0 {
			delete(cv.inFlight, k)
		}
		cv.mu.Unlock()
	}
}

// pending reports p's request id in flight.
func (cv *conversations) pending(p peer, id string) bool {
	cv.mu.Lock()
	defer cv.mu.Unlock()
	return cv.inFlight[askKey{p, id}] > 0
}
