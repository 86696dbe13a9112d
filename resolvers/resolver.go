// Package resolvers implements the GraphQL schema on top of package service.
// Resolvers are thin: they turn arguments into service calls and service
// values into model types; who may do what is decided in service.
package resolvers

import "github.com/casegraph/casegraph/service"

// Resolver is the root resolver; gqlgen never rewrites this file.
type Resolver struct {
	Service *service.Service
}
