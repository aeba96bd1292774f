package server_test

import (
	"context"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"
)

// Once its caches are warm, a token request asks nothing of the database
// but its share of one group-committed audit INSERT: no client lookup,
// registry read, key or revocation query runs under a request's context,
// and the audit INSERTs number at most the requests.
func TestWarmTokenPathOnlyWritesTheAudit(t *testing.T) {
	t.Parallel()
	h, _, authorization, body := tokenLoadSetup(t, database)
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 16}, Timeout: 10 * time.Second}
	t.Cleanup(client.CloseIdleConnections)
	load(t, client, h.base+"/oauth2/token", authorization, body, 50, 4) // warm

	var mu sync.Mutex
	var inRequest []string
	inserts := 0
	h.srv.DB().Observe(func(ctx context.Context, sql string) {
		mu.Lock()
		defer mu.Unlock()
		switch {
		case ctx.Value(http.ServerContextKey) != nil:
			inRequest = append(inRequest, sql)
		case strings.HasPrefix(sql, "INSERT INTO oauth_issuances "):
			inserts++
		}
	})
	const requests = 100
	load(t, client, h.base+"/oauth2/token", authorization, body, requests, 8)
	h.srv.DB().Observe(nil)

	mu.Lock()
	defer mu.Unlock()
	for _, sql := range inRequest {
		t.Errorf("a warm token request sent %.120q", sql)
	}
	if inserts < 1 || inserts > requests {
		t.Errorf("%d audit INSERTs for %d token requests", inserts, requests)
	}
	t.Logf("%d token requests, %d audit INSERTs (%.1f records each)", requests, inserts, float64(requests)/float64(inserts))
}
