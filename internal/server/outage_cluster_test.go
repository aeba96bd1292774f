package server_test

import (
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/typeward/typeward/internal/server"
)

// privateCluster is a PostgreSQL cluster of the test's own, in a temporary
// directory on a free port, so that the test may stop it: the shared
// database on 5432 is never touched.
type privateCluster struct {
	t        *testing.T
	bin, dir string
	port     int
	asUser   []string // run as postgres when the test runs as root
}

func newPrivateCluster(t *testing.T) *privateCluster {
	t.Helper()
	bin := ""
	for _, d := range []string{"/usr/lib/postgresql/17/bin", "/usr/lib/postgresql/16/bin", "/usr/lib/postgresql/15/bin"} {
		if _, err := os.Stat(filepath.Join(d, "initdb")); err == nil {
			bin = d
			break
		}
	}
	if bin == "" {
		t.Fatal("no PostgreSQL server binaries (initdb) under /usr/lib/postgresql: .ci/run installs them")
	}
	// Not t.TempDir: its parent is private to root, and the cluster runs
	// as postgres.
	dir, err := os.MkdirTemp("", "typeward-pg-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	c := &privateCluster{t: t, bin: bin, dir: filepath.Join(dir, "data")}
	if os.Geteuid() == 0 {
		pg, err := user.Lookup("postgres")
		if err != nil {
			t.Fatal("running as root without a postgres user to run the cluster as")
		}
		uid, _ := strconv.Atoi(pg.Uid)
		gid, _ := strconv.Atoi(pg.Gid)
		if err := os.Chown(dir, uid, gid); err != nil {
			t.Fatal(err)
		}
		c.asUser = []string{"runuser", "-u", "postgres", "--"}
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	c.port = ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	c.run("initdb", "-D", c.dir, "--auth=trust", "-U", "postgres", "--no-sync")
	c.start()
	t.Cleanup(func() { _ = c.cmd("pg_ctl", "-D", c.dir, "-m", "immediate", "stop").Run() })
	return c
}

func (c *privateCluster) cmd(name string, args ...string) *exec.Cmd {
	argv := append(append([]string{}, c.asUser...), append([]string{filepath.Join(c.bin, name)}, args...)...)
	return exec.Command(argv[0], argv[1:]...)
}

func (c *privateCluster) run(name string, args ...string) {
	c.t.Helper()
	if out, err := c.cmd(name, args...).CombinedOutput(); err != nil {
		c.t.Fatalf("%s: %v\n%s", name, err, out)
	}
}

func (c *privateCluster) start() {
	c.run("pg_ctl", "-D", c.dir, "-w", "-l", filepath.Join(c.dir, "log"), "-o",
		fmt.Sprintf("-p %d -k %s -c listen_addresses=127.0.0.1 -c fsync=off", c.port, c.dir), "start")
}

// stop shuts the cluster down as an operator or a crash would: every
// connection is cut at once.
func (c *privateCluster) stop() { c.run("pg_ctl", "-D", c.dir, "-m", "immediate", "-w", "stop") }

func (c *privateCluster) url() string {
	return fmt.Sprintf("postgres://postgres@127.0.0.1:%d/postgres?sslmode=disable", c.port)
}

// TestDatabaseOutage stops the database under load: within a second every
// token request is answered 503 temporarily_unavailable with Retry-After,
// never 500; after the restart tokens are issued again.
func TestDatabaseOutage(t *testing.T) {
	t.Parallel()
	cluster := newPrivateCluster(t)
	h := start(t, database, func(c *server.Config) {
		c.DatabaseURL, c.Migrate = cluster.url(), true
		c.RequestTimeout = 2 * time.Second
		c.ConsoleUser, c.ConsolePassword = consoleUser, consolePassword
	})
	admin := h.adminToken()
	person := newBrowser(h)
	if r := person.signIn(t, consolePassword); r.status != http.StatusSeeOther {
		t.Fatalf("console sign-in before the outage: %d %s", r.status, r.body)
	}
	app := h.createClient(admin, map[string]any{"client_name": "load", "allowed_scopes": []string{"typeward:admin"}})
	grant := url.Values{"grant_type": {"client_credentials"}, "scope": {"typeward:admin"}}

	type answer struct {
		at     time.Time
		status int
		retry  string
	}
	var (
		mu      sync.Mutex
		answers []answer
		stop    atomic.Bool
		wg      sync.WaitGroup
	)
	client := &http.Client{Timeout: 10 * time.Second}
	for range 4 {
		wg.Go(func() {
			for !stop.Load() {
				req, _ := http.NewRequest(http.MethodPost, h.base+"/oauth2/token", stringsReader(grant.Encode()))
				req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
				req.SetBasicAuth(app.ID, app.Secret)
				resp, err := client.Do(req)
				if err != nil {
					t.Errorf("request failed: %v", err)
					return
				}
				resp.Body.Close()
				mu.Lock()
				answers = append(answers, answer{time.Now(), resp.StatusCode, resp.Header.Get("Retry-After")})
				mu.Unlock()
				time.Sleep(5 * time.Millisecond)
			}
		})
	}
	// count is how many answers of a status arrived after since.
	count := func(status int, since time.Time) int {
		mu.Lock()
		defer mu.Unlock()
		n := 0
		for _, a := range answers {
			if a.status == status && a.at.After(since) {
				n++
			}
		}
		return n
	}
	waitFor := func(what string, ok func() bool) {
		for deadline := time.Now().Add(30 * time.Second); !ok(); time.Sleep(10 * time.Millisecond) {
			if time.Now().After(deadline) {
				stop.Store(true)
				wg.Wait()
				t.Fatalf("no %s within 30 s", what)
			}
		}
	}
	began := time.Now()
	waitFor("tokens before the outage", func() bool { return count(http.StatusOK, began) >= 5 })
	cluster.stop()
	stopped := time.Now() // the database is down from here at the latest
	waitFor("503s during the outage", func() bool { return count(http.StatusServiceUnavailable, stopped) >= 5 })
	// The withheld tokens' records wait in the outage buffer, and the
	// operator sees them there.
	if n := h.metricValue("typeward_audit_outage_buffered"); n < 1 {
		t.Errorf("typeward_audit_outage_buffered %v during the outage, want at least 1", n)
	}
	// The admin API and the public registry answer 503 with Retry-After
	// too, the admin API from its bearer check on (api/openapi.yaml).
	for _, path := range []string{"/admin/v1/clients", "/registry/v1/tools/search/versions/1"} {
		req, _ := http.NewRequest(http.MethodGet, h.base+path, nil)
		req.Header.Set("Authorization", "Bearer "+admin)
		if r := h.do(req); r.status != http.StatusServiceUnavailable || r.header.Get("Retry-After") == "" {
			t.Errorf("GET %s during the outage: %d, Retry-After %q; want 503 with Retry-After", path, r.status, r.header.Get("Retry-After"))
		}
	}
	// So does the console, for a person already signed in.
	if r := person.send(http.MethodGet, "/console/activity", nil); r.status != http.StatusServiceUnavailable || r.header.Get("Retry-After") == "" {
		t.Errorf("GET /console/activity during the outage: %d, Retry-After %q; want 503 with Retry-After", r.status, r.header.Get("Retry-After"))
	}
	time.Sleep(time.Second)
	restarted := time.Now()
	cluster.start()
	waitFor("tokens after the restart", func() bool { return count(http.StatusOK, restarted) >= 5 })
	stop.Store(true)
	wg.Wait()
	waitFor("the outage buffer written", func() bool { return h.metricValue("typeward_audit_outage_buffered") == 0 })
	if n := h.metricValue("typeward_audit_outage_dropped_total"); n != 0 {
		t.Errorf("typeward_audit_outage_dropped_total %v, want 0", n)
	}

	var first503, firstOKAfter time.Time
	okBefore, unavailable := 0, 0
	for _, a := range answers {
		switch {
		case a.status == http.StatusInternalServerError:
			t.Errorf("a 500 at %v after the stop", a.at.Sub(stopped))
		case a.at.Before(stopped) && a.status == http.StatusOK:
			okBefore++
		case a.status == http.StatusServiceUnavailable && a.at.After(stopped):
			unavailable++
			if a.retry == "" {
				t.Errorf("503 without Retry-After at %v", a.at.Sub(stopped))
			}
			if first503.IsZero() {
				first503 = a.at
			}
		case a.status == http.StatusOK && a.at.After(restarted) && firstOKAfter.IsZero():
			firstOKAfter = a.at
		}
	}
	t.Logf("%d answers: %d tokens before the stop, %d 503s; first 503 %v after the stop, first token %v after the restart began",
		len(answers), okBefore, unavailable, first503.Sub(stopped), firstOKAfter.Sub(restarted))
	if okBefore == 0 || first503.IsZero() || first503.Sub(stopped) > time.Second {
		// The first 503 is timed from the moment pg_ctl reports the
		// database stopped.
		t.Errorf("no token before the outage, or no 503 within a second of it (first 503 at %v)", first503.Sub(stopped))
	}
	if firstOKAfter.IsZero() {
		t.Error("no token after the database came back")
	}
}
