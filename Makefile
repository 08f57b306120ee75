# gitnexus — build, test, benchmark.
#
#   make build   bin/gitnexus with its native libraries beside it (RUNPATH exactly $ORIGIN:
#                go-kuzu's cgo flags add the module cache, scripts/runpath removes it)
#   make install bin/gitnexus and its libraries into $(PREFIX)/lib/gitnexus, linked as $(PREFIX)/bin/gitnexus
#   make demo    build, index this repository, and ask it a question
#   make test    everything CI runs: native libraries, vet, staticcheck, tests
#   make inspector  the official MCP Inspector CLI finds 0 errors and 0 warnings (--strict)
#   make bench   analyze speed and memory beside the reference tool (see bench/README.md)

GO        ?= go
VERSION   ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
BIN       := bin
KUZU_DIR   = $(shell $(GO) list -m -f '{{.Dir}}' github.com/kuzudb/go-kuzu)
KUZU_SO    = $(KUZU_DIR)/lib/dynamic/linux-amd64/libkuzu.so
ORT_SO    := lib/libonnxruntime.so.1
LDFLAGS   := -r $$ORIGIN -X github.com/gitnexus/gitnexus/cmd.Version=$(VERSION)
STATICCHECK_VERSION := v0.8.2
PREFIX    ?= $(HOME)/.local
DEMO_REPO ?= .
DEMO_QUERY ?= resolve calls across files

.PHONY: build install demo test vet staticcheck unit relocated inspector deps ort bench bench-callgraph clean

build: deps
	$(GO) build -ldflags '$(LDFLAGS)' -o $(BIN)/gitnexus .
	$(GO) run ./scripts/runpath $(BIN)/gitnexus
	cp -f $(KUZU_SO) $(BIN)/libkuzu.so
	cp -f $(ORT_SO) $(BIN)/libonnxruntime.so.1
	@echo "built $(BIN)/gitnexus (native libraries beside it)"

# install: the binary finds its libraries by RUNPATH $$ORIGIN (the real path, through the link).
install: build
	mkdir -p $(PREFIX)/lib/gitnexus $(PREFIX)/bin
	cp -f $(BIN)/gitnexus $(BIN)/libkuzu.so $(BIN)/libonnxruntime.so.1 $(PREFIX)/lib/gitnexus/
	ln -sf $(PREFIX)/lib/gitnexus/gitnexus $(PREFIX)/bin/gitnexus
	@echo "installed $(PREFIX)/bin/gitnexus"

# deps fetches Go modules and the ONNX Runtime library (from npm, no install scripts).
deps: $(ORT_SO)
	$(GO) mod download

$(ORT_SO):
	bash scripts/fetch-ort.sh lib

ort: $(ORT_SO)

demo: build
	$(BIN)/gitnexus analyze $(DEMO_REPO)
	$(BIN)/gitnexus query -r $(DEMO_REPO) "$(DEMO_QUERY)"

test: deps vet staticcheck relocated unit inspector

# relocated: the built binary, copied elsewhere and run as an unprivileged user with an
# empty environment, loads its libraries from beside itself and never a planted libkuzu.so.
relocated: build
	bash scripts/check-relocated.sh $(BIN)

# inspector: `npx @modelcontextprotocol/inspector --cli --strict bin/gitnexus mcp --method tools/list`
# and friends, clean (scripts/check-inspector.sh; the Inspector and Node 22 come from npm once).
inspector: build
	bash scripts/check-inspector.sh $(BIN)/gitnexus

vet:
	$(GO) vet ./...

staticcheck:
	$(GO) run honnef.co/go/tools/cmd/staticcheck@$(STATICCHECK_VERSION) ./...

# The judged-behaviour test (processes/judged_test.go) reads gin, flask and prometheus; CI
# fetches them (../shared/bench/corpora.sh: Go module proxy and Debian) and requires them.
JUDGED_CORPORA = gin flask prometheus
unit:
	if [ -x ../shared/bench/corpora.sh ] || [ -f ../shared/bench/corpora.sh ]; then \
	  bash ../shared/bench/corpora.sh $(JUDGED_CORPORA) >/dev/null && export GITNEXUS_REQUIRE_CORPORA=1; fi; \
	$(GO) test -count=1 ./...

bench: build
	bash bench/run.sh

# call-graph accuracy against golang.org/x/tools (see bench/callgraph/README.md)
bench-callgraph: build
	for c in gin prometheus; do bash bench/callgraph/run.sh $$c || exit 1; done

clean:
	rm -rf $(BIN)
