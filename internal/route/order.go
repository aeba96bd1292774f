package route

import (
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/typeward/typeward/internal/cache"
	"github.com/typeward/typeward/verify"
)

// orderState is --enforce-order's memory: per token (jti), how often each
// tool ran and how many items it produced for the per-item edges leaving
// it. It lives in this router's memory only (several routers do not share
// it), bounded in size (the least recently used tokens are forgotten
// first, and a forgotten token's downstream calls are then refused: it
// fails closed) and by each token's lifetime.
type orderState struct {
	now     func() time.Time
	mu      sync.Mutex // guards every run; the work under it is a few map operations
	entries *cache.Cache[string, *runs]
}

// runs is one token's history.
type runs struct {
	expires time.Time
	edges   []verify.Edge
	started map[string]int            // calls begun (and not aborted)
	ran     map[string]int            // calls finished with a result
	items   map[string]map[string]int // tool -> iterated path -> items produced
}

// orderStep is one call admitted, to be finished by done or abort.
type orderStep struct {
	jti, tool string
}

func newOrderState(maxBytes int64, now func() time.Time) *orderState {
	return &orderState{now: now, entries: cache.New(cache.Config[string, *runs]{
		MaxBytes: maxBytes,
		// Fixed when stored: a token's history holds at most its tools and
		// edges, whose count it was created with.
		Size: func(jti string, r *runs) int64 { return int64(len(jti)) + 512 + 256*int64(len(r.edges)) },
	})}
}

// begin admits a call of tool under the token when every required node
// feeding it ran, and it has not run more often than they allow: once per
// run of the feeding tool, or once per item of a per-item edge.
func (o *orderState) begin(c *verify.Claims, tool string) (*orderStep, error) {
	if o == nil {
		return nil, nil
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	r, ok := o.entries.Get(c.ID)
	if !ok || !o.now().Before(r.expires) {
		r = &runs{expires: c.ExpiresAt, started: map[string]int{}, ran: map[string]int{}, items: map[string]map[string]int{}}
		for _, d := range c.AuthorizationDetails {
			if d.Type == verify.DetailType {
				r.edges = append(r.edges, d.Edges...)
			}
		}
		o.entries.Put(c.ID, r)
	}
	allowed, limited := -1, false
	for _, e := range r.edges {
		if e.To != tool || e.Optional {
			continue
		}
		if r.ran[e.From] == 0 {
			return nil, fmt.Errorf("tool %s runs after %s in this composition, and %s has not run under this token", tool, e.From, e.From)
		}
		quota := r.ran[e.From]
		if e.Each != "" {
			quota = r.items[e.From][e.Each]
		}
		if !limited || quota < allowed {
			allowed, limited = quota, true
		}
	}
	if limited && r.started[tool] >= allowed {
		return nil, fmt.Errorf("tool %s has run %d times under this token, as many as the nodes feeding it allow", tool, r.started[tool])
	}
	r.started[tool]++
	return &orderStep{jti: c.ID, tool: tool}, nil
}

// done records a finished call and the items its structuredContent holds
// for each per-item edge leaving the tool.
func (o *orderState) done(step *orderStep, content any) {
	if o == nil || step == nil {
		return
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	r, ok := o.entries.Get(step.jti)
	if !ok {
		return
	}
	r.ran[step.tool]++
	for _, e := range r.edges {
		if e.From != step.tool || e.Each == "" {
			continue
		}
		if r.items[step.tool] == nil {
			r.items[step.tool] = map[string]int{}
		}
		r.items[step.tool][e.Each] += itemsAt(content, e.Each)
	}
}

// abort forgets a call that did not finish with a result.
func (o *orderState) abort(step *orderStep) {
	if o == nil || step == nil {
		return
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	if r, ok := o.entries.Get(step.jti); ok && r.started[step.tool] > 0 {
		r.started[step.tool]--
	}
}

// itemsAt is the length of the array a per-item edge iterates over: path
// is a field path ending in its first [] ("rows[]", "page.items[]", "$[]"
// for a root array).
func itemsAt(content any, path string) int {
	path = strings.TrimSuffix(path, "[]")
	v := content
	if path != "$" && path != "" {
		for _, name := range strings.Split(path, ".") {
			obj, ok := v.(map[string]any)
			if !ok {
				return 0
			}
			v = obj[name]
		}
	}
	switch a := v.(type) {
	case []any:
		return len(a)
	case json.RawMessage:
		var arr []json.RawMessage
		if json.Unmarshal(a, &arr) == nil {
			return len(arr)
		}
	}
	return 0
}
