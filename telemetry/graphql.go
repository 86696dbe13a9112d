package telemetry

import (
	"context"
	"time"

	"github.com/99designs/gqlgen/graphql"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"
)

// GraphQLMetrics is a gqlgen extension that counts operations by name and
// outcome, times them, and counts the errors of their responses by
// extensions.code. An operation refused before it runs (a document that
// does not parse or validate, or costs too much) never reaches it: the
// HTTP metrics count those by status.
func GraphQLMetrics(m *Metrics) graphql.HandlerExtension { return gqlMetrics{m} }

type gqlMetrics struct{ m *Metrics }

func (gqlMetrics) ExtensionName() string                   { return "CaseGraphMetrics" }
func (gqlMetrics) Validate(graphql.ExecutableSchema) error { return nil }
func (e gqlMetrics) InterceptResponse(ctx context.Context, next graphql.ResponseHandler) *graphql.Response {
	start := time.Now()
	resp := next(ctx)
	name := e.m.gqlNames.label(operationName(ctx))
	outcome := "ok"
	if resp != nil && len(resp.Errors) > 0 {
		outcome = "error"
		for _, err := range resp.Errors {
			e.m.gqlErrors.WithLabelValues(name, errorCode(err.Extensions["code"])).Inc()
		}
	}
	e.m.gqlOperations.WithLabelValues(name, outcome).Inc()
	e.m.gqlDuration.WithLabelValues(name).Observe(time.Since(start).Seconds())
	return resp
}

// operationName is the name of the operation running in ctx, or "".
func operationName(ctx context.Context) string {
	if !graphql.HasOperationContext(ctx) {
		return ""
	}
	oc := graphql.GetOperationContext(ctx)
	if oc.OperationName != "" {
		return oc.OperationName
	}
	if oc.Operation != nil {
		return oc.Operation.Name
	}
	return ""
}

// GraphQLTracing is a gqlgen extension that gives each GraphQL operation a
// span, and each root field (a query or mutation the client asked for) a
// child span: nested fields load through batched loaders, whose SQL spans
// hang under the operation.
func GraphQLTracing(tp trace.TracerProvider) graphql.HandlerExtension {
	return gqlTracing{tracer: tp.Tracer(instrumentation)}
}

type gqlTracing struct{ tracer trace.Tracer }

func (gqlTracing) ExtensionName() string                   { return "CaseGraphTracing" }
func (gqlTracing) Validate(graphql.ExecutableSchema) error { return nil }

func (e gqlTracing) InterceptResponse(ctx context.Context, next graphql.ResponseHandler) *graphql.Response {
	name, kind := operationName(ctx), "operation"
	if graphql.HasOperationContext(ctx) {
		if op := graphql.GetOperationContext(ctx).Operation; op != nil {
			kind = string(op.Operation)
		}
	}
	spanName := "graphql " + kind
	if name != "" {
		spanName += " " + truncate(name, 100)
	}
	ctx, span := e.tracer.Start(ctx, spanName, trace.WithAttributes(
		attribute.String("graphql.operation.type", kind), attribute.String("graphql.operation.name", truncate(name, 100))))
	defer span.End()
	resp := next(ctx)
	if resp != nil && len(resp.Errors) > 0 {
		span.SetStatus(codes.Error, truncate(resp.Errors[0].Message, 200))
		for _, err := range resp.Errors {
			span.AddEvent("graphql.error", trace.WithAttributes(attribute.String("message", truncate(err.Message, 200)),
				attribute.String("code", errorCode(err.Extensions["code"]))))
		}
	}
	return resp
}

func (e gqlTracing) InterceptField(ctx context.Context, next graphql.Resolver) (any, error) {
	fc := graphql.GetFieldContext(ctx)
	if fc == nil || (fc.Object != "Query" && fc.Object != "Mutation") {
		return next(ctx)
	}
	ctx, span := e.tracer.Start(ctx, "graphql.field "+fc.Object+"."+fc.Field.Name,
		trace.WithAttributes(attribute.String("graphql.field.path", fc.Path().String())))
	defer span.End()
	res, err := next(ctx)
	if err != nil {
		span.SetStatus(codes.Error, truncate(err.Error(), 200))
	}
	return res, err
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n]
}
