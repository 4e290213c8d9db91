# billar: every target sets itself up on a fresh machine (virtual environment in .venv).
SHELL := /bin/bash
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
PIP := $(PY) -m pip
STAMP := $(VENV)/.stamp-install
BUILT := $(VENV)/.stamp-build
CORE_SRC := $(wildcard physics/*.pyx physics/*.pxd rules/*.py rules/*.pxd rules/*/*.py rules/*/*.pxd) protocol/eventlog.py protocol/motion.py protocol/motion.pxd setup.py
# make run PORT=9000 (or BILLAR_HOST / BILLAR_PORT in the environment)
HOST ?= $(or $(BILLAR_HOST),127.0.0.1)
PORT ?= $(or $(BILLAR_PORT),8765)

.PHONY: run test soak bench bench-pooltool install build clean

run: build
	$(VENV)/bin/billar serve --host $(HOST) --port $(PORT)

# Two pytest runs: the browser tests drive Chromium through Playwright's sync API, whose event loop
# would stay running in the main thread and break the asyncio tests if they shared one process.
# Each run has two workers (pytest-xdist; TEST_WORKERS=0 runs in one process): most tests wait on
# sockets, timers and the browser, and every test's Redis keys, database schema and ports are its own.
TEST_WORKERS ?= 2
PYTEST := $(PY) -m pytest -q -p no:cacheprovider --timeout=600 --durations=15 -n $(TEST_WORKERS)
test: build
	rc=0; \
	$(PYTEST) -m "not browser and not soak" || rc=$$?; \
	$(PYTEST) -m "browser and not soak" || rc=$$?; \
	exit $$rc

soak: build
	$(PY) -m pytest -q -p no:cacheprovider -m soak --timeout=3600 -o addopts=""

install: $(STAMP)

$(STAMP): pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PIP) install -q --upgrade pip setuptools wheel "Cython>=3.1"
	BILLAR_NO_EXTENSIONS=1 $(PIP) install -q -e '.[dev]'
	touch $@

# Compile the Cython cores in place (incremental: only changed modules are rebuilt).
build: $(BUILT)

$(BUILT): $(STAMP) $(CORE_SRC)
	$(PY) setup.py -q build_ext --inplace -j 2
	touch $@

bench: build bench-pooltool
	$(PY) bench/physics_vs_pooltool.py

# pooltool 0.6.0 in its own environment (bench only; never a runtime dependency). 0.6.0 pins a
# Panda3D dev build that PyPI lacks: install its other requirements (pinned in
# bench/pooltool-requirements.txt), then pooltool itself with --no-deps, then check it imports
# (with HOME in a temp dir: pooltool writes ~/.config/pooltool on import). numba 0.62 needs
# Python 3.10-3.13: set PYTHON_POOLTOOL if the default python3 is newer.
PYTHON_POOLTOOL ?= $(PYTHON)
PT_VENV := .venv-pooltool
bench-pooltool: $(PT_VENV)/.stamp
$(PT_VENV)/.stamp: bench/pooltool-requirements.txt
	rm -rf $(PT_VENV)
	$(PYTHON_POOLTOOL) -m venv $(PT_VENV)
	$(PT_VENV)/bin/python -m pip install -q --upgrade pip
	$(PT_VENV)/bin/python -m pip install -q -r bench/pooltool-requirements.txt
	$(PT_VENV)/bin/python -m pip install -q --no-deps "pooltool-billiards==0.6.0"
	tmp=$$(mktemp -d) && HOME=$$tmp $(PT_VENV)/bin/python -c "import pooltool; assert pooltool.__version__ == '0.6.0', pooltool.__version__" ; rc=$$? ; rm -rf $$tmp ; exit $$rc
	touch $@

clean:
	rm -rf build *.egg-info
	find physics rules protocol -name '*.so' -delete -o -name '*.c' -delete
	rm -f $(BUILT)

# ----- browser client (client_web/: TypeScript + Vite) -------------------------------------------
# `make run` builds it when a source changed; `make test` runs its unit tests (vitest) and the
# browser end-to-end tests (tests/e2e, marker `browser`) in Debian's Chromium.
CLIENT_SRC := $(shell find client_web/src -type f 2>/dev/null) client_web/index.html client_web/package.json \
	client_web/package-lock.json client_web/vite.config.ts client_web/tsconfig.json
.PHONY: client client-test

client: client_web/dist/index.html

client_web/node_modules/.package-lock.json: client_web/package-lock.json
	cd client_web && npm ci --no-audit --no-fund

client_web/dist/index.html: client_web/node_modules/.package-lock.json $(CLIENT_SRC)
	cd client_web && npm run build

client-test: build client_web/node_modules/.package-lock.json
	cd client_web && npm test

/usr/bin/chromium:
	apt-get update && apt-get install -y chromium

run: client_web/dist/index.html
test: client-test client_web/dist/index.html /usr/bin/chromium

# Load test: a server with its embedded Redis on 127.0.0.1 and Locust headless for a bounded time
# (reports under var/loadtest/); fails when Locust counts failures or the server is not empty after.
LOADTEST_USERS ?= 60
LOADTEST_RATE ?= 10
LOADTEST_TIME ?= 60s
LOADTEST_PORT ?= 8799
# e.g. make loadtest LOADTEST_ARGS="--rated --accounts accounts.txt" (rated quick play between registered players)
LOADTEST_ARGS ?=
LOADTEST_STAMP := $(VENV)/.stamp-loadtest
.PHONY: loadtest capacity
loadtest: build $(LOADTEST_STAMP)
	$(PY) loadtest/run.py --users $(LOADTEST_USERS) --spawn-rate $(LOADTEST_RATE) --time $(LOADTEST_TIME) --port $(LOADTEST_PORT) $(LOADTEST_ARGS)

# the test run includes a short Locust game (tests/loadtest)
test: $(LOADTEST_STAMP)

$(LOADTEST_STAMP): pyproject.toml $(STAMP)
	BILLAR_NO_EXTENSIONS=1 $(PIP) install -q -e '.[loadtest]'
	touch $@

# Capacity of one server process (bench/capacity.py): steps up tables until p99 passes 50 ms, with
# a Redis of the run's own on the load generator's core (the server is measured, not the disk).
# CAPACITY_ARGS replaces the options, e.g. make capacity CAPACITY_ARGS="--steps 250,500 --hold 10"
CAPACITY_ARGS ?= --private-redis
capacity: build
	$(PY) bench/capacity.py $(CAPACITY_ARGS)
