package server_test

import (
	"context"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/typeward/typeward/internal/server"
	"github.com/typeward/typeward/internal/store/postgres/pgtest"
)

// connStaller forwards TCP to Postgres and can stall one connection
// silently, as a NAT or load balancer forgetting it does: nothing more is
// forwarded either way, and nothing tells either end.
type connStaller struct {
	ln       net.Listener
	upstream string
	mu       sync.Mutex
	ports    map[int]bool // upstream local ports of live connections
	stalled  map[int]bool
	conns    []net.Conn
}

func newConnStaller(t *testing.T, upstream string) *connStaller {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &connStaller{ln: ln, upstream: upstream, ports: map[int]bool{}, stalled: map[int]bool{}}
	go p.serve()
	t.Cleanup(func() {
		ln.Close()
		p.mu.Lock()
		defer p.mu.Unlock()
		for _, c := range p.conns {
			c.Close()
		}
	})
	return p
}

func (p *connStaller) serve() {
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return
		}
		up, err := net.Dial("tcp", p.upstream)
		if err != nil {
			c.Close()
			continue
		}
		port := up.LocalAddr().(*net.TCPAddr).Port
		p.mu.Lock()
		p.ports[port] = true
		p.conns = append(p.conns, c, up)
		p.mu.Unlock()
		go p.pipe(up, c, port)
		go p.pipe(c, up, port)
	}
}

func (p *connStaller) pipe(dst, src net.Conn, port int) {
	defer dst.Close()
	buf := make([]byte, 32<<10)
	for {
		n, err := src.Read(buf)
		for p.isStalled(port) {
			time.Sleep(5 * time.Millisecond)
		}
		if n > 0 {
			if _, werr := dst.Write(buf[:n]); werr != nil {
				return
			}
		}
		if err != nil {
			return
		}
	}
}

func (p *connStaller) isStalled(port int) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.stalled[port]
}

// stallListener stalls the proxied connection that is LISTENing on
// schemaName's channel.
func (p *connStaller) stallListener(t *testing.T, schemaName string) {
	t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, pgtest.URL())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		rows, err := conn.Query(ctx, `SELECT client_port FROM pg_stat_activity
			WHERE query LIKE 'LISTEN %' AND query LIKE '%' || $1 || '%'`, schemaName)
		if err != nil {
			t.Fatal(err)
		}
		ports, err := pgx.CollectRows(rows, pgx.RowTo[int32])
		if err != nil {
			t.Fatal(err)
		}
		p.mu.Lock()
		for _, port := range ports {
			if p.ports[int(port)] {
				p.stalled[int(port)] = true
				p.mu.Unlock()
				return
			}
		}
		p.mu.Unlock()
	}
	t.Fatal("no proxied LISTEN connection")
}

// TestNoTokenForAReplacedSchemaWhenTheListenerIsSilentlyCut: replica b's
// LISTEN connection is stalled without a word (its pool is fine), so it
// never hears that replica a replaced a tool's schema with one the
// composition breaks. b must not issue a token validated against the old
// schema: before, it did, for every request until its heartbeat (30 s)
// found the connection dead. Now the audit record's registry generation
// refuses it (503, Retry-After), b reconnects its listener at once and
// then refuses the composition (403).
func TestNoTokenForAReplacedSchemaWhenTheListenerIsSilentlyCut(t *testing.T) {
	t.Parallel()
	a := start(t, database, func(c *server.Config) { c.Registry = "" })
	dsn, err := url.Parse(a.cfg.DatabaseURL)
	if err != nil {
		t.Fatal(err)
	}
	proxy := newConnStaller(t, dsn.Host)
	dsn.Host = proxy.ln.Addr().String()
	b := start(t, database, func(c *server.Config) {
		a.replica(c)
		c.DatabaseURL = dsn.String() // through the proxy
	})
	schemaName := dsn.Query().Get("search_path")
	admin := a.adminToken()
	put := func(body string) {
		t.Helper()
		if r := a.admin(http.MethodPut, "/admin/v1/tools/dst", admin, []byte(body)); r.status != http.StatusCreated {
			t.Fatalf("PUT dst on a: %d %s", r.status, r.body)
		}
	}
	if r := a.admin(http.MethodPut, "/admin/v1/tools/src", admin, []byte(`{"name":"src","inputSchema":{"type":"object"},"outputSchema":{"type":"object","properties":{"x":{"type":"string"}},"required":["x"]}}`)); r.status != http.StatusCreated {
		t.Fatalf("PUT src: %d %s", r.status, r.body)
	}
	put(`{"name":"dst","inputSchema":{"type":"object","properties":{"x":{"type":"string"}},"required":["x"]}}`)
	c := a.createClient(admin, map[string]any{"client_name": "cut", "allowed_tools": []string{"*"}, "allowed_audiences": []string{routerAud}})
	form := url.Values{"grant_type": {"client_credentials"}, "resource": {routerAud},
		"authorization_details": {`[{"type":"mcp_composition","composition":{"edges":[{"from":"src","to":"dst","map":{"x":"x"}}]}}]`}}
	if r := b.postForm("/oauth2/token", c.ID, c.Secret, form); r.status != http.StatusOK {
		t.Fatalf("token on b before the change: %d %s", r.status, r.body)
	}

	proxy.stallListener(t, schemaName)
	put(`{"name":"dst","inputSchema":{"type":"object","properties":{"x":{"type":"integer"}},"required":["x"]}}`)
	statuses := map[int]int{}
	refusedAt := time.Duration(0)
	began := time.Now()
	for time.Since(began) < 3*time.Second {
		r := b.postForm("/oauth2/token", c.ID, c.Secret, form)
		statuses[r.status]++
		switch r.status {
		case http.StatusOK:
			t.Errorf("b issued a token validated against dst's replaced schema, %v after the change", time.Since(began).Round(time.Millisecond))
		case http.StatusServiceUnavailable:
			if r.header.Get("Retry-After") == "" {
				t.Errorf("503 without Retry-After")
			}
		case http.StatusForbidden:
			if refusedAt == 0 {
				refusedAt = time.Since(began)
			}
		default:
			t.Errorf("b answered %d %s", r.status, r.body)
		}
		if t.Failed() {
			break
		}
		time.Sleep(5 * time.Millisecond) // within the client's rate limit
	}
	t.Logf("b's answers in the 3 s after the change: %v; refused (403) from %v", statuses, refusedAt)
	if refusedAt == 0 {
		t.Errorf("b never caught up with the change: %v", statuses)
	}
	// The replica that made a change answers by it at once, without
	// waiting for its own notification: the fix is issued on a at the
	// first request.
	put(`{"name":"dst","inputSchema":{"type":"object","properties":{"x":{"type":"string"}},"required":["x"]}}`)
	if r := a.postForm("/oauth2/token", c.ID, c.Secret, form); r.status != http.StatusOK {
		t.Errorf("token on a right after a fixed dst there: %d %s", r.status, r.body)
	}
	// The withheld token's record says why.
	r := a.admin(http.MethodGet, "/admin/v1/issuances?client_id="+c.ID+"&outcome=error", admin, nil)
	if statuses[http.StatusServiceUnavailable] > 0 && !strings.Contains(string(r.body), `"registry_changed"`) {
		t.Errorf("no registry_changed record among %s", r.body)
	}
}
