package pgtest

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/typeward/typeward/internal/store/postgres"
)

// Cluster is a private PostgreSQL server of one test, in a temporary
// directory on a free port: for tests that stop and start a database.
// Never the shared cluster on 5432, which other tests use.
type Cluster struct {
	t    testing.TB
	bin  string
	dir  string // owns data/ and the socket
	Port int
	// asPostgres runs a server binary as the postgres user: initdb and
	// postgres refuse to run as root.
	asPostgres bool
}

// NewCluster initialises and starts a private cluster, stopped and
// removed when the test ends. Without PostgreSQL's server binaries the
// test skips loudly, or fails when TYPEWARD_REQUIRE_DB=1 (as in CI).
func NewCluster(t testing.TB) *Cluster {
	t.Helper()
	bin, err := serverBinaries()
	if err != nil {
		if os.Getenv("TYPEWARD_REQUIRE_DB") == "1" {
			t.Fatalf("TYPEWARD_REQUIRE_DB=1 but %v", err)
		}
		t.Skipf("SKIPPING PRIVATE-CLUSTER TEST: %v; set TYPEWARD_REQUIRE_DB=1 to make this fail", err)
	}
	dir, err := os.MkdirTemp("", "typeward-pg-")
	if err != nil {
		t.Fatal(err)
	}
	c := &Cluster{t: t, bin: bin, dir: dir, asPostgres: os.Geteuid() == 0}
	t.Cleanup(func() {
		c.pgctl("stop", "-m", "immediate")
		_ = os.RemoveAll(dir)
	})
	if c.asPostgres {
		u, err := user.Lookup("postgres")
		if err != nil {
			t.Fatalf("running as root needs a postgres user: %v", err)
		}
		uid, _ := strconv.Atoi(u.Uid)
		gid, _ := strconv.Atoi(u.Gid)
		if err := os.Chown(dir, uid, gid); err != nil {
			t.Fatal(err)
		}
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	c.Port = ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	if out, err := c.command("initdb", "-D", c.data(), "-A", "trust", "-U", "postgres", "-E", "UTF8", "--no-sync").CombinedOutput(); err != nil {
		t.Fatalf("initdb: %v\n%s", err, out)
	}
	c.Start()
	return c
}

// serverBinaries finds the directory of initdb and pg_ctl: on PATH, or
// the newest /usr/lib/postgresql/*/bin (Debian keeps them off PATH).
func serverBinaries() (string, error) {
	if p, err := exec.LookPath("initdb"); err == nil {
		return filepath.Dir(p), nil
	}
	dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	slices.SortFunc(dirs, func(a, b string) int {
		va, _ := strconv.Atoi(filepath.Base(filepath.Dir(a)))
		vb, _ := strconv.Atoi(filepath.Base(filepath.Dir(b)))
		return va - vb
	})
	for i := len(dirs) - 1; i >= 0; i-- {
		if _, err := os.Stat(filepath.Join(dirs[i], "initdb")); err == nil {
			return dirs[i], nil
		}
	}
	return "", fmt.Errorf("PostgreSQL server binaries (initdb, pg_ctl) not found")
}

func (c *Cluster) data() string { return filepath.Join(c.dir, "data") }

func (c *Cluster) command(name string, args ...string) *exec.Cmd {
	path := filepath.Join(c.bin, name)
	if c.asPostgres {
		return exec.Command("runuser", append([]string{"-u", "postgres", "--", path}, args...)...)
	}
	return exec.Command(path, args...)
}

func (c *Cluster) pgctl(args ...string) ([]byte, error) {
	return c.command("pg_ctl", append([]string{"-D", c.data(), "-w", "-t", "60"}, args...)...).CombinedOutput()
}

// URL is the cluster's postgres database.
func (c *Cluster) URL() string {
	return fmt.Sprintf("postgres://postgres@127.0.0.1:%d/postgres?sslmode=disable", c.Port)
}

// Start starts the stopped cluster and waits until it accepts connections.
func (c *Cluster) Start() {
	c.t.Helper()
	opts := fmt.Sprintf("-p %d -k %s -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=40", c.Port, c.dir)
	if out, err := c.pgctl("start", "-l", filepath.Join(c.dir, "log"), "-o", opts); err != nil {
		log, _ := os.ReadFile(filepath.Join(c.dir, "log"))
		c.t.Fatalf("pg_ctl start: %v\n%s\n%s", err, out, log)
	}
}

// Stop shuts the cluster down at once (fast mode: sessions are ended, as
// in a failover or a crash of the database host).
func (c *Cluster) Stop() {
	c.t.Helper()
	if out, err := c.pgctl("stop", "-m", "fast"); err != nil {
		c.t.Fatalf("pg_ctl stop: %v\n%s", err, out)
	}
}

// Open opens a migrated DB on the cluster, closed when the test ends.
func (c *Cluster) Open() *postgres.DB {
	c.t.Helper()
	cfg, err := pgxpool.ParseConfig(c.URL())
	if err != nil {
		c.t.Fatal(err)
	}
	cfg.MaxConns = 8
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	db, err := postgres.OpenConfig(ctx, cfg)
	if err != nil {
		c.t.Fatalf("open private cluster: %v", err)
	}
	c.t.Cleanup(db.Close)
	if _, err := db.Migrate(ctx); err != nil {
		c.t.Fatalf("migrate private cluster: %v", err)
	}
	return db
}
