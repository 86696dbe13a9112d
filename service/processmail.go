package service

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/tls"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"mime"
	"net"
	"net/mail"
	"net/smtp"
	"strings"
	"time"

	"github.com/casegraph/casegraph/engine"
)

// sendMail sends a mail task's message through the configured SMTP
// server, with STARTTLS when the server offers it and PLAIN
// authentication when a user is configured.
func (s *Service) sendMail(ctx context.Context, call engine.CallProcess) engine.ProcessResult {
	m := call.Mail
	cfg := s.process.SMTP
	fail := func(format string, args ...any) engine.ProcessResult {
		reason := fmt.Sprintf(format, args...)
		return engine.ProcessResult{Failed: true, Reason: reason, Output: map[string]any{"exception": map[string]any{"message": reason}}}
	}
	if cfg.Addr == "" {
		return fail("Mail cannot be sent: no mail server is configured (CASEGRAPH_SMTP_ADDR)")
	}
	from := cfg.From
	var fromAddr *engine.MailAddress
	if m.From != nil {
		fromAddr = m.From
	} else if from != "" {
		fromAddr = &engine.MailAddress{Email: from}
	}
	if fromAddr == nil {
		return fail("Mail cannot be sent: it has no sender; give the process input 'from' a value or set CASEGRAPH_SMTP_FROM")
	}
	var rcpts []string
	for _, list := range [][]engine.MailAddress{m.To, m.Cc, m.Bcc} {
		for _, a := range list {
			if _, err := mail.ParseAddress(a.Email); err != nil || strings.ContainsAny(a.Email, "\r\n<>") {
				return fail("Mail cannot be sent: '%s' is not a mail address", a.Email)
			}
			rcpts = append(rcpts, a.Email)
		}
	}
	if _, err := mail.ParseAddress(fromAddr.Email); err != nil || strings.ContainsAny(fromAddr.Email, "\r\n<>") {
		return fail("Mail cannot be sent: the sender '%s' is not a mail address", fromAddr.Email)
	}
	msg, err := buildMessage(m, *fromAddr, s.now())
	if err != nil {
		return fail("Mail cannot be sent: %v", err)
	}
	if err := s.smtpSend(ctx, fromAddr.Email, rcpts, msg); err != nil {
		return fail("Mail could not be sent through %s: %v", cfg.Addr, err)
	}
	return engine.ProcessResult{}
}

func (s *Service) smtpSend(ctx context.Context, from string, to []string, msg []byte) error {
	cfg := s.process.SMTP
	var d net.Dialer
	conn, err := d.DialContext(ctx, "tcp", cfg.Addr)
	if err != nil {
		return err
	}
	defer conn.Close()
	if dl, ok := ctx.Deadline(); ok {
		_ = conn.SetDeadline(dl)
	}
	host, _, _ := net.SplitHostPort(cfg.Addr)
	c, err := smtp.NewClient(conn, host)
	if err != nil {
		return err
	}
	defer c.Close()
	if ok, _ := c.Extension("STARTTLS"); ok {
		if err := c.StartTLS(&tls.Config{ServerName: host, MinVersion: tls.VersionTLS12}); err != nil {
			return err
		}
	}
	if cfg.User != "" {
		// PlainAuth refuses to send the password unencrypted, except to
		// localhost.
		if err := c.Auth(smtp.PlainAuth("", cfg.User, cfg.Password, host)); err != nil {
			return err
		}
	}
	if err := c.Mail(from); err != nil {
		return err
	}
	for _, r := range to {
		if err := c.Rcpt(r); err != nil {
			return err
		}
	}
	w, err := c.Data()
	if err != nil {
		return err
	}
	if _, err := w.Write(msg); err != nil {
		return err
	}
	if err := w.Close(); err != nil {
		return err
	}
	return c.Quit()
}

// buildMessage writes a MIME message: the body alone, or multipart/mixed
// with the attachments. Bcc recipients get no header.
func buildMessage(m *engine.MailMessage, from engine.MailAddress, now time.Time) ([]byte, error) {
	var b bytes.Buffer
	header := func(name, value string) {
		fmt.Fprintf(&b, "%s: %s\r\n", name, value)
	}
	addrs := func(list []engine.MailAddress) string {
		out := make([]string, len(list))
		for i, a := range list {
			out[i] = (&mail.Address{Name: a.Name, Address: a.Email}).String()
		}
		return strings.Join(out, ", ")
	}
	header("From", addrs([]engine.MailAddress{from}))
	if len(m.To) > 0 {
		header("To", addrs(m.To))
	}
	if len(m.Cc) > 0 {
		header("Cc", addrs(m.Cc))
	}
	if len(m.ReplyTo) > 0 {
		header("Reply-To", addrs(m.ReplyTo))
	}
	header("Subject", mime.QEncoding.Encode("utf-8", strings.NewReplacer("\r", " ", "\n", " ").Replace(m.Subject)))
	header("Date", now.Format(time.RFC1123Z))
	header("MIME-Version", "1.0")
	bodyType := m.BodyType
	if bodyType == "" || strings.ContainsAny(bodyType, "\r\n") {
		bodyType = "text/plain"
	}
	body := base64Lines([]byte(m.Body))
	if len(m.Attachments) == 0 {
		header("Content-Type", bodyType+"; charset=utf-8")
		header("Content-Transfer-Encoding", "base64")
		b.WriteString("\r\n" + body)
		return b.Bytes(), nil
	}
	var rnd [12]byte
	_, _ = rand.Read(rnd[:])
	boundary := "casegraph-" + hex.EncodeToString(rnd[:])
	header("Content-Type", "multipart/mixed; boundary="+boundary)
	b.WriteString("\r\n")
	fmt.Fprintf(&b, "--%s\r\nContent-Type: %s; charset=utf-8\r\nContent-Transfer-Encoding: base64\r\n\r\n%s", boundary, bodyType, body)
	for _, a := range m.Attachments {
		data, err := base64.StdEncoding.DecodeString(a.Content)
		if err != nil {
			return nil, fmt.Errorf("the content of attachment '%s' is not base64", a.FileName)
		}
		typ := a.MimeType
		if typ == "" || strings.ContainsAny(typ, "\r\n") {
			typ = "application/octet-stream"
		}
		name := mime.QEncoding.Encode("utf-8", strings.NewReplacer("\r", "", "\n", "", `"`, "'").Replace(a.FileName))
		fmt.Fprintf(&b, "--%s\r\nContent-Type: %s\r\nContent-Transfer-Encoding: base64\r\nContent-Disposition: attachment; filename=\"%s\"\r\n\r\n%s",
			boundary, typ, name, base64Lines(data))
	}
	fmt.Fprintf(&b, "--%s--\r\n", boundary)
	return b.Bytes(), nil
}

// base64Lines encodes data in lines of 76 characters, as MIME wants.
func base64Lines(data []byte) string {
	enc := base64.StdEncoding.EncodeToString(data)
	var b strings.Builder
	for len(enc) > 76 {
		b.WriteString(enc[:76] + "\r\n")
		enc = enc[76:]
	}
	b.WriteString(enc + "\r\n")
	return b.String()
}
