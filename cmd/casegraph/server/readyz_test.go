package server_test

import (
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/casegraph/casegraph/cmd/casegraph/server"
	"github.com/casegraph/casegraph/cmd/casegraph/server/servertest"
	"github.com/casegraph/casegraph/db"
	"github.com/casegraph/casegraph/db/dbtest"
)

func readyz(t *testing.T, admin http.Handler) (int, string) {
	t.Helper()
	rec := httptest.NewRecorder()
	admin.ServeHTTP(rec, httptest.NewRequest("GET", "/readyz", nil))
	return rec.Code, rec.Body.String()
}

// TestReadyzMigrations: a database that lacks a migration of this build
// (another replica still migrating) is not ready.
func TestReadyzMigrations(t *testing.T) {
	servertest.ForEachDB(t, func(t *testing.T, env *servertest.Env) {
		admin, d, ctx := env.Server.AdminHandler(), env.Server.DB(), context.Background()
		if code, body := readyz(t, admin); code != 200 {
			t.Fatalf("readyz: %d %s", code, body)
		}
		var last string
		if err := d.NewRaw("SELECT max(name) FROM bun_migrations").Scan(ctx, &last); err != nil {
			t.Fatal(err)
		}
		if _, err := d.ExecContext(ctx, "UPDATE bun_migrations SET name = name || '_away' WHERE name = ?", last); err != nil {
			t.Fatal(err)
		}
		if code, body := readyz(t, admin); code != http.StatusServiceUnavailable || !strings.Contains(body, last) {
			t.Errorf("readyz without migration %s: %d %s", last, code, body)
		}
		if _, err := d.ExecContext(ctx, "UPDATE bun_migrations SET name = ? WHERE name = ?", last, last+"_away"); err != nil {
			t.Fatal(err)
		}
		if code, body := readyz(t, admin); code != 200 {
			t.Errorf("readyz after the migration is back: %d %s", code, body)
		}
	})
}

// TestReadyzDatabaseDown: while the database cannot be reached, /readyz
// answers 503, and 200 again once it can; /livez answers throughout.
func TestReadyzDatabaseDown(t *testing.T) {
	if !slices.Contains(dbtest.Flavors(), db.Postgres) {
		t.Skip("needs PostgreSQL")
	}
	proxy := newTCPProxy(t, "127.0.0.1:5432")
	env := servertest.Start(t, db.Postgres, func(c *server.Config) {
		u, err := url.Parse(c.DatabaseURL)
		if err != nil {
			t.Fatal(err)
		}
		proxy.setTarget(u.Host)
		u.Host = proxy.addr()
		c.DatabaseURL = u.String()
	})
	admin := env.Server.AdminHandler()
	if code, body := readyz(t, admin); code != 200 {
		t.Fatalf("readyz: %d %s", code, body)
	}
	proxy.setDown(true)
	if code, body := readyz(t, admin); code != http.StatusServiceUnavailable || !strings.Contains(body, "database unreachable") {
		t.Errorf("readyz with the database down: %d %s", code, body)
	}
	if got := scrape(t, admin, "/livez"); got != "ok" {
		t.Errorf("livez with the database down: %q", got)
	}
	proxy.setDown(false)
	if code, body := readyz(t, admin); code != 200 {
		t.Errorf("readyz with the database back: %d %s", code, body)
	}
}

func (p *tcpProxy) setTarget(target string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.target = target
}

// tcpProxy forwards connections to target; down cuts every connection
// and refuses new ones, as a database that went away.
type tcpProxy struct {
	ln     net.Listener
	target string
	mu     sync.Mutex
	down   bool
	conns  map[net.Conn]bool
}

func newTCPProxy(t *testing.T, target string) *tcpProxy {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &tcpProxy{ln: ln, target: target, conns: map[net.Conn]bool{}}
	t.Cleanup(func() { _ = ln.Close(); p.setDown(true) })
	go p.serve()
	return p
}

func (p *tcpProxy) addr() string { return p.ln.Addr().String() }

func (p *tcpProxy) serve() {
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return
		}
		p.mu.Lock()
		if p.down {
			p.mu.Unlock()
			_ = c.Close()
			continue
		}
		up, err := net.Dial("tcp", p.target)
		if err != nil {
			p.mu.Unlock()
			_ = c.Close()
			continue
		}
		p.conns[c], p.conns[up] = true, true
		p.mu.Unlock()
		go func() { _, _ = io.Copy(up, c); _ = up.Close() }()
		go func() { _, _ = io.Copy(c, up); _ = c.Close() }()
	}
}

func (p *tcpProxy) setDown(down bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.down = down
	if down {
		for c := range p.conns {
			_ = c.Close()
		}
		clear(p.conns)
	}
}
