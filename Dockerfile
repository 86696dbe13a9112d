# syntax=docker/dockerfile:1
# CaseGraph: a static binary on a distroless, non-root base.
#   docker build -t casegraph --build-arg VERSION=v0.1.0 --build-arg COMMIT=$(git rev-parse HEAD) \
#     --build-arg BUILT_AT=$(date -u +%FT%TZ) .
# docs/operations.md describes the image and compose.yaml.

FROM golang:1.26-bookworm AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
ARG VERSION=dev
ARG COMMIT=
ARG BUILT_AT=
# SQLite is pure Go, so the binary needs no C library.
RUN CGO_ENABLED=0 go build -trimpath -buildvcs=false \
      -ldflags "-s -w -X main.version=${VERSION} -X main.commit=${COMMIT} -X main.builtAt=${BUILT_AT}" \
      -o /out/casegraph ./cmd/casegraph \
 && mkdir -p /out/data

FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /out/casegraph /usr/local/bin/casegraph
COPY --from=build --chown=nonroot:nonroot /out/data /data
USER nonroot:nonroot
ENV CASEGRAPH_ADDR=:2027 \
    CASEGRAPH_DATA_DIR=/data
EXPOSE 2027
VOLUME ["/data"]
# No shell or curl in the image: the binary checks itself (GET /status).
HEALTHCHECK --interval=15s --timeout=5s --start-period=20s --retries=3 \
  CMD ["/usr/local/bin/casegraph", "health"]
ENTRYPOINT ["/usr/local/bin/casegraph"]
CMD ["serve"]
