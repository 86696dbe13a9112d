package server

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/netip"
	"net/url"
	"runtime/debug"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"go.opentelemetry.io/otel/trace"

	"github.com/casegraph/casegraph/auth"
	"github.com/casegraph/casegraph/service"
)

// statusClientClosed is logged for a request whose client hung up before
// its answer.
const statusClientClosed = 499

// maxRequestBody bounds every request body.
const maxRequestBody = 16 << 20

// probePaths are exempt from the in-flight limit.
var probePaths = map[string]bool{"/health": true, "/status": true, "/version": true,
	"/platform/health": true, "/platform/status": true, "/platform/version": true}

// lastModifiedHeaders are accepted on every request, as the reference
// engine's clients send every value they have seen to every URL. Commands
// commit before they answer, so no request waits for them; a malformed one
// is still a 400.
var lastModifiedHeaders = []string{"Case-Last-Modified", "Tenant-Last-Modified", "Consent-Group-Last-Modified"}

// middleware wraps every request: request id, access log, panic recovery,
// CORS, and the check of the *-Last-Modified headers.
func (s *Server) middleware(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		var observed func(pattern, method string, status int, d time.Duration)
		if s.metrics != nil {
			observed = s.metrics.RequestStarted()
		}
		span := trace.SpanFromContext(r.Context())
		traceID := span.SpanContext().TraceID()
		id := r.Header.Get("X-Request-Id")
		if id == "" || len(id) > 128 {
			// With tracing on, one id finds the request in logs and traces.
			if traceID.IsValid() {
				id = traceID.String()
			} else {
				id = newRequestID()
			}
		}
		ctx := withRequestID(r.Context(), id)
		r = r.WithContext(ctx)
		w.Header().Set("X-Request-Id", id)
		if traceID.IsValid() {
			w.Header().Set("X-Trace-Id", traceID.String())
		}
		rec := &statusRecorder{ResponseWriter: w, status: http.StatusOK}
		// status is what logs and metrics record: what was answered, or
		// 499 (nginx's "client closed request") when the client hung up
		// before the answer (a dropped command was logged as a 503 it
		// never saw, an abandoned query as a 200).
		clientCtx := ctx // ctx gets the request's deadline below
		status := func() int {
			if clientCtx.Err() != nil {
				return statusClientClosed
			}
			return rec.status
		}

		defer func() {
			// r is the request the mux saw last, so its Pattern is the
			// route matched; the deferred recover below still runs first.
			if observed != nil {
				observed(r.Pattern, r.Method, status(), time.Since(start))
			}
			nameSpan(span, r.Pattern)
		}()
		defer func() {
			if p := recover(); p != nil {
				if p == http.ErrAbortHandler {
					panic(p)
				}
				s.logger.ErrorContext(ctx, "handler panic", "panic", fmt.Sprint(p), "stack", string(debug.Stack()))
				if !rec.wrote {
					writeText(rec, http.StatusInternalServerError, "An error happened in the server; check the server logs for more information")
				}
			}
			s.logger.InfoContext(ctx, "request", "method", r.Method, "path", r.URL.Path, "route", r.Pattern, "status", status(),
				"duration_ms", float64(time.Since(start).Microseconds())/1000)
		}()

		// No request needs more: definitions are at most 10 MiB, and JSON
		// escaping may grow them.
		r.Body = http.MaxBytesReader(rec, r.Body, maxRequestBody)
		if strings.ContainsRune(r.URL.Path, 0) || strings.Contains(r.URL.RawQuery, "%00") {
			// Neither database stores a NUL in text.
			writeText(rec, http.StatusBadRequest, "The request contains a NUL character, which no identifier or value may hold")
			return
		}
		if !utf8.ValidString(r.URL.Path) || !validQueryText(r.URL.RawQuery) {
			// No id is anything but UTF-8, and PostgreSQL refuses such a
			// value in a query rather than finding nothing.
			writeText(rec, http.StatusBadRequest, "The request contains bytes that are not UTF-8, which no identifier or value may hold")
			return
		}
		s.cors(rec, r)
		if r.Method == http.MethodOptions && r.Header.Get("Access-Control-Request-Method") != "" {
			rec.WriteHeader(http.StatusOK)
			return
		}
		// The body is read before a slot is taken: a client trickling its
		// body must not hold a slot for the minute ReadTimeout allows (64
		// such connections, without a token, made the server answer 503 to
		// everyone). Handlers read every body whole anyway.
		if r.ContentLength != 0 && r.Body != nil && r.Body != http.NoBody {
			body, release, ok := s.bodies.buffer(auth.ClientAddr(r), r.Body)
			defer release()
			if !ok {
				writeOverloaded(rec, r)
				return
			}
			r.Body = body
		}
		// A live WebSocket lasts for hours: it is bounded by the live
		// connection limits, not by an in-flight slot or the request
		// deadline.
		if r.URL.Path == "/graphql" && r.Method == http.MethodGet && strings.EqualFold(r.Header.Get("Upgrade"), "websocket") {
			next.ServeHTTP(rec, r)
			return
		}
		// Health, status and version answer even when the server is full:
		// a load balancer must not take a busy replica for a dead one.
		if !probePaths[r.URL.Path] {
			select {
			case s.inFlight <- struct{}{}:
				defer func() { <-s.inFlight }()
			default:
				writeOverloaded(rec, r)
				return
			}
		}
		// Every database call and resolver takes this context: the work
		// stops at the deadline, or as soon as the client hangs up.
		ctx, cancel := context.WithTimeout(r.Context(), s.cfg.RequestTimeout)
		defer cancel()
		r = r.WithContext(ctx)
		for _, h := range lastModifiedHeaders {
			if v := r.Header.Get(h); v != "" {
				if _, err := service.ParseLastModified(v); err != nil {
					writeText(rec, http.StatusBadRequest, fmt.Sprintf("Header %s has invalid content. Reason: %v", h, err))
					return
				}
			}
		}
		next.ServeHTTP(rec, r)
	})
}

