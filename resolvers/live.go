package resolvers

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"net/http"
	"net/netip"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/99designs/gqlgen/graphql"
	"github.com/99designs/gqlgen/graphql/handler/transport"
	"github.com/vektah/gqlparser/v2/ast"

	"github.com/casegraph/casegraph/auth"
	"github.com/casegraph/casegraph/service"
)

// WebSocket close codes of live connections (4000-4999 are the
// application's). Clients should not reconnect on 4401 and 4403 without a
// new token; on 4008 and 4429 they may, after a pause.
const (
	closeUnauthenticated = 4401
	closeDisabled        = 4403
	closeTooSlow         = 4008
	closeTooMany         = 4429
)

// liveKeepAlive is how often the server pings an idle connection; a client
// that does not answer within twice that is disconnected.
const liveKeepAlive = 25 * time.Second

// Default bounds of live connections.
const (
	DefaultLiveConnections        = 10000
	DefaultLiveConnectionsPerUser = 20
)

// liveConns counts the open live connections, in total and per user, and
// those not yet past connection_init in total and per client address:
// upgrades that never send it (they may, for InitTimeout) took the whole
// server's limit without a token, so that no one could subscribe.
type liveConns struct {
	mu         sync.Mutex
	total, max int
	perUser    map[string]int
	maxPerUser int
	pending    int
	perAddr    map[netip.Addr]int
	svc        *service.Service
	authn      Authenticator
}

// Bounds of connections waiting for their connection_init: a tenth of the
// server's limit in all, and maxPendingPerAddr from one client address.
const maxPendingPerAddr = 32

func newLiveConns(svc *service.Service, authn Authenticator, lim Limits) *liveConns {
	return &liveConns{max: lim.MaxLiveConnections, maxPerUser: lim.MaxLiveConnectionsPerUser, perUser: map[string]int{},
		perAddr: map[netip.Addr]int{}, svc: svc, authn: authn}
}

// acquire takes a slot for a new connection from addr, waiting for its
// connection_init.
func (l *liveConns) acquire(c *liveConn, addr netip.Addr) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.total >= l.max || l.pending >= max(l.max/10, 1) || l.perAddr[addr] >= maxPendingPerAddr {
		return false
	}
	l.total++
	l.pending++
	l.perAddr[addr]++
	c.addr, c.pending = addr, true
	return true
}

// initialized counts c as past its connection_init.
func (l *liveConns) initialized(c *liveConn) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.donePending(c)
}

// donePending counts c out of the connections waiting for their init;
// l.mu is held.
func (l *liveConns) donePending(c *liveConn) {
	if !c.pending {
		return
	}
	c.pending = false
	l.pending--
	if l.perAddr[c.addr]--; l.perAddr[c.addr] <= 0 {
		delete(l.perAddr, c.addr)
	}
}

func (l *liveConns) release(c *liveConn) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.total--
	l.donePending(c)
	if c.counted {
		if l.perUser[c.user]--; l.perUser[c.user] <= 0 {
			delete(l.perUser, c.user)
		}
	}
}

func (l *liveConns) acquireUser(c *liveConn, user string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.perUser[user] >= l.maxPerUser {
		return false
	}
	l.perUser[user]++
	// counted, not user != "": a token may name the user "" (as the
	// reference lets it), whose count was never given back.
	c.user, c.counted = user, true
	return true
}

// isUpgrade reports whether r asks for a WebSocket.
func isUpgrade(r *http.Request) bool {
	return r.Method == http.MethodGet && strings.EqualFold(r.Header.Get("Upgrade"), "websocket")
}

// serve runs one live connection: bounded in number before the upgrade,
// per user once the connection_init payload named the caller.
func (l *liveConns) serve(w http.ResponseWriter, r *http.Request, next http.Handler) {
	c := &liveConn{}
	if !l.acquire(c, auth.ClientAddr(r)) {
		w.Header().Set("Retry-After", "5")
		writeGraphQLError(w, http.StatusServiceUnavailable, codeOf[service.Unavailable], "Too many live connections; try again later")
		return
	}
	defer l.release(c)
	defer l.svc.LiveConnected()()
	next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), liveConnKey{}, c)))
}

// liveConn is one live connection, reachable from its operations' context
// so that a subscription can close it with a reason (a disabled account, a
// client too slow to keep up).
type liveConn struct {
	user    string
	addr    netip.Addr
	pending bool // waiting for its connection_init
	counted bool // in perUser
	mu      sync.Mutex
	ws      transport.WebsocketConn
	subs    int // running subscriptions
}

// maxSubscriptionsPerConnection bounds the subscriptions one connection
// runs at once: each holds a goroutine and a queue.
const maxSubscriptionsPerConnection = 16

