package resolvers

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"mime"
	"net/http"
	"net/url"

	"github.com/99designs/gqlgen/graphql"
	"github.com/99designs/gqlgen/graphql/handler"
	"github.com/99designs/gqlgen/graphql/handler/extension"
	"github.com/99designs/gqlgen/graphql/handler/lru"
	"github.com/99designs/gqlgen/graphql/handler/transport"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/gqlerror"
	"github.com/vektah/gqlparser/v2/parser"

	"github.com/casegraph/casegraph/auth"
	"github.com/casegraph/casegraph/graph"
	"github.com/casegraph/casegraph/model"
	"github.com/casegraph/casegraph/service"
)

// MaxDepth is the default deepest selection nesting a query may have.
const MaxDepth = 12

// Authenticator verifies the caller of a request.
type Authenticator interface {
	Authenticate(r *http.Request) (auth.Identity, error)
}

// NewHandler returns the GraphQL endpoint over svc. A request without a
// token reaches the resolvers anonymously (only platform version and health
// answer it); a request with a bad token is refused with 401 and a GraphQL
// error body; an unreachable identity provider gives 503.
// exts are added after the built-in ones (metrics, tracing).
func NewHandler(svc *service.Service, authn Authenticator, logger *slog.Logger, lim Limits, exts ...graphql.HandlerExtension) http.Handler {
	lim = lim.withDefaults()
	srv := handler.New(graph.NewExecutableSchema(graph.Config{Resolvers: &Resolver{Service: svc}}))
	live := newLiveConns(svc, authn, lim)
	// First: an upgrade request is a GET too.
	srv.AddTransport(websocketTransport(live))
	srv.AddTransport(transport.Options{})
	srv.AddTransport(transport.GET{})
	srv.AddTransport(transport.POST{})
	srv.SetQueryCache(lru.New[*ast.QueryDocument](1000))
	srv.Use(extension.Introspection{})
	srv.Use(costLimit{lim: lim})
	for _, e := range exts {
		srv.Use(e)
	}
	srv.Use(perEvent(svc, lim.MaxResponseBytes))
	srv.AroundOperations(operationRules(svc, lim))
	srv.AroundFields(chargeHeavyFields(lim.MaxResponseBytes))
	srv.SetErrorPresenter(errorPresenter(logger))
	srv.SetRecoverFunc(func(ctx context.Context, p any) error {
		logger.ErrorContext(ctx, "resolver panic", "panic", fmt.Sprint(p))
		return &service.Error{Op: "graphql", Kind: service.Internal, Err: fmt.Errorf("panic: %v", p)}
	})
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "" {
			who, err := authn.Authenticate(r)
			if err != nil {
				writeAuthError(w, r, svc, err)
				return
			}
			r = r.WithContext(auth.NewContext(r.Context(), who))
		}
		if r.Body != nil && r.Method == http.MethodPost {
			body, err := readBody(r)
			if err != nil {
				writeGraphQLError(w, http.StatusRequestEntityTooLarge, "BAD_USER_INPUT", "The request body is too large or could not be read")
				return
			}
			if r.Header.Get("Authorization") == "" && len(body) > 2*lim.MaxQueryBytes {
				// Without a token only the version and health answer,
				// whose requests are small: nothing larger is decoded.
				writeGraphQLError(w, http.StatusRequestEntityTooLarge, "BAD_USER_INPUT",
					fmt.Sprintf("A request without a token may be at most %d bytes", 2*lim.MaxQueryBytes))
				return
			}
			if bytes.IndexByte(body, 0) >= 0 || bytes.Contains(body, []byte(`\u0000`)) {
				writeGraphQLError(w, http.StatusBadRequest, "BAD_USER_INPUT", "The request contains a NUL character, which no value may hold")
				return
			}
			if !service.JSONValuesWithin(body, service.MaxJSONValues) {
				writeGraphQLError(w, http.StatusBadRequest, "BAD_USER_INPUT",
					fmt.Sprintf("The request holds more than %d JSON values", service.MaxJSONValues))
				return
			}
			if msg := undecodable(r.Header.Get("Content-Type"), body); msg != "" {
				writeGraphQLError(w, http.StatusBadRequest, "BAD_USER_INPUT", msg)
				return
			}
			r.Body = io.NopCloser(bytes.NewReader(body))
		}
		if isUpgrade(r) {
			live.serve(w, r, srv)
			return
		}
		if r.Method == http.MethodGet && getMutation(r.URL.Query()) {
			writeGraphQLError(w, http.StatusNotAcceptable, "BAD_USER_INPUT", "GET requests only allow query operations")
			return
		}
		srv.ServeHTTP(w, r.WithContext(requestScope(r.Context(), svc, lim.MaxResponseBytes)))
	})
}

