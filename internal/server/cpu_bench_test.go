package server_test

import (
	"bytes"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/typeward/typeward/internal/store/postgres/pgtest"
)

// cpuUse is where the machine's CPU time went during a load run: this
// process (the server and its load generator, which the ceiling shares),
// the PostgreSQL backends of this process's connections, every other
// process (on a shared machine: the noise, other people's queries
// included), and nobody (idle). Divided by
// the tokens of the run it says what a token costs, and the machine's
// cores divided by that cost bound the rate any scheduling could reach:
// the benchmark reports that bound next to the rate it measured.
type cpuUse struct {
	self, postgres, idle time.Duration
	busy                 time.Duration // all cores, all processes
}

// tick is the unit of /proc's times (USER_HZ, 100 on Linux).
const tick = 10 * time.Millisecond

// readCPU reads the counters; ok is false where /proc is not Linux's,
// and then no CPU figures are reported.
func readCPU() (u cpuUse, ok bool) {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return u, false
	}
	u.self = time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	stat, err := os.ReadFile("/proc/stat")
	if err != nil {
		return u, false
	}
	// "cpu  user nice system idle iowait irq softirq steal ...", all cores:
	// idle and iowait are nobody's; the rest is busy.
	first, _, _ := bytes.Cut(stat, []byte("\n"))
	f := strings.Fields(string(first))
	if len(f) < 9 || f[0] != "cpu" {
		return u, false
	}
	for i := 1; i <= 8; i++ {
		n, err := strconv.ParseInt(f[i], 10, 64)
		if err != nil {
			return u, false
		}
		if i == 4 || i == 5 {
			u.idle += time.Duration(n) * tick
		} else {
			u.busy += time.Duration(n) * tick
		}
	}
	sockets := tcpSockets()
	ours := peerPorts(sockets, "/proc/self")
	comms, _ := filepath.Glob("/proc/[0-9]*/comm")
	for _, c := range comms {
		name, err := os.ReadFile(c)
		if err != nil || !bytes.HasPrefix(name, []byte("postgres")) || !servesUs(sockets, filepath.Dir(c), ours) {
			continue
		}
		u.postgres += processTime(filepath.Dir(c))
	}
	return u, true
}

// tcpSocket is one line of /proc/net/tcp{,6}: its ports.
type tcpSocket struct{ local, remote int }

// tcpSockets maps the inodes of the machine's TCP sockets to their ports.
func tcpSockets() map[uint64]tcpSocket {
	m := map[uint64]tcpSocket{}
	for _, f := range []string{"/proc/net/tcp", "/proc/net/tcp6"} {
		b, _ := os.ReadFile(f)
		for _, line := range strings.Split(string(b), "\n")[1:] {
			fs := strings.Fields(line)
			if len(fs) < 10 {
				continue
			}
			inode, err := strconv.ParseUint(fs[9], 10, 64)
			if err != nil || inode == 0 {
				continue
			}
			m[inode] = tcpSocket{local: hexPort(fs[1]), remote: hexPort(fs[2])}
		}
	}
	return m
}

func hexPort(addr string) int {
	_, port, _ := strings.Cut(addr, ":")
	n, _ := strconv.ParseUint(port, 16, 16)
	return int(n)
}

// socketInodes are the inodes of the sockets process dir holds open.
func socketInodes(dir string) []uint64 {
	fds, _ := os.ReadDir(filepath.Join(dir, "fd"))
	var inodes []uint64
	for _, fd := range fds {
		target, err := os.Readlink(filepath.Join(dir, "fd", fd.Name()))
		if rest, ok := strings.CutPrefix(target, "socket:["); err == nil && ok {
			if n, err := strconv.ParseUint(strings.TrimSuffix(rest, "]"), 10, 64); err == nil {
				inodes = append(inodes, n)
			}
		}
	}
	return inodes
}

// peerPorts are the local ports of process dir's connections to
// PostgreSQL's port.
func peerPorts(sockets map[uint64]tcpSocket, dir string) map[int]bool {
	ports := map[int]bool{}
	for _, inode := range socketInodes(dir) {
		if s, ok := sockets[inode]; ok && s.remote == postgresPort() {
			ports[s.local] = true
		}
	}
	return ports
}

// servesUs reports whether PostgreSQL process dir is the backend of one of
// this process's connections (ours, their local ports): on a machine
// whose database serves other people's tests too, only those count.
func servesUs(sockets map[uint64]tcpSocket, dir string, ours map[int]bool) bool {
	for _, inode := range socketInodes(dir) {
		if s, ok := sockets[inode]; ok && s.local == postgresPort() && ours[s.remote] {
			return true
		}
	}
	return false
}

// postgresPort is the port of the tests' database.
var postgresPort = sync.OnceValue(func() int {
	u, err := url.Parse(pgtest.URL())
	if err != nil || u.Port() == "" {
		return 5432
	}
	p, _ := strconv.Atoi(u.Port())
	return p
})

// processTime is utime + stime of /proc/<pid>/stat (fields 14 and 15;
// the command before them may hold spaces, so fields count from its ')').
func processTime(dir string) time.Duration {
	b, err := os.ReadFile(filepath.Join(dir, "stat"))
	if err != nil {
		return 0
	}
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 13 {
		return 0
	}
	user, _ := strconv.ParseInt(f[11], 10, 64)
	system, _ := strconv.ParseInt(f[12], 10, 64)
	return time.Duration(user+system) * tick
}

func (u *cpuUse) add(d cpuUse) {
	u.self += d.self
	u.postgres += d.postgres
	u.idle += d.idle
	u.busy += d.busy
}

func (u cpuUse) minus(o cpuUse) cpuUse {
	return cpuUse{self: u.self - o.self, postgres: u.postgres - o.postgres, idle: u.idle - o.idle, busy: u.busy - o.busy}
}

// others is what the machine's other processes used: the share of the
// run's noise that fell on the cores (at /proc's 10 ms resolution).
func (u cpuUse) others() time.Duration { return max(u.busy-u.self-u.postgres, 0) }

// perToken is d per token in microseconds.
func perToken(d time.Duration, tokens int) float64 {
	return float64(d.Microseconds()) / float64(max(tokens, 1))
}

// boundPerSecond is the token rate the machine would allow if nothing but
// the measured work ran and no core idled: all its cores for the work of
// both processes, and at most GOMAXPROCS of them for this one's.
func (u cpuUse) boundPerSecond(tokens int) float64 {
	if u.self <= 0 {
		return 0
	}
	machine := float64(runtime.NumCPU()) / (u.self + u.postgres).Seconds()
	process := float64(min(runtime.GOMAXPROCS(0), runtime.NumCPU())) / u.self.Seconds()
	return float64(tokens) * min(machine, process)
}
