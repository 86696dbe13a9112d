package resolvers

import (
	"embed"
	"net/http"
	"path"
	"strings"
)

// The inbox page is plain HTML and a small script, embedded: nothing is
// loaded from elsewhere.
//
//go:embed inbox/index.html inbox/inbox.js
var inboxAssets embed.FS

// Inbox serves the task inbox page at /inbox and its script below it. The
// page signs in with a token and talks to /graphql like any client.
func Inbox() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		name := "index.html"
		if strings.HasPrefix(r.URL.Path, "/inbox/") && r.URL.Path != "/inbox/" {
			name = path.Base(r.URL.Path)
		}
		writeAsset(w, inboxAssets, "inbox/"+name, func(h http.Header) {
			// The page runs only its own script and talks only to this server.
			h.Set("Content-Security-Policy", "default-src 'self'; connect-src 'self' ws: wss:; style-src 'self' 'unsafe-inline'; frame-ancestors 'none'")
			h.Set("X-Content-Type-Options", "nosniff")
		})
	})
}