// operationRules prepares every operation by its kind and transport.
//
// A query or mutation over a live WebSocket gets the dataloaders and the
// budgets an HTTP request gets from the handler (it had none, and failed
// as an internal error after a mutation had committed). A mutation reads
// case states without the state budget: it reads the cases it changes,
// and a budget spent after its commit would report a change made as
// refused. A subscription is refused at once over plain HTTP (it waited
// for its first event until the request's deadline, holding an in-flight
// slot; 64 of them made the server answer 503) and when it selects more
// than one root field (gqlparser's rule counts a field aliased twice
// once, and gqlgen then failed it as an internal error).
func operationRules(svc *service.Service, lim Limits) graphql.OperationMiddleware {
	return func(ctx context.Context, next graphql.OperationHandler) graphql.ResponseHandler {
		oc := graphql.GetOperationContext(ctx)
		if oc == nil || oc.Operation == nil {
			return next(ctx)
		}
		_, live := ctx.Value(liveConnKey{}).(*liveConn)
		if oc.Operation.Operation == ast.Subscription {
			return subscriptionRules(ctx, oc, live, next)
		}
		// A mutation's reads are the last word on its context's budget.
		withKind := func(ctx context.Context) context.Context {
			if oc.Operation.Operation == ast.Mutation {
				return service.WithStateBudget(ctx, 0)
			}
			return ctx
		}
		if !live {
			return next(withKind(ctx))
		}
		// Over a live connection no server deadline, loaders or budgets
		// came with the request: the operation gets its own.
		ctx, cancel := context.WithTimeout(requestScope(ctx, svc, lim.MaxResponseBytes), lim.OperationTimeout)
		ctx = withKind(ctx)
		respond := next(ctx)
		answered := false
		return func(rctx context.Context) *graphql.Response {
			defer cancel()
			resp := respond(rctx)
			first := !answered
			answered = true
			if resp == nil && first && ctx.Err() != nil {
				// Past the deadline gqlgen answers nothing; say why.
				return &graphql.Response{Errors: gqlerror.List{{Message: "The request was cancelled or timed out",
					Extensions: map[string]any{"code": codeOf[service.Unavailable]}}}}
			}
			return resp
		}
	}
}

func subscriptionRules(ctx context.Context, oc *graphql.OperationContext, live bool, next graphql.OperationHandler) graphql.ResponseHandler {
	refuse := func(msg string) graphql.ResponseHandler {
		return graphql.OneShot(&graphql.Response{Errors: gqlerror.List{{Message: msg, Extensions: map[string]any{"code": codeOf[service.Invalid]}}}})
	}
	if !live {
		return refuse("Subscriptions are served over a WebSocket at /graphql (graphql-transport-ws), not over plain HTTP")
	}
	if n := len(graphql.CollectFields(oc, oc.Operation.SelectionSet, []string{"Subscription"})); n != 1 {
		return refuse(fmt.Sprintf("A subscription selects exactly one root field; this one selects %d", n))
	}
	return next(ctx)
}

// readBody reads r's body whole; one the server has read already (its
// middleware buffers every body) is taken as it is, not copied.
func readBody(r *http.Request) ([]byte, error) {
	if whole, ok := r.Body.(interface{ Bytes() ([]byte, error) }); ok {
		return whole.Bytes()
	}
	return io.ReadAll(r.Body)
}

// getMutation reports whether the query of a GET request selects another
// operation than a query. gqlgen refuses it too, but without
// extensions.code; a document that does not parse is left to gqlgen.
func getMutation(params url.Values) bool {
	doc, err := parser.ParseQuery(&ast.Source{Input: params.Get("query")})
	if err != nil {
		return false
	}
	op := doc.Operations.ForName(params.Get("operationName"))
	return op != nil && op.Operation != ast.Query
}

// undecodable says why a POST body is not a GraphQL request, or "". gqlgen
// answers these without extensions.code and with the whole body in the
// message; a batch array is one of them. The body's shape is checked
// without building its variables, which gqlgen decodes next: decoding them
// twice held a large body's values twice.
func undecodable(contentType string, body []byte) string {
	if mt, _, err := mime.ParseMediaType(contentType); err != nil || mt != "application/json" {
		return fmt.Sprintf("The request content type %s is not supported, provide application/json", contentType)
	}
	var shape struct {
		Query         *string      `json:"query"`
		OperationName *string      `json:"operationName"`
		Variables     objectOrNull `json:"variables"`
		Extensions    objectOrNull `json:"extensions"`
	}
	if err := json.Unmarshal(body, &shape); err != nil {
		return "The request body is not a GraphQL request: " + err.Error()
	}
	return ""
}

// objectOrNull accepts a JSON object or null and keeps nothing of it.
type objectOrNull struct{}

func (objectOrNull) UnmarshalJSON(b []byte) error {
	if len(b) > 0 && (b[0] == '{' || string(b) == "null") {
		return nil
	}
	return errors.New("variables and extensions must be JSON objects")
}