// writeOverloaded answers a request the server has no room for: 503 with
// Retry-After, in the reference engine's words on REST and as a GraphQL
// error on /graphql, whose clients read JSON.
func writeOverloaded(w http.ResponseWriter, r *http.Request) {
	const msg = "The server is currently unavailable (because it is overloaded or down for maintenance)."
	w.Header().Set("Retry-After", "1")
	if r.URL.Path != "/graphql" {
		writeText(w, http.StatusServiceUnavailable, msg)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusServiceUnavailable)
	_, _ = io.WriteString(w, `{"errors":[{"message":"`+msg+`","extensions":{"code":"UNAVAILABLE"}}],"data":null}`)
}

// bodyBudget bounds the bytes of the request bodies held at once. Bodies
// are read before their request takes an in-flight slot, so without it
// many large bodies at once could exhaust memory. One client address
// (auth.ClientAddr) holds at most a quarter of it: sixteen connections
// that each sent all but the last byte of a 16 MiB body, without a token,
// held the whole budget and made every request with a body answer 503
// for the minute ReadTimeout allows. Behind a proxy every client shares
// the proxy's quarter.
type bodyBudget struct {
	max int64

	mu       sync.Mutex
	used     int64
	byClient map[netip.Addr]int64
}

// charge adds n bytes of client's body to the budget, and reports whether
// both the whole budget and client's share still hold them.
func (b *bodyBudget) charge(client netip.Addr, n int64) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.byClient == nil {
		b.byClient = map[netip.Addr]int64{}
	}
	b.byClient[client] += n
	if b.byClient[client] == 0 {
		delete(b.byClient, client)
	}
	b.used += n
	return b.used <= b.max && b.byClient[client] <= b.max/4
}

// maxBufferedBodies is the default body budget: sixteen bodies of the
// largest size.
const maxBufferedBodies = 16 * maxRequestBody

// buffer reads body whole and returns a reader of the same bytes that then
// fails as body did (a MaxBytesError past the limit, a broken connection),
// so that handlers answer as they did reading it themselves. ok is false
// when the budget ran out; release gives its bytes back.
//
// The buffer grows as bytes arrive, never ahead of them: room taken for a
// declared Content-Length before its bytes came let headers alone, without
// a token, hold gigabytes.
func (b *bodyBudget) buffer(client netip.Addr, body io.ReadCloser) (_ io.ReadCloser, release func(), ok bool) {
	var buf bytes.Buffer
	var charged int64
	release = func() { b.charge(client, -charged) }
	chunk := make([]byte, 32<<10)
	var err error
	for {
		var n int
		n, err = body.Read(chunk)
		if n > 0 {
			charged += int64(n)
			if !b.charge(client, int64(n)) {
				_ = body.Close()
				return nil, release, false
			}
			buf.Write(chunk[:n])
		}
		if err != nil {
			break
		}
	}
	_ = body.Close()
	return &bufferedBody{Reader: bytes.NewReader(buf.Bytes()), body: buf.Bytes(), err: err}, release, true
}

// bufferedBody is a body read whole: its bytes, then the error its
// reading ended with (io.EOF, or a MaxBytesError past the limit).
type bufferedBody struct {
	*bytes.Reader
	body []byte
	err  error
}

func (b *bufferedBody) Read(p []byte) (int, error) {
	n, err := b.Reader.Read(p)
	if err == io.EOF {
		err = b.err
	}
	return n, err
}

func (b *bufferedBody) Close() error { return nil }

