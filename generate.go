// Package casegraph holds the generators of the CaseGraph module; the server
// itself is cmd/casegraph. `go generate ./...` rewrites the gqlgen output in
// graph/ and model/ and the genqlient test client in graph/client/.
package casegraph

//go:generate go tool gqlgen generate --config gqlgen.yml
//go:generate go tool genqlient graph/client/genqlient.yaml
