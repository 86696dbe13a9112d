package rest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"mime"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/casegraph/casegraph/service"
)

// maxBody bounds a JSON request body.
const maxBody = 10 << 20

// pekkoContentType renders a Content-Type as the reference engine's HTTP
// library does in its messages: the media type in lower case, each
// parameter after "; ", the charset's name in upper case. One it cannot
// parse is shown as sent.
func pekkoContentType(ct string) string {
	mt, params, err := mime.ParseMediaType(ct)
	if err != nil {
		return ct
	}
	var b strings.Builder
	b.WriteString(mt)
	for _, k := range slices.Sorted(maps.Keys(params)) {
		v := params[k]
		if k == "charset" {
			v = strings.ToUpper(v)
		}
		b.WriteString("; " + k + "=" + v)
	}
	return b.String()
}

// checkContentType refuses a request whose Content-Type is none of
// accepted with the reference engine's message, which names the first; a
// request without one passes, for hand-written calls.
func checkContentType(op string, r *http.Request, accepted ...string) error {
	ct := r.Header.Get("Content-Type")
	if ct == "" {
		return nil
	}
	if mt, _, err := mime.ParseMediaType(ct); err == nil && slices.Contains(accepted, mt) {
		return nil
	}
	return service.Ef(op, service.Invalid,
		"The request content type Some(%s) is not supported, provide one of Set(%s)", pekkoContentType(ct), accepted[0])
}

// decodeJSON reads the body of r into v the way the reference engine does:
// only application/json is accepted, unknown fields are rejected, and any
// failure is a 400 "The request content was malformed: …". A missing
// Content-Type is taken as JSON, for hand-written calls.
func decodeJSON(r *http.Request, v any) error {
	const op = "rest.decodeJSON"
	if err := checkContentType(op, r, "application/json"); err != nil {
		return err
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, maxBody+1))
	if err != nil {
		return service.Ef(op, service.Invalid, "The request content was malformed: %v", err)
	}
	if len(body) > maxBody {
		return service.Ef(op, service.Invalid, "The request content was malformed: the body is larger than %d bytes", maxBody)
	}
	if hasNUL(body) {
		return service.E(op, service.Invalid, "The request content was malformed: it contains a NUL character, which no value may hold")
	}
	if !service.JSONValuesWithin(body, service.MaxJSONValues) {
		return service.Ef(op, service.Invalid, "The request content was malformed: it holds more than %d JSON values", service.MaxJSONValues)
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	// Numbers keep their text: case file types tell 5 (an integer) from
	// 5.0 (a double), as the reference engine's parser does.
	dec.UseNumber()
	if err := dec.Decode(v); err != nil {
		return service.E(op, service.Invalid, "The request content was malformed: "+jsonProblem(err))
	}
	if dec.More() {
		return service.E(op, service.Invalid, "The request content was malformed: unexpected data after the JSON value")
	}
	return nil
}

// jsonProblem phrases a decoding error for the caller.
func jsonProblem(err error) string {
	var syntax *json.SyntaxError
	var typ *json.UnmarshalTypeError
	var svc *service.Error
	switch {
	case errors.As(err, &svc):
		return svc.Msg
	case errors.Is(err, io.EOF):
		return "the body is empty"
	case errors.As(err, &syntax):
		return fmt.Sprintf("invalid JSON at offset %d: %v", syntax.Offset, syntax)
	case errors.As(err, &typ):
		field := typ.Field
		if field == "" {
			field = "the body"
		}
		return fmt.Sprintf("%s must be %s, not %s", field, jsonTypeName(typ.Type.Kind().String()), typ.Value)
	}
	msg := err.Error()
	if f, ok := strings.CutPrefix(msg, "json: unknown field "); ok {
		return "Unrecognized field " + f
	}
	return strings.TrimPrefix(msg, "json: ")
}

func jsonTypeName(goKind string) string {
	switch goKind {
	case "string":
		return "a string"
	case "bool":
		return "a boolean"
	case "slice", "array":
		return "an array"
	case "map", "struct", "ptr":
		return "an object"
	}
	return "a number"
}

// writeJSON answers v with the exact Content-Type the reference engine's
// clients compare: application/json, no charset.
func writeJSON(w http.ResponseWriter, status int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		writeText(w, http.StatusInternalServerError, "There was an internal server error.")
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(b)
}

// nullable is a JSON field that tells "absent" from "null".
type nullable[T any] struct {
	Set   bool // the field was in the body
	Null  bool // its value was null
	Value T
}

func (n *nullable[T]) UnmarshalJSON(b []byte) error {
	n.Set = true
	if string(b) == "null" {
		n.Null = true
		return nil
	}
	return json.Unmarshal(b, &n.Value)
}

// ptr returns a pointer to the value when it was given and not null.
func (n nullable[T]) ptr() *T {
	if !n.Set || n.Null {
		return nil
	}
	return &n.Value
}

func jsonUnmarshal(b []byte, v any) error { return json.Unmarshal(b, v) }

// hasNUL reports whether a JSON text holds a NUL, raw or escaped: neither
// database stores one in text.
func hasNUL(b []byte) bool {
	return bytes.IndexByte(b, 0) >= 0 || bytes.Contains(b, []byte(`\u0000`))
}

// maxPageSize bounds numberOfResults: a page is read and answered whole,
// so its size bounds the request's memory. A hundred times the default.
const maxPageSize = 100 * service.DefaultPageSize

// page reads the reference engine's offset and numberOfResults, 32-bit
// integers there. A malformed one answers the reference's 400; zero
// results answer an empty list, as the reference's take(0); both return
// ok false, the answer written. A missing or negative value is the
// default; more than maxPageSize is 400.
func page(w http.ResponseWriter, q url.Values) (offset, numberOfResults int, ok bool) {
	off, _, malformed := intParam(q, "offset", 32)
	if malformed != "" {
		writeText(w, http.StatusBadRequest, malformed)
		return 0, 0, false
	}
	n, given, malformed := intParam(q, "numberOfResults", 32)
	switch {
	case malformed != "":
		writeText(w, http.StatusBadRequest, malformed)
		return 0, 0, false
	case given && n == 0:
		writeJSON(w, http.StatusOK, []struct{}{})
		return 0, 0, false
	case n > maxPageSize:
		writeText(w, http.StatusBadRequest, fmt.Sprintf("numberOfResults %d is over the limit of %d; page through with offset", n, maxPageSize))
		return 0, 0, false
	}
	return int(off), int(n), true
}

// intParam reads the optional integer query parameter name of the given
// width; an absent or empty one is (0, false). A value that is no such
// integer gives the message Pekko HTTP answers the reference engine's
// routes with.
func intParam(q url.Values, name string, bits int) (v int64, given bool, malformed string) {
	raw := q.Get(name)
	if raw == "" {
		return 0, false, ""
	}
	v, err := strconv.ParseInt(raw, 10, bits)
	if err != nil {
		return 0, false, fmt.Sprintf("The query parameter '%s' was malformed:\n'%s' is not a valid %d-bit signed integer value", name, raw, bits)
	}
	return v, true, ""
}
