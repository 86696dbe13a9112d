// Package servertest starts a whole CaseGraph server for integration tests:
// a real HTTP server, a real database of either flavor, and a real OIDC
// issuer whose tokens the server verifies over HTTP.
package servertest

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/Khan/genqlient/graphql"

	"github.com/casegraph/casegraph/auth/authtest"
	"github.com/casegraph/casegraph/cmd/casegraph/server"
	"github.com/casegraph/casegraph/db"
	"github.com/casegraph/casegraph/db/dbtest"
)

// PlatformOwner is the platform owner of every test server.
const PlatformOwner = "admin"

// Env is a running test server.
type Env struct {
	// URL is the server's base URL.
	URL string
	// Issuer is the OIDC issuer the server trusts.
	Issuer *authtest.Issuer
	// Server is the assembled server.
	Server *server.Server
	// Flavor is the database flavor.
	Flavor db.Dialect
	// DatabaseURL is the server's database, to start another server on.
	DatabaseURL string
	tb          testing.TB
	stop        func()
}

// Stop stops the server before the test ends (it is stopped at cleanup
// anyway); its database stays.
func (e *Env) Stop() { e.stop() }

// ForEachDB runs test once per database flavor, each in a parallel subtest
// with its own server; edit, when given, changes each server's
// configuration as for Start.
func ForEachDB(t *testing.T, test func(t *testing.T, env *Env), edit ...func(*server.Config)) {
	t.Helper()
	for _, flavor := range dbtest.Flavors() {
		t.Run(string(flavor), func(t *testing.T) {
			t.Parallel()
			test(t, Start(t, flavor, edit...))
		})
	}
}

// Start runs a server on a fresh database of the flavor. edit, when given,
// may change the configuration first.
func Start(tb testing.TB, flavor db.Dialect, edit ...func(*server.Config)) *Env {
	tb.Helper()
	issuer := authtest.NewIssuer(tb)
	cfg := server.Config{
		DatabaseURL:    dbtest.URL(tb, flavor),
		DataDir:        tb.TempDir(),
		PlatformOwners: []string{PlatformOwner},
		OIDCIssuers:    []string{issuer.URL},
		DefaultTenant:  "world",
		Version:        server.VersionInfo{Version: "test"},
	}
	for _, e := range edit {
		e(&cfg)
	}
	srv, err := server.New(context.Background(), cfg, slog.New(slog.NewTextHandler(testWriter{tb}, &slog.HandlerOptions{Level: slog.LevelWarn})))
	if err != nil {
		tb.Fatal(err)
	}
	hs := httptest.NewServer(srv.Handler())
	liveCtx, stopLive := context.WithCancel(context.Background())
	liveDone := make(chan struct{})
	go func() {
		defer close(liveDone)
		srv.Service().RunLive(liveCtx)
	}()
	var once sync.Once
	stop := func() {
		once.Do(func() {
			stopLive()
			<-liveDone
			hs.CloseClientConnections()
			hs.Close()
			srv.Close()
		})
	}
	tb.Cleanup(stop)
	return &Env{URL: hs.URL, Issuer: issuer, Server: srv, Flavor: flavor, DatabaseURL: cfg.DatabaseURL, tb: tb, stop: stop}
}

// testWriter sends server logs to the test log, shown only on failure.
type testWriter struct{ tb testing.TB }

func (w testWriter) Write(p []byte) (int, error) {
	w.tb.Log(strings.TrimRight(string(p), "\n"))
	return len(p), nil
}

// Response is a REST response, body read.
type Response struct {
	Status int
	Header http.Header
	Body   string
}

// JSON decodes the body into v, failing the test when it is not JSON.
func (r *Response) JSON(tb testing.TB, v any) {
	tb.Helper()
	if err := json.Unmarshal([]byte(r.Body), v); err != nil {
		tb.Fatalf("response body is not JSON (%v): %s", err, r.Body)
	}
}

// Request is a REST request to send.
type Request struct {
	Method string
	Path   string
	// User, when set, sends a valid token for that user.
	User string
	// Token, when set, is sent as the bearer token as it is.
	Token string
	// Body is JSON-encoded unless it is a string, sent as it is.
	Body        any
	ContentType string
	Header      map[string]string
}

// Do sends req and returns the response.
func (e *Env) Do(req Request) *Response {
	e.tb.Helper()
	var body io.Reader
	contentType := req.ContentType
	switch b := req.Body.(type) {
	case nil:
	case string:
		body = strings.NewReader(b)
	default:
		data, err := json.Marshal(b)
		if err != nil {
			e.tb.Fatal(err)
		}
		body = bytes.NewReader(data)
		if contentType == "" {
			contentType = "application/json"
		}
	}
	r, err := http.NewRequest(req.Method, e.URL+req.Path, body)
	if err != nil {
		e.tb.Fatal(err)
	}
	if contentType != "" {
		r.Header.Set("Content-Type", contentType)
	}
	switch {
	case req.Token != "":
		r.Header.Set("Authorization", "Bearer "+req.Token)
	case req.User != "":
		r.Header.Set("Authorization", "Bearer "+e.Issuer.Token(req.User))
	}
	for k, v := range req.Header {
		r.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(r)
	if err != nil {
		e.tb.Fatal(err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		e.tb.Fatal(err)
	}
	return &Response{Status: resp.StatusCode, Header: resp.Header, Body: string(data)}
}

// GraphQL returns a genqlient client that calls the server as user (no
// token when user is empty).
func (e *Env) GraphQL(user string) graphql.Client {
	token := ""
	if user != "" {
		token = e.Issuer.Token(user)
	}
	return e.GraphQLWithToken(token)
}

// GraphQLWithToken returns a genqlient client that sends token as it is.
func (e *Env) GraphQLWithToken(token string) graphql.Client {
	return graphql.NewClient(e.URL+"/graphql", &http.Client{Transport: bearer{token: token}})
}

type bearer struct{ token string }

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	if b.token != "" {
		r.Header.Set("Authorization", "Bearer "+b.token)
	}
	return http.DefaultTransport.RoundTrip(r)
}
