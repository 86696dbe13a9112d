package auth

import (
	"net"
	"net/http"
	"net/netip"
)

// ClientAddr is the address a request is held to account by (rate and
// resource limits): the peer's IP, an IPv6 peer's /64 (one host holds a
// whole /64, and would otherwise get a share per address). Proxies'
// forwarding headers are not trusted: any caller can send them.
func ClientAddr(r *http.Request) netip.Addr {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		host = r.RemoteAddr
	}
	a, err := netip.ParseAddr(host)
	if err != nil {
		return netip.Addr{}
	}
	a = a.Unmap()
	if a.Is6() {
		p, _ := a.Prefix(64)
		return p.Addr()
	}
	return a
}
