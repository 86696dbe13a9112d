package auth

import (
	"net/http"
	"testing"
)

// TestClientAddr: IPv4 by address, IPv6 by /64, mapped IPv4 as IPv4.
func TestClientAddr(t *testing.T) {
	for remote, want := range map[string]string{
		"192.0.2.7:5000":              "192.0.2.7",
		"[2001:db8:1:2:aaaa::1]:5000": "2001:db8:1:2::",
		"[2001:db8:1:2:bbbb::9]:443":  "2001:db8:1:2::",
		"[::ffff:192.0.2.7]:5000":     "192.0.2.7",
		"not an address":              "invalid IP",
	} {
		r := &http.Request{RemoteAddr: remote}
		if got := ClientAddr(r).String(); got != want {
			t.Errorf("%s: %s, want %s", remote, got, want)
		}
	}
}
