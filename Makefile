# billar: every target sets itself up on a fresh machine (virtual environment in .venv).
SHELL := /bin/bash
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
PIP := $(PY) -m pip
STAMP := $(VENV)/.stamp-install
BUILT := $(VENV)/.stamp-build
CORE_SRC := $(wildcard physics/*.pyx physics/*.pxd rules/*.py rules/*.pxd) setup.py
HOST ?= 127.0.0.1
PORT ?= 8765

.PHONY: run test soak bench bench-pooltool install build clean

run: build
	$(VENV)/bin/billar serve --host $(HOST) --port $(PORT)

test: build
	$(PY) -m pytest -q -p no:cacheprovider --timeout=600

soak: build
	$(PY) -m pytest -q -p no:cacheprovider -m soak --timeout=3600 -o addopts=""

install: $(STAMP)

$(STAMP): pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PIP) install -q --upgrade pip setuptools wheel "Cython>=3.1"
	$(PIP) install -q -e '.[dev]'
	touch $@

# Compile the Cython cores in place (incremental: only changed modules are rebuilt).
build: $(BUILT)

$(BUILT): $(STAMP) $(CORE_SRC)
	$(PY) setup.py -q build_ext --inplace -j 2
	touch $@

bench: build
	$(PY) bench/physics_vs_pooltool.py

# pooltool 0.6.0 in its own environment (bench only; never a runtime dependency). 0.6.0 pins a
# Panda3D dev build that PyPI lacks: install its other requirements, then the wheel with --no-deps.
bench-pooltool: .venv-pooltool/.stamp
.venv-pooltool/.stamp:
	$(PYTHON) -m venv .venv-pooltool
	.venv-pooltool/bin/pip install -q --upgrade pip
	.venv-pooltool/bin/pip install -q "panda3d==1.10.13" "numba==0.62.1" "llvmlite==0.45.1" "numpy==2.3.5" scipy attrs cattrs msgpack msgpack-numpy pyyaml click Pillow h5py h11 rich numpy-quaternion
	.venv-pooltool/bin/pip download -q --no-deps -d .venv-pooltool/wheels "pooltool-billiards==0.6.0"
	.venv-pooltool/bin/pip install -q --no-deps .venv-pooltool/wheels/pooltool_billiards-0.6.0-*.whl
	touch $@

clean:
	rm -rf build *.egg-info
	find physics rules -name '*.so' -delete -o -name '*.c' -delete
	rm -f $(BUILT)
