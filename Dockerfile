# typeward: multi-stage build of a static binary into a distroless image.
# Build: docker build -t typeward .
FROM golang:1.26-bookworm AS build
WORKDIR /src
# Modules first, so that a source change does not refetch them.
# verify is a module of its own that go.mod replaces with ./verify.
COPY go.mod go.sum ./
COPY verify/go.mod verify/go.sum ./verify/
RUN GOWORK=off go mod download
COPY . .
RUN CGO_ENABLED=0 GOOS=linux go build -trimpath -ldflags="-s -w" -o /out/typeward ./cmd/typeward

# distroless/static: CA certificates and tzdata, no shell, no package manager.
FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /out/typeward /usr/local/bin/typeward
COPY --from=build /src/examples /examples
# 65532 is distroless's "nonroot" user; numeric so that Kubernetes'
# runAsNonRoot can verify it.
USER 65532:65532
ENV TYPEWARD_ADDR=0.0.0.0:8080 \
    TYPEWARD_REGISTRY=/examples/registry.json
EXPOSE 8080
# No shell or curl in the image: the binary checks its own /healthz.
HEALTHCHECK --interval=10s --timeout=3s --start-period=10s --retries=3 \
  CMD ["/usr/local/bin/typeward", "healthcheck", "--url", "http://127.0.0.1:8080/healthz"]
ENTRYPOINT ["/usr/local/bin/typeward"]
CMD ["serve"]