// Bytes is the whole body, without a copy, and the error its reading
// ended with (nil for a body read to its end): handlers that take a body
// whole (GraphQL's) need not hold it twice.
func (b *bufferedBody) Bytes() ([]byte, error) {
	if b.err == io.EOF {
		return b.body, nil
	}
	return b.body, b.err
}

// cors answers browsers of the configured origins (CASEGRAPH_CORS_ORIGINS;
// in development mode also http://localhost and http://127.0.0.1 on any
// port) with the reference engine's methods and headers and the
// *-Last-Modified headers exposed to scripts. Any other origin gets no CORS
// headers, so its scripts cannot read the answers: reflecting every origin
// with credentials would let any web page act with a user's cookies or
// browser-held tokens. "*" allows every origin, without credentials.
func (s *Server) cors(w http.ResponseWriter, r *http.Request) {
	origin := r.Header.Get("Origin")
	h := w.Header()
	h.Add("Vary", "Origin")
	if origin == "" {
		return
	}
	switch {
	case s.allowedOrigin(origin):
		h.Set("Access-Control-Allow-Origin", origin)
		h.Set("Access-Control-Allow-Credentials", "true")
	case slices.Contains(s.cfg.CORSOrigins, "*"):
		h.Set("Access-Control-Allow-Origin", "*")
	default:
		return
	}
	h.Set("Access-Control-Allow-Methods", "GET, POST, HEAD, OPTIONS, PUT, DELETE")
	h.Set("Access-Control-Allow-Headers", "Authorization, Content-Type, X-Requested-With, Case-Last-Modified, Tenant-Last-Modified, accept, origin")
	h.Set("Access-Control-Expose-Headers", "Case-Last-Modified, Tenant-Last-Modified")
	h.Set("Access-Control-Max-Age", "200")
}

// allowedOrigin reports whether origin is configured, or a local one in
// development mode.
func (s *Server) allowedOrigin(origin string) bool {
	if slices.Contains(s.cfg.CORSOrigins, origin) {
		return true
	}
	if !s.cfg.Dev {
		return false
	}
	u, err := url.Parse(origin)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Path != "" {
		return false
	}
	host := u.Hostname()
	return host == "localhost" || host == "127.0.0.1" || host == "::1"
}

type statusRecorder struct {
	http.ResponseWriter
	status int
	wrote  bool
}

func (s *statusRecorder) WriteHeader(code int) {
	if !s.wrote {
		s.status, s.wrote = code, true
	}
	s.ResponseWriter.WriteHeader(code)
}

func (s *statusRecorder) Write(b []byte) (int, error) {
	s.wrote = true
	return s.ResponseWriter.Write(b)
}

func (s *statusRecorder) Unwrap() http.ResponseWriter { return s.ResponseWriter }

func newRequestID() string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

func writeText(w http.ResponseWriter, status int, msg string) {
	w.Header().Set("Content-Type", "text/plain; charset=UTF-8")
	w.WriteHeader(status)
	_, _ = w.Write([]byte(msg))
}

type requestIDKey struct{}

func withRequestID(ctx context.Context, id string) context.Context {
	return context.WithValue(ctx, requestIDKey{}, id)
}

// LogHandler wraps h so that every record logged with a request's context
// carries that request's id as request_id, and, when the request is
// traced, the trace_id and span_id of the span logging it.
func LogHandler(h slog.Handler) slog.Handler { return requestIDHandler{h} }

type requestIDHandler struct{ slog.Handler }

func (h requestIDHandler) Handle(ctx context.Context, r slog.Record) error {
	if id, ok := ctx.Value(requestIDKey{}).(string); ok {
		r.AddAttrs(slog.String("request_id", id))
	}
	if sc := trace.SpanContextFromContext(ctx); sc.IsValid() {
		r.AddAttrs(slog.String("trace_id", sc.TraceID().String()), slog.String("span_id", sc.SpanID().String()))
	}
	return h.Handler.Handle(ctx, r)
}

func (h requestIDHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	return requestIDHandler{h.Handler.WithAttrs(attrs)}
}

func (h requestIDHandler) WithGroup(name string) slog.Handler {
	return requestIDHandler{h.Handler.WithGroup(name)}
}

// validQueryText reports whether every key and value of a URL query is
// UTF-8 once unescaped. Pairs that do not unescape are dropped, as the
// handlers' r.URL.Query() drops them; the others are still checked.
func validQueryText(raw string) bool {
	if raw == "" {
		return true
	}
	q, _ := url.ParseQuery(raw)
	for k, vs := range q {
		if !utf8.ValidString(k) {
			return false
		}
		for _, v := range vs {
			if !utf8.ValidString(v) {
				return false
			}
		}
	}
	return true
}