// startSubscription counts a subscription of the connection in ctx; the
// returned release must be called when it ends.
func startSubscription(ctx context.Context) (release func(), err error) {
	c, ok := ctx.Value(liveConnKey{}).(*liveConn)
	if !ok {
		return func() {}, nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.subs >= maxSubscriptionsPerConnection {
		return nil, service.Ef("graphql.subscription", service.Invalid, "A connection runs at most %d subscriptions at once", maxSubscriptionsPerConnection)
	}
	c.subs++
	return func() {
		c.mu.Lock()
		c.subs--
		c.mu.Unlock()
	}, nil
}

type liveConnKey struct{}

// closeWith closes the connection with a close code and a reason the
// client can show.
func closeWith(ctx context.Context, code int, reason string) {
	c, ok := ctx.Value(liveConnKey{}).(*liveConn)
	if !ok {
		return
	}
	c.mu.Lock()
	ws := c.ws
	c.mu.Unlock()
	if ws == nil {
		return
	}
	_ = ws.WriteClose(code, closeReason(reason))
	// The close handshake runs in the background; until the connection
	// ends, the operation must not complete, or the client would read a
	// plain "complete" instead of the reason.
	select {
	case <-ctx.Done():
	case <-time.After(5 * time.Second):
		_ = ws.Close()
	}
}

// init authenticates the connection_init payload with the same verifier
// as the HTTP door: {"Authorization": "Bearer …"} or {"token": "…"}; a
// token sent as a header of the upgrade request counts too.
func (l *liveConns) init(ctx context.Context, payload transport.InitPayload) (context.Context, *transport.InitPayload, error) {
	header := payload.Authorization()
	if header == "" {
		if tok := payload.GetString("token"); tok != "" {
			header = "Bearer " + tok
		}
	}
	who, ok := auth.FromContext(ctx)
	if header != "" {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, "/graphql", nil)
		if err != nil {
			return refuse(ctx, closeUnauthenticated, "Authorization token is invalid")
		}
		req.Header.Set("Authorization", header)
		who, err = l.authn.Authenticate(req)
		if err != nil {
			return refuse(ctx, closeUnauthenticated, service.Message(l.svc.AuthFailure(ctx, err)))
		}
		ok = true
	}
	if !ok {
		return refuse(ctx, closeUnauthenticated, "Authorization token is missing")
	}
	if c, isLive := ctx.Value(liveConnKey{}).(*liveConn); isLive {
		if !l.acquireUser(c, who.UserID) {
			return refuse(ctx, closeTooMany, "Too many live connections for this user")
		}
		l.initialized(c)
	}
	if exp, ok := tokenExpiry(header); ok {
		// A connection must not outlive its token.
		timer := time.AfterFunc(time.Until(exp), func() { closeWith(ctx, closeUnauthenticated, "The token expired; reconnect with a new one") })
		context.AfterFunc(ctx, func() { timer.Stop() })
	}
	return auth.NewContext(ctx, who), nil, nil
}

// tokenExpiry reads the exp claim of a bearer token the verifier has
// accepted (so its payload is trusted).
func tokenExpiry(header string) (time.Time, bool) {
	tok, ok := strings.CutPrefix(header, "Bearer ")
	parts := strings.Split(tok, ".")
	if !ok || len(parts) != 3 {
		return time.Time{}, false
	}
	payload, err := base64.RawURLEncoding.DecodeString(parts[1])
	if err != nil {
		return time.Time{}, false
	}
	var claims struct {
		Exp *float64 `json:"exp"`
	}
	if json.Unmarshal(payload, &claims) != nil || claims.Exp == nil {
		return time.Time{}, false
	}
	return time.Unix(int64(*claims.Exp), 0), true
}

func refuse(ctx context.Context, code int, reason string) (context.Context, *transport.InitPayload, error) {
	ctx = transport.AppendCloseReason(transport.WithWebsocketCloseCode(ctx, code), closeReason(reason))
	return ctx, nil, errors.New(reason)
}

// liveImpl accepts WebSockets with gqlgen's default implementation and
// keeps each one where its operations can close it.
type liveImpl struct {
	transport.CoderWebsocketImplementation
}

func (i liveImpl) Accept(w http.ResponseWriter, r *http.Request, opts transport.WebsocketAcceptOptions) (transport.WebsocketConn, error) {
	ws, err := i.CoderWebsocketImplementation.Accept(w, r, opts)
	if err != nil {
		return nil, err
	}
	if c, ok := r.Context().Value(liveConnKey{}).(*liveConn); ok {
		c.mu.Lock()
		c.ws = ws
		c.mu.Unlock()
	}
	return ws, nil
}

// websocketTransport is the graphql-transport-ws transport of l.
func websocketTransport(l *liveConns) transport.Websocket {
	// Any origin may connect: nothing ambient authenticates a live
	// connection (a browser cannot set headers on a WebSocket, and no
	// cookie is read), only the token the page itself sends in
	// connection_init, so a foreign page gains nothing (no cross-site
	// WebSocket hijacking), and front ends on other origins work.
	impl := liveImpl{}
	impl.AcceptOptions.OriginPatterns = []string{"*"}
	return transport.Websocket{
		Implementation:        impl,
		InitFunc:              l.init,
		InitTimeout:           10 * time.Second,
		KeepAlivePingInterval: liveKeepAlive,
		PingPongInterval:      liveKeepAlive,
	}
}

// perEvent gives every event of a subscription fresh dataloaders and a
// fresh response budget: a connection lives for hours, and an event must
// read the case as it is now, not as the connection's first event found it.
func perEvent(svc *service.Service, maxBytes int) responseInterceptor {
	return responseInterceptor(func(ctx context.Context, next graphql.ResponseHandler) *graphql.Response {
		if oc := graphql.GetOperationContext(ctx); oc != nil && oc.Operation != nil && oc.Operation.Operation == ast.Subscription {
			ctx = requestScope(ctx, svc, maxBytes)
		}
		return next(ctx)
	})
}

type responseInterceptor func(ctx context.Context, next graphql.ResponseHandler) *graphql.Response

func (responseInterceptor) ExtensionName() string                   { return "LiveEvents" }
func (responseInterceptor) Validate(graphql.ExecutableSchema) error { return nil }
func (f responseInterceptor) InterceptResponse(ctx context.Context, next graphql.ResponseHandler) *graphql.Response {
	return f(ctx, next)
}

// closeReason cuts reason to the 123 bytes a WebSocket close frame holds,
// at a character boundary.
func closeReason(reason string) string {
	if len(reason) <= 123 {
		return reason
	}
	cut := 120
	for cut > 0 && !utf8.RuneStart(reason[cut]) {
		cut--
	}
	return reason[:cut] + "..."
}
