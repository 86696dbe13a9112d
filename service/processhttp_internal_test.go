package service

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/casegraph/casegraph/engine"
)

func TestHostAllow(t *testing.T) {
	none := newHostAllow(nil)
	if !none.allows("example.com", "443") || !none.allows("127.0.0.1", "80") || none.allows("169.254.169.254", "80") || none.allows("fe80::1", "80") {
		t.Error("an empty allow-list must allow all but link-local addresses")
	}
	list := newHostAllow([]string{" API.example.com ", "*.internal:8443", "127.0.0.1"})
	for _, tc := range []struct {
		host, port string
		want       bool
	}{
		{"api.example.com", "443", true},
		{"api.example.com.", "80", true},
		{"www.example.com", "443", false},
		{"svc.internal", "8443", true},
		{"svc.internal", "80", false},
		{"internal", "8443", false},
		{"127.0.0.1", "1234", true},
		{"169.254.169.254", "80", false},
	} {
		if got := list.allows(tc.host, tc.port); got != tc.want {
			t.Errorf("allows(%s, %s) = %v, want %v", tc.host, tc.port, got, tc.want)
		}
	}
}

func TestHTTPCallBounds(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/big" {
			_, _ = w.Write([]byte(strings.Repeat("x", 2048)))
			return
		}
		w.Header().Set("X-Answer", "42")
		_, _ = w.Write([]byte("plain text"))
	}))
	defer srv.Close()
	s := New(nil, Config{Process: ProcessConfig{MaxResponseBytes: 1024, Timeout: time.Second}})
	call := func(url string) engine.ProcessResult {
		return s.httpCall(context.Background(), engine.CallProcess{CaseID: "c", TaskID: "t", CallID: "k", HTTP: &engine.HTTPRequest{Method: "GET", URL: url}})
	}
	if res := call(srv.URL + "/big"); !res.Failed || !strings.Contains(res.Reason, "larger than 1024 bytes") {
		t.Errorf("big response: %+v", res)
	}
	res := call(srv.URL + "/small?secret=x")
	if res.Failed || res.StatusCode != 200 || res.Output["responsePayload"] != "plain text" || res.Output["responseMessage"] != "OK" {
		t.Errorf("small response: %+v", res)
	}
	if h, _ := res.Output["responseHeaders"].(map[string]any); h["X-Answer"] != "42" {
		t.Errorf("headers = %v", res.Output["responseHeaders"])
	}
	if res := call("ftp://example.com/x"); !res.Failed || !strings.Contains(res.Reason, "not an http or https URL") {
		t.Errorf("ftp: %+v", res)
	}
	if res := call("http://169.254.169.254/latest"); !res.Failed || !strings.Contains(res.Reason, "not allowed") {
		t.Errorf("metadata address: %+v", res)
	}
	limited := New(nil, Config{Process: ProcessConfig{AllowHosts: []string{"api.example.com"}}})
	res = limited.httpCall(context.Background(), engine.CallProcess{HTTP: &engine.HTTPRequest{Method: "GET", URL: srv.URL}})
	if !res.Failed || !strings.Contains(res.Reason, "not in CASEGRAPH_HTTP_ALLOW") {
		t.Errorf("host outside the allow-list: %+v", res)
	}
}
