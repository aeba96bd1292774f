package server_test

import (
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/typeward/typeward/internal/server"
	"github.com/typeward/typeward/internal/store/postgres/pgtest"
)

// stallProxy forwards TCP to a database and, when stalled, stops
// forwarding in both directions without closing anything: a database
// that hangs, as a network partition or a stuck server does.
type stallProxy struct {
	ln     net.Listener
	target string
	mu     sync.Mutex
	cond   *sync.Cond
	stall  bool
}

func newStallProxy(t *testing.T, target string) *stallProxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &stallProxy{ln: ln, target: target}
	p.cond = sync.NewCond(&p.mu)
	go p.accept()
	t.Cleanup(func() { p.set(false); ln.Close() })
	return p
}

func (p *stallProxy) set(stall bool) {
	p.mu.Lock()
	p.stall = stall
	p.mu.Unlock()
	p.cond.Broadcast()
}

func (p *stallProxy) wait() {
	p.mu.Lock()
	for p.stall {
		p.cond.Wait()
	}
	p.mu.Unlock()
}

func (p *stallProxy) accept() {
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return
		}
		go func() {
			p.wait()
			up, err := net.Dial("tcp", p.target)
			if err != nil {
				c.Close()
				return
			}
			go p.pipe(up, c)
			p.pipe(c, up)
		}()
	}
}

func (p *stallProxy) pipe(dst, src net.Conn) {
	defer dst.Close()
	defer src.Close()
	buf := make([]byte, 32<<10)
	for {
		n, err := src.Read(buf)
		if n > 0 {
			p.wait()
			if _, werr := dst.Write(buf[:n]); werr != nil {
				return
			}
		}
		if err != nil {
			if err != io.EOF {
				return
			}
			return
		}
	}
}

// TestStalledDatabaseAnswers503WithinTheDeadline: with the database
// stalled (nothing forwarded, nothing closed), a token request is answered
// 503 temporarily_unavailable with Retry-After once its deadline passes,
// instead of hanging for the whole stall; once the database answers again
// tokens are issued.
func TestStalledDatabaseAnswers503WithinTheDeadline(t *testing.T) {
	t.Parallel()
	u, err := url.Parse(pgtest.URL())
	if err != nil {
		t.Fatal(err)
	}
	proxy := newStallProxy(t, u.Host)
	const deadline = time.Second
	h := start(t, database, func(c *server.Config) {
		c.DatabaseURL = strings.Replace(c.DatabaseURL, u.Host, proxy.ln.Addr().String(), 1)
		c.RequestTimeout = deadline
	})
	admin := h.adminToken()
	app := h.createClient(admin, map[string]any{"client_name": "stall", "allowed_scopes": []string{"typeward:admin"}})
	grant := url.Values{"grant_type": {"client_credentials"}, "scope": {"typeward:admin"}}
	if r := h.postForm("/oauth2/token", app.ID, app.Secret, grant); r.status != http.StatusOK {
		t.Fatalf("before the stall: %d %s", r.status, r.body)
	}

	proxy.set(true)
	started := time.Now()
	r := h.postForm("/oauth2/token", app.ID, app.Secret, grant)
	took := time.Since(started)
	t.Logf("stalled database: answered %d in %v (deadline %v)", r.status, took, deadline)
	var got errorAnswer
	r.json(t, &got)
	if r.status != http.StatusServiceUnavailable || got.Error != "temporarily_unavailable" || r.header.Get("Retry-After") != "1" {
		t.Errorf("stalled database: %d %v %s", r.status, r.header, r.body)
	}
	if took > deadline+2*time.Second {
		t.Errorf("the request took %v with a %v deadline", took, deadline)
	}

	proxy.set(false)
	recovered := time.Now()
	for {
		r := h.postForm("/oauth2/token", app.ID, app.Secret, grant)
		if r.status == http.StatusOK {
			t.Logf("tokens again %v after the stall ended", time.Since(recovered))
			break
		}
		if time.Since(recovered) > 10*time.Second {
			t.Fatalf("no token 10 s after the stall ended: %d %s", r.status, r.body)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func stringsReader(s string) io.Reader { return strings.NewReader(s) }
