package server

import (
	"encoding/json"
	"errors"
	"io"
	"mime"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/casegraph/casegraph/service"
)

// Development sign-in lets the inbox page offer the users of the tenants
// and sign in as one of them with a token the development key signs, so a
// newcomer needs no `casegraph token` and no pasting. It exists only with
// --dev: the routes are not registered otherwise, and the service refuses
// as well.
const (
	devUsersPath = "/inbox/dev/users"
	devTokenPath = "/inbox/dev/token"
	// devTokenTTL is a working day: shorter than `casegraph token`'s
	// default, since a browser keeps it.
	devTokenTTL = 8 * time.Hour
	// maxDevTokenBody bounds the request: a tenant and a user id.
	maxDevTokenBody = 4 << 10
)

func (s *Server) registerDevSignIn(mux *http.ServeMux) {
	mux.Handle("GET "+devUsersPath, s.devOnly(http.HandlerFunc(s.devUsers)))
	mux.Handle("POST "+devTokenPath, s.devOnly(http.HandlerFunc(s.devToken)))
}

// devOnly answers only requests whose Host is a loopback name or an IP
// address. A page of another site that rebinds its own DNS name to this
// server sends that name as Host, so it can neither list the users nor
// read a token; CORS (development mode allows local origins only) keeps
// other origins' scripts from reading the answers.
func (s *Server) devOnly(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !localHost(r.Host) {
			writeText(w, http.StatusForbidden, "Development sign-in answers only at localhost or an IP address, not at "+
				truncate(r.Host, 100)+"; use casegraph token USERID")
			return
		}
		w.Header().Set("Cache-Control", "no-store")
		w.Header().Set("X-Content-Type-Options", "nosniff")
		next.ServeHTTP(w, r)
	})
}

func localHost(hostport string) bool {
	host := hostport
	if h, _, err := net.SplitHostPort(hostport); err == nil {
		host = h
	}
	host = strings.ToLower(strings.TrimSuffix(host, "."))
	return host == "localhost" || strings.HasSuffix(host, ".localhost") || net.ParseIP(host) != nil
}

func truncate(v string, n int) string {
	if len(v) > n {
		return v[:n] + "…"
	}
	return v
}

type devUser struct {
	UserID  string   `json:"userId"`
	Name    string   `json:"name,omitempty"`
	Roles   []string `json:"roles"`
	IsOwner bool     `json:"isOwner"`
}

type devTenant struct {
	Name  string    `json:"name"`
	Users []devUser `json:"users"`
}

// devUsers lists the enabled users of enabled tenants, grouped by tenant.
func (s *Server) devUsers(w http.ResponseWriter, r *http.Request) {
	accounts, more, err := s.svc.DevAccounts(r.Context())
	if err != nil {
		s.devError(w, r, err)
		return
	}
	tenants := []devTenant{}
	for _, a := range accounts {
		if len(tenants) == 0 || tenants[len(tenants)-1].Name != a.Tenant {
			tenants = append(tenants, devTenant{Name: a.Tenant, Users: []devUser{}})
		}
		t := &tenants[len(tenants)-1]
		t.Users = append(t.Users, devUser{UserID: a.UserID, Name: a.Name, Roles: a.Roles, IsOwner: a.IsOwner})
	}
	writeJSON(w, http.StatusOK, map[string]any{"tenants": tenants, "more": more})
}

// devToken mints a token for an enabled user of an enabled tenant.
func (s *Server) devToken(w http.ResponseWriter, r *http.Request) {
	// A JSON body makes a cross-origin request need a preflight, which
	// only local origins pass.
	if mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type")); err != nil || mt != "application/json" {
		writeText(w, http.StatusUnsupportedMediaType, "Development sign-in takes a JSON body: {\"tenant\": \"...\", \"userId\": \"...\"}")
		return
	}
	var in struct {
		Tenant string `json:"tenant"`
		UserID string `json:"userId"`
	}
	dec := json.NewDecoder(http.MaxBytesReader(w, r.Body, maxDevTokenBody))
	dec.DisallowUnknownFields()
	err := dec.Decode(&in)
	if err == nil && dec.Decode(&struct{}{}) != io.EOF {
		err = errors.New("one JSON object only")
	}
	var tooLarge *http.MaxBytesError
	switch {
	case errors.As(err, &tooLarge):
		writeText(w, http.StatusRequestEntityTooLarge, "Development sign-in takes at most 4 KiB")
		return
	case err != nil:
		writeText(w, http.StatusBadRequest, "Development sign-in takes {\"tenant\": \"...\", \"userId\": \"...\"}: "+err.Error())
		return
	}
	u, err := s.svc.DevAccount(r.Context(), in.Tenant, in.UserID)
	if err != nil {
		s.devError(w, r, err)
		return
	}
	tok, err := s.dev.Token(u.UserID, time.Now(), devTokenTTL)
	if err != nil {
		s.devError(w, r, err)
		return
	}
	s.logger.InfoContext(r.Context(), "development sign-in", "user", u.UserID, "tenant", u.Tenant)
	writeJSON(w, http.StatusOK, map[string]any{"token": tok, "userId": u.UserID, "tenant": u.Tenant,
		"expiresIn": int(devTokenTTL / time.Second)})
}

func (s *Server) devError(w http.ResponseWriter, r *http.Request, err error) {
	status := http.StatusInternalServerError
	switch service.KindOf(err) {
	case service.NotFound:
		status = http.StatusNotFound
	case service.Invalid:
		status = http.StatusBadRequest
	case service.NotAllowed:
		status = http.StatusForbidden
	case service.Unavailable:
		status = http.StatusServiceUnavailable
	default:
		s.logger.ErrorContext(r.Context(), "development sign-in", "err", err)
	}
	writeText(w, status, service.Message(err))
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}
