package dbtest

import (
	"context"
	"io"
	"net"
	"net/url"
	"sync"
	"testing"

	"github.com/casegraph/casegraph/db"
)

// Proxy forwards TCP connections to a target (the test PostgreSQL); down
// cuts every connection and refuses new ones, as a database that went
// away, so a test can take the database away from one server while the
// rest of the suite keeps it.
type Proxy struct {
	ln     net.Listener
	mu     sync.Mutex
	target string
	down   bool
	conns  map[net.Conn]bool
}

// NewProxy listens on a free loopback port and forwards to target
// (host:port) until the test ends.
func NewProxy(tb testing.TB, target string) *Proxy {
	tb.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	p := &Proxy{ln: ln, target: target, conns: map[net.Conn]bool{}}
	tb.Cleanup(func() { _ = ln.Close(); p.SetDown(true) })
	go p.serve()
	return p
}

// Via returns a PostgreSQL URL that reaches dsn's server through the
// proxy, which it points there.
func (p *Proxy) Via(tb testing.TB, dsn string) string {
	tb.Helper()
	u, err := url.Parse(dsn)
	if err != nil {
		tb.Fatal(err)
	}
	p.SetTarget(u.Host)
	u.Host = p.Addr()
	return u.String()
}

// OpenBehindProxy returns a migrated PostgreSQL database of this test
// reached through a new Proxy. It skips the test without PostgreSQL.
func OpenBehindProxy(tb testing.TB) (*db.DB, *Proxy) {
	tb.Helper()
	if DatabaseURL() == "none" {
		tb.Skip("needs PostgreSQL")
	}
	p := NewProxy(tb, "")
	d, err := db.Open(context.Background(), p.Via(tb, URL(tb, db.Postgres)), "")
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { d.Close() })
	if _, err := d.Migrate(context.Background()); err != nil {
		tb.Fatal(err)
	}
	return d, p
}

// Addr is the address the proxy listens on.
func (p *Proxy) Addr() string { return p.ln.Addr().String() }

// SetTarget changes where new connections go.
func (p *Proxy) SetTarget(target string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.target = target
}

// SetDown cuts every connection and refuses new ones (true), or forwards
// again (false).
func (p *Proxy) SetDown(down bool) {
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

func (p *Proxy) serve() {
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
