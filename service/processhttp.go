package service

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"syscall"
	"time"

	"github.com/casegraph/casegraph/engine"
)

// hostAllow decides which hosts HTTP process calls may reach (see
// ProcessConfig.AllowHosts).
type hostAllow struct {
	patterns []string
}

func newHostAllow(patterns []string) hostAllow {
	var a hostAllow
	for _, p := range patterns {
		if p = strings.ToLower(strings.TrimSpace(p)); p != "" {
			a.patterns = append(a.patterns, p)
		}
	}
	return a
}

// allows reports whether host (a name or an address, without brackets)
// and port may be called.
func (a hostAllow) allows(host, port string) bool {
	host = strings.ToLower(strings.TrimSuffix(host, "."))
	if len(a.patterns) == 0 {
		ip := net.ParseIP(host)
		return ip == nil || !(ip.IsLinkLocalUnicast() || ip.IsLinkLocalMulticast())
	}
	for _, p := range a.patterns {
		ph, pp := p, ""
		if h, prt, err := net.SplitHostPort(p); err == nil {
			ph, pp = h, prt
		}
		if pp != "" && pp != port {
			continue
		}
		if ph == host || strings.HasPrefix(ph, "*.") && strings.HasSuffix(host, ph[1:]) {
			return true
		}
	}
	return false
}

// newProcessHTTPClient returns the client of HTTP process calls. Its
// dialer checks the address it actually connects to, so a name that
// resolves to a refused address (DNS rebinding) is refused too.
func newProcessHTTPClient(allow hostAllow, timeout time.Duration) *http.Client {
	dialer := &net.Dialer{Timeout: timeout, Control: func(network, address string, _ syscall.RawConn) error {
		host, port, err := net.SplitHostPort(address)
		if err != nil {
			return err
		}
		if len(allow.patterns) == 0 && !allow.allows(host, port) {
			return fmt.Errorf("the address %s is not allowed: add it to CASEGRAPH_HTTP_ALLOW", address)
		}
		return nil
	}}
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.DialContext = dialer.DialContext
	tr.Proxy = nil
	return &http.Client{Transport: tr, Timeout: timeout, CheckRedirect: func(req *http.Request, via []*http.Request) error {
		if len(via) >= 5 {
			return errors.New("stopped after 5 redirects")
		}
		if !allow.allows(req.URL.Hostname(), portOf(req.URL)) {
			return fmt.Errorf("the redirect to %s is not allowed: add its host to CASEGRAPH_HTTP_ALLOW", req.URL.Host)
		}
		return nil
	}}
}

func portOf(u *url.URL) string {
	if p := u.Port(); p != "" {
		return p
	}
	if u.Scheme == "https" {
		return "443"
	}
	return "80"
}

// httpCall makes an HTTP process call. Its raw output is what the
// reference engine gives its mappings: responseCode, responseMessage,
// responsePayload (JSON when the body is JSON, else text) and
// responseHeaders. A status other than 2xx, a time-out or an unreachable
// host fails the task.
func (s *Service) httpCall(ctx context.Context, call engine.CallProcess) engine.ProcessResult {
	r := call.HTTP
	fail := func(format string, args ...any) engine.ProcessResult {
		reason := fmt.Sprintf(format, args...)
		return engine.ProcessResult{Failed: true, Reason: reason, Output: map[string]any{"exception": map[string]any{"message": reason}}}
	}
	u, err := url.Parse(r.URL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fail("The HTTP call's URL '%s' is not an http or https URL", r.URL)
	}
	if !s.httpAllow.allows(u.Hostname(), portOf(u)) {
		return fail("The HTTP call to %s is not allowed: its host is not in CASEGRAPH_HTTP_ALLOW", u.Host)
	}
	var body io.Reader
	if r.Body != "" {
		body = strings.NewReader(r.Body)
	}
	req, err := http.NewRequestWithContext(ctx, r.Method, r.URL, body)
	if err != nil {
		return fail("The HTTP call cannot be made: %v", err)
	}
	for _, h := range r.Headers {
		req.Header.Add(h.Name, h.Value)
	}
	// The same key on every attempt of one call lets the target drop a
	// repeat (calls are made at least once).
	req.Header.Set("Idempotency-Key", call.CaseID+"/"+call.TaskID+"/"+call.CallID)
	resp, err := s.processHTTP.Do(req)
	if err != nil {
		var ne net.Error
		if errors.As(err, &ne) && ne.Timeout() || errors.Is(err, context.DeadlineExceeded) {
			return fail("The HTTP call %s %s timed out after %s", r.Method, redact(u), s.process.Timeout)
		}
		return fail("The HTTP call %s %s failed: %v", r.Method, redact(u), unwrapURLError(err))
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, s.process.MaxResponseBytes+1))
	if err != nil {
		return fail("The HTTP call %s %s failed while reading its response: %v", r.Method, redact(u), unwrapURLError(err))
	}
	if int64(len(data)) > s.process.MaxResponseBytes {
		return fail("The response of the HTTP call %s %s is larger than %d bytes", r.Method, redact(u), s.process.MaxResponseBytes)
	}
	headers := map[string]any{}
	for name, vs := range resp.Header {
		if len(vs) > 0 {
			headers[name] = vs[0]
		}
	}
	var payload any = string(data)
	if len(data) > 0 {
		dec := json.NewDecoder(bytes.NewReader(data))
		dec.UseNumber()
		var v any
		if dec.Decode(&v) == nil && !dec.More() {
			payload = v
		}
	}
	message := strings.TrimSpace(strings.TrimPrefix(resp.Status, fmt.Sprint(resp.StatusCode)))
	out := map[string]any{"responseCode": int64(resp.StatusCode), "responseMessage": message, "responsePayload": payload, "responseHeaders": headers}
	res := engine.ProcessResult{StatusCode: resp.StatusCode, Output: out}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		res.Failed = true
		res.Reason = fmt.Sprintf("The HTTP call %s %s answered %s", r.Method, redact(u), resp.Status)
		out["exception"] = map[string]any{"message": res.Reason}
	}
	return res
}

// redact drops the query and user information of a URL for messages that
// end up in the case's history.
func redact(u *url.URL) string {
	c := *u
	c.User, c.RawQuery, c.Fragment = nil, "", ""
	return c.String()
}

func unwrapURLError(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err
	}
	return err
}
