# typeward: `make run` starts it, `make test` proves it.
GO      ?= go
BIN     := bin/typeward
# Two modules in one workspace (go.work): the server and verify, which
# routers import alone.
PKGS    := ./... ./verify/...
FUZZTIME ?= 30s
# Fuzzed briefly by `make test`: the composition parser, the schema loader,
# the checker, the checker's pattern inclusion, the witness search, authorization_details through the real
# token endpoint, RFC 8785 canonicalisation, the request reader of verify,
# the router's reading of upstream answers and SSE streams, the
# authorization endpoint, registration, redirect URI matching, client ID
# metadata documents, DPoP proofs and JWKs.
FUZZ_BRIEF := ./internal/composition:FuzzParse ./internal/schema:FuzzParse \
	./internal/compat:FuzzCheck ./internal/compat:FuzzPatternIncluded ./internal/witness:FuzzSearch \
	./internal/server:FuzzTokenAuthorizationDetails ./verify/jcs:FuzzCanonicalize ./verify:FuzzToolName \
	./internal/route:FuzzExchangeRewrite ./internal/route:FuzzCheckStrict ./internal/route:FuzzEventReader \
	./internal/oauth:FuzzAuthorize ./internal/oauth:FuzzRegister ./internal/clients:FuzzMatchRedirectURI \
	./internal/cimd:FuzzParse ./verify/dpop:FuzzCheck ./verify/jwk:FuzzParse
# A count, not a duration: with a duration, Go 1.26's fuzz coordinator can
# fail a target with "context deadline exceeded" at the deadline having
# found nothing (go.dev/issue/75804, fixed in Go 1.27); seen here.
FUZZ_BRIEF_TIME ?= 20000x

.PHONY: help build run test bench fuzz lint clean

help: ## list the targets
	@grep -E '^[a-z]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  %-8s %s\n", $$1, $$2}'

build: ## build bin/typeward
	$(GO) build -o $(BIN) ./cmd/typeward

run: build ## start the server: the embedded default (in-memory, examples loaded, demo client printed)
	DATABASE_URL= ./$(BIN) serve

test: ## every test with -race, every benchmark once (so none rots), then a brief fuzz of the parsers and the checker
	@$(GO) run ./internal/store/postgres/pgtest/probe
	$(GO) test -race -count=1 $(PKGS)
	$(GO) test -run '^$$' -bench . -benchtime 1x $(PKGS)
	@for t in $(FUZZ_BRIEF); do \
	  $(GO) test -run '^$$' -fuzz "^$${t#*:}$$" -fuzztime $(FUZZ_BRIEF_TIME) $${t%:*} || exit 1; \
	done

bench: ## every benchmark, once each
	$(GO) test -run '^$$' -bench . -benchmem $(PKGS)

fuzz: ## run each fuzz target for FUZZTIME
	@for pkg in $$($(GO) list $(PKGS)); do \
	  for f in $$($(GO) test -list '^Fuzz' $$pkg | grep '^Fuzz'); do \
	    $(GO) test -run '^$$' -fuzz "^$$f$$" -fuzztime $(FUZZTIME) $$pkg || exit 1; \
	  done; \
	done

STATICCHECK ?= honnef.co/go/tools/cmd/staticcheck@v0.8.2

lint: ## gofmt, go vet and staticcheck (fetched from the Go module proxy)
	@test -z "$$(gofmt -l .)" || (gofmt -l .; exit 1)
	$(GO) vet $(PKGS)
	$(GO) run $(STATICCHECK) $(PKGS)

clean: ## remove build output
	rm -rf bin