// caller returns the verified caller, or UNAUTHENTICATED.
func caller(ctx context.Context) (auth.Identity, error) {
	who, ok := auth.FromContext(ctx)
	if !ok {
		return auth.Identity{}, service.E("graphql", service.Unauthenticated, "Authorization token is missing")
	}
	return who, nil
}

// nullIfNotFound turns NotFound into a null result: a nullable field asking
// for something the caller may not see answers null, not an error.
func nullIfNotFound(err error) error {
	if service.KindOf(err) == service.NotFound {
		return nil
	}
	return err
}

// codeOf maps each kind of service error to the GraphQL extensions.code.
// Every kind has a code (TestCodeOfEveryKind). NotModified reaches a
// client only where a mutation does not turn it into a result of its own
// (see transitionResult).
var codeOf = map[service.Kind]string{
	service.Unauthenticated: "UNAUTHENTICATED",
	service.NotAllowed:      "FORBIDDEN",
	service.NotFound:        "NOT_FOUND",
	service.Invalid:         "BAD_USER_INPUT",
	service.InvalidState:    "INVALID_STATE",
	service.Conflict:        "CONFLICT",
	service.Unavailable:     "UNAVAILABLE",
	service.Internal:        "INTERNAL_SERVER_ERROR",
	service.NotModified:     "NOT_MODIFIED",
}

// errorPresenter sets extensions.code on every error. Errors gqlgen raises
// itself (parse, validation, limits) keep their own code; only internal
// errors are logged, and their cause never reaches the client.
func errorPresenter(logger *slog.Logger) graphql.ErrorPresenterFunc {
	return func(ctx context.Context, err error) *gqlerror.Error {
		gqlErr := graphql.DefaultErrorPresenter(ctx, err)
		var ie *model.InputError
		if errors.As(err, &ie) {
			gqlErr.Message = ie.Msg
			gqlErr.Extensions = map[string]any{"code": codeOf[service.Invalid]}
			return gqlErr
		}
		var se *service.Error
		if !errors.As(err, &se) {
			if gqlErr.Extensions == nil || gqlErr.Extensions["code"] == nil {
				var gerr *gqlerror.Error
				if errors.As(err, &gerr) && gerr.Err == nil {
					return gqlErr // a gqlgen error without a cause: a bad request
				}
				logger.ErrorContext(ctx, "graphql request failed", "err", err)
				gqlErr.Message = service.Message(err)
				gqlErr.Extensions = map[string]any{"code": codeOf[service.Internal]}
			}
			return gqlErr
		}
		if se.Kind == service.Internal {
			logger.ErrorContext(ctx, "graphql request failed", "err", err)
		}
		gqlErr.Message = service.Message(err)
		if gqlErr.Extensions == nil {
			gqlErr.Extensions = map[string]any{}
		}
		gqlErr.Extensions["code"] = codeOf[se.Kind]
		var invalid *service.InvalidDefinitionError
		if errors.As(err, &invalid) && se.Kind == service.Invalid {
			gqlErr.Extensions["problems"] = invalid.Problems
		}
		return gqlErr
	}
}

// writeAuthError answers a bad token before any resolver runs, in the
// GraphQL response shape, as service classifies it: 401, or 503 with
// Retry-After when the identity provider could not be reached.
func writeAuthError(w http.ResponseWriter, r *http.Request, svc *service.Service, err error) {
	err = svc.AuthFailure(r.Context(), err)
	status := http.StatusUnauthorized
	if service.KindOf(err) == service.Unavailable {
		w.Header().Set("Retry-After", "5")
		status = http.StatusServiceUnavailable
	}
	writeGraphQLError(w, status, codeOf[service.KindOf(err)], service.Message(err))
}

// writeGraphQLError answers a request refused before any resolver ran, in
// the GraphQL response shape.
func writeGraphQLError(w http.ResponseWriter, status int, code, msg string) {
	body, _ := json.Marshal(map[string]any{"errors": []map[string]any{{
		"message": msg, "extensions": map[string]any{"code": code},
	}}})
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(body)
}

// selectionDepth returns the depth of set, giving up past limit (which also
// ends cycles through fragments, already refused by validation).
func selectionDepth(set ast.SelectionSet, depth, limit int) int {
	if depth > limit {
		return depth
	}
	deepest := depth
	for _, sel := range set {
		var d int
		switch s := sel.(type) {
		case *ast.Field:
			if len(s.SelectionSet) == 0 {
				d = depth + 1
			} else {
				d = selectionDepth(s.SelectionSet, depth+1, limit)
			}
		case *ast.InlineFragment:
			d = selectionDepth(s.SelectionSet, depth, limit)
		case *ast.FragmentSpread:
			if s.Definition != nil {
				d = selectionDepth(s.Definition.SelectionSet, depth, limit)
			}
		}
		deepest = max(deepest, d)
	}
	return deepest
}
