package proof_test

import (
	"context"
	"database/sql"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // the "pgx" driver, to see when the server answers

	"github.com/casegraph/casegraph/db/dbtest"
)

// privatePostgres is a PostgreSQL server of one test's own, in a temporary
// data directory on a free port: the test may stop and start it without
// disturbing the suites that share the machine's PostgreSQL. The
// postmaster is the test's child, run directly rather than through
// pg_ctl, so that it dies with the test process (Pdeathsig) even when a
// time-out ends that without running its cleanups.
type privatePostgres struct {
	t    *testing.T
	bin  string // the directory of initdb and postgres
	dir  string // owned by the user the server runs as
	port int
	// cred runs the server as the postgres OS user when the test runs as
	// root: initdb and postgres refuse to run as root.
	cred   *syscall.Credential
	cmd    *exec.Cmd
	exited chan struct{}
	logs   *lockedBuffer
}

// pgBinDir finds the directory of initdb and postgres: pg_config's
// bindir, else the newest /usr/lib/postgresql/*/bin (Debian's packages put
// only pg_config and the client tools on PATH).
func pgBinDir() (string, error) {
	var dirs []string
	if out, err := exec.Command("pg_config", "--bindir").Output(); err == nil {
		dirs = append(dirs, strings.TrimSpace(string(out)))
	}
	found, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	sort.Slice(found, func(i, j int) bool { return pgVersion(found[i]) > pgVersion(found[j]) })
	for _, d := range append(dirs, found...) {
		if isExecutable(filepath.Join(d, "initdb")) && isExecutable(filepath.Join(d, "postgres")) {
			return d, nil
		}
	}
	return "", fmt.Errorf("no initdb and postgres in pg_config --bindir nor in /usr/lib/postgresql/*/bin")
}

func pgVersion(bin string) int {
	n, _ := strconv.Atoi(filepath.Base(filepath.Dir(bin)))
	return n
}

func isExecutable(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && !fi.IsDir() && fi.Mode()&0o111 != 0
}

// needPostgresServer skips the test when this machine cannot run a
// PostgreSQL server of its own, or fails it in CI (CI=true), where the
// proof must never go missing unseen.
func needPostgresServer(t *testing.T, why error) {
	t.Helper()
	if os.Getenv("CI") == "true" {
		t.Fatalf("CI=true but this test cannot run a PostgreSQL server of its own: %v (apt-get install -y postgresql)", why)
	}
	t.Skipf("no PostgreSQL server of its own: %v", why)
}

// startPrivatePostgres creates a cluster (initdb, trust authentication,
// user postgres) and starts it on a free loopback port. The server and its
// directory are removed when the test ends, however it ends.
func startPrivatePostgres(t *testing.T) *privatePostgres {
	t.Helper()
	bin, err := pgBinDir()
	if err != nil {
		needPostgresServer(t, err)
	}
	p := &privatePostgres{t: t, bin: bin, logs: &lockedBuffer{}}
	dir, err := os.MkdirTemp("", "casegraph-pg-")
	if err != nil {
		t.Fatal(err)
	}
	p.dir = dir
	t.Cleanup(func() {
		p.stop()
		if t.Failed() {
			t.Logf("logs of the private PostgreSQL:\n%s", p.logs.String())
		}
		if err := os.RemoveAll(dir); err != nil {
			t.Errorf("removing the private PostgreSQL's directory: %v", err)
		}
	})
	if os.Geteuid() == 0 {
		u, err := user.Lookup("postgres")
		if err != nil {
			needPostgresServer(t, fmt.Errorf("running as root, and no postgres OS user to run initdb as: %w", err))
		}
		uid, _ := strconv.ParseUint(u.Uid, 10, 32)
		gid, _ := strconv.ParseUint(u.Gid, 10, 32)
		p.cred = &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}
		if err := os.Chown(dir, int(uid), int(gid)); err != nil {
			t.Fatal(err)
		}
	}
	p.port = freePort(t)
	initdb := p.command("initdb", "-D", p.dataDir(), "-U", "postgres", "-A", "trust", "-E", "UTF8", "--locale=C", "--no-sync")
	if out, err := initdb.CombinedOutput(); err != nil {
		t.Fatalf("initdb: %v\n%s", err, out)
	}
	p.start()
	return p
}

func freePort(t *testing.T) int {
	_, port, err := net.SplitHostPort(freeAddr())
	if err != nil {
		t.Fatal(err)
	}
	n, _ := strconv.Atoi(port)
	return n
}

func (p *privatePostgres) dataDir() string { return filepath.Join(p.dir, "data") }

// URL is the DATABASE_URL of the server's postgres database.
func (p *privatePostgres) URL() string {
	return fmt.Sprintf("postgres://postgres@127.0.0.1:%d/postgres?sslmode=disable", p.port)
}

// command runs one of the server's binaries as the server's user, in its
// directory.
func (p *privatePostgres) command(name string, args ...string) *exec.Cmd {
	cmd := exec.Command(filepath.Join(p.bin, name), args...)
	cmd.Dir = p.dir
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: p.cred, Pdeathsig: syscall.SIGQUIT}
	return cmd
}

// start runs the postmaster on the data directory and port, and waits
// until it accepts queries (after crash recovery, when it was stopped
// so).
func (p *privatePostgres) start() {
	p.t.Helper()
	// fsync off: the test stops processes, never the machine, so what a
	// process wrote survives in the page cache; syncing would only slow
	// the shared machine down. The socket goes in the test's directory,
	// not the system PostgreSQL's.
	cmd := p.command("postgres", "-D", p.dataDir(), "-p", strconv.Itoa(p.port), "-k", p.dir,
		"-c", "listen_addresses=127.0.0.1", "-c", "fsync=off", "-c", "max_connections=100")
	cmd.Stdout, cmd.Stderr = p.logs, p.logs
	if err := cmd.Start(); err != nil {
		p.t.Fatalf("starting postgres: %v", err)
	}
	exited := make(chan struct{})
	go func() {
		_ = cmd.Wait()
		close(exited)
	}()
	p.cmd, p.exited = cmd, exited
	conn, err := sql.Open("pgx", p.URL()+"&connect_timeout=2")
	if err != nil {
		p.t.Fatal(err)
	}
	defer conn.Close()
	dbtest.Until(p.t, 30*time.Second, "the private PostgreSQL accepts queries", func() (bool, error) {
		select {
		case <-exited:
			return false, fmt.Errorf("postgres exited at start:\n%s", p.logs.String())
		default:
		}
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		return conn.PingContext(ctx) == nil, nil
	})
}

// crash stops the server in immediate mode, as pg_ctl stop -m immediate
// does: every backend is killed at once, without a checkpoint, and the
// next start recovers from the write-ahead log. It returns when the
// postmaster has exited.
func (p *privatePostgres) crash() {
	p.t.Helper()
	if p.cmd == nil {
		p.t.Fatal("the private PostgreSQL is not running")
	}
	_ = p.cmd.Process.Signal(syscall.SIGQUIT)
	select {
	case <-p.exited:
	case <-time.After(20 * time.Second):
		p.t.Fatal("the private PostgreSQL did not exit within 20 s of SIGQUIT")
	}
	p.cmd = nil
}

// stop ends the server if it runs: immediate shutdown, then SIGKILL when
// that does not end it.
func (p *privatePostgres) stop() {
	if p.cmd == nil {
		return
	}
	_ = p.cmd.Process.Signal(syscall.SIGQUIT)
	select {
	case <-p.exited:
	case <-time.After(20 * time.Second):
		_ = p.cmd.Process.Kill()
		<-p.exited
	}
	p.cmd = nil
}
