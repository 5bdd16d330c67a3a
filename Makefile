# Two entry points that install whatever is missing first (idempotent; quick when all is there):
#   make report   the whole pipeline: snakemake --cores 8 (ends in the replication report PDF)
#   make test     lint, the documentation (make docs) and the test suite (what CI runs, through
#                 .ci/run), on TEST_WORKERS=2 workers
#   make test-fast  the unit tests only: no pipeline, SLURM, notebook or install tests
#                 (pytest -m "not slow"; run times: docs/performance.md)
#   make docs     the documentation (Sphinx, warnings are errors) in docs/_build/html
#   make lint     ruff (lint + format check) and snakefmt --check; part of make test
#   make mutation GROUP=engine  mutation testing (mutmut) of src/privdtol/<group>/, a sample of
#                 SAMPLE=12 mutants per module (0: all); results/mutation/ (docs/testing.md)
#   make lock     regenerate requirements.lock (+ requirements-docs.lock) from pyproject.toml
#   make archive  the run archive results/archive/privdtol-<commit>-<config hash>.tar.gz
#   make arxiv    the report's sources as one tar.gz for arXiv or a journal (pdflatex alone)
#                 results/arxiv/replication_report-arxiv.tar.gz
#   make replay   in an unpacked archive's source/: rebuild the tables and checks, compare
# Needs a Debian/Ubuntu machine with python3 (3.11) and apt; run as root or with sudo.

SHELL := /bin/bash
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed
# lmodern: the report's T1 fonts (Type 1 Latin Modern; texlive-latex-base has only the OpenType
# fonts-lmodern, which pdflatex cannot use); chromium, chromium-driver: the headless browser of
# tests/workflow/test_browser.py (Debian's, driven by Selenium through /usr/bin/chromedriver:
# no browser download)
APT_PACKAGES := latexmk texlive-latex-base texlive-latex-recommended texlive-science lmodern \
                poppler-utils graphviz chromium chromium-driver
CORES ?= 8
SNAKEMAKE_ARGS ?=

.PHONY: setup test test-fast lint report clean-results docs lock install-lock archive replay \
        mutation arxiv

# The locked environment: every package, transitive ones included, at an exact version with its
# sha256 hashes (Linux x86_64, CPython 3.11), generated from pyproject.toml by `make lock`.
LOCK := requirements.lock
DOCS_LOCK := requirements-docs.lock
PIP_VERSION := 26.3
UV_VERSION := 0.13.8
UV_COMPILE := uv pip compile pyproject.toml --generate-hashes --python-version 3.11 \
              --python-platform x86_64-manylinux_2_28 --custom-compile-command 'make lock' -q

setup: $(STAMP) .apt-ok

# rechecked whenever the Makefile (APT_PACKAGES) changes, so an existing checkout gets new ones
.apt-ok: Makefile
	@missing=""; for p in $(APT_PACKAGES); do \
	  dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then \
	  SUDO=$$([ "$$(id -u)" = 0 ] || echo sudo); \
	  echo "apt: installing$$missing"; \
	  $$SUDO apt-get update -qq && \
	  DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq --no-install-recommends $$missing; \
	fi
	@touch $@

# The stamp holds the sha256 of the lock it was installed from
# (tests/workflow/test_packaging.py reads it).
$(STAMP): $(LOCK) pyproject.toml
	@test -x $(PY) || python3 -m venv $(VENV) || { \
	  SUDO=$$([ "$$(id -u)" = 0 ] || echo sudo); \
	  $$SUDO apt-get update -qq && $$SUDO apt-get install -y -qq python3-venv && python3 -m venv $(VENV); }
	$(PY) -m pip install -q 'pip==$(PIP_VERSION)'
	$(MAKE) --no-print-directory install-lock PY=$(PY) LOCK=$(LOCK)
	$(PY) -m pip install -q --no-deps -e .
	$(PY) -m pip check
	$(PY) -m ipykernel install --sys-prefix --name python3 >/dev/null
	@sha256sum $(LOCK) > $@

# The one locked install (make setup and make docs use it; a test feeds it a tampered hash):
# pip refuses any file whose sha256 is not in the lock and any package the lock does not pin.
install-lock:
	$(PY) -m pip install -q --require-hashes -r $(LOCK)

# uv (a dev tool, not in the lock) lives in its own venv so that .venv holds the lock only.
LOCK_TOOLS := .venv-lock
lock:
	@test -x $(LOCK_TOOLS)/bin/uv || { python3 -m venv $(LOCK_TOOLS) && \
	  $(LOCK_TOOLS)/bin/pip install -q 'uv==$(UV_VERSION)'; }
	$(LOCK_TOOLS)/bin/$(UV_COMPILE) --extra pipeline --extra test -o $(LOCK)
	$(LOCK_TOOLS)/bin/$(UV_COMPILE) --extra pipeline --extra test --extra docs -c $(LOCK) -o $(DOCS_LOCK)

# TEST_WORKERS: pytest-xdist workers.  --dist loadgroup: the tests of a file that share a module
# fixture (a build, a browser) run on one worker, which makes the fixture once; every other test
# goes alone to whichever worker is free (tests/conftest.py, shared_fixture_group); the workers
# share one smoke build (smoke_run)
TEST_WORKERS ?= 2
PYTEST_XDIST := -n $(TEST_WORKERS) --dist loadgroup

# the docs first: a docstring that breaks Sphinx fails CI in a minute, not after the suite
test: setup lint docs
	$(VENV)/bin/pytest -q $(PYTEST_XDIST)

lint: setup
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/snakefmt --check Snakefile workflow/Snakefile workflow/rules/*.smk

test-fast: setup
	$(VENV)/bin/pytest -q $(PYTEST_XDIST) -m "not slow"

# Mutation testing (docs/testing.md): mutmut ([tool.mutmut] of pyproject.toml) on one group,
# src/privdtol/$(GROUP)/ against the fast-tier tests of tests/$(GROUP)/, in mutants-work/$(GROUP)/;
# a seeded sample of SAMPLE mutants per module (SAMPLE=0: every one), SEED= another draw (default:
# the commit); results/mutation/$(GROUP).json and summary.{json,md}.
GROUP ?=
SAMPLE ?= 12
SEED ?=
mutation: setup
	@test -n "$(GROUP)" || { echo "make mutation GROUP=<a subpackage of src/privdtol>"; exit 2; }
	PATH=$(abspath $(VENV))/bin:$$PATH nice -n 19 $(PY) scripts/mutation.py $(GROUP) \
	  --sample $(SAMPLE) $(if $(SEED),--seed $(SEED))

report: setup
	PATH=$(abspath $(VENV))/bin:$$PATH snakemake --cores $(CORES) $(SNAKEMAKE_ARGS)

# The docs extra (Sphinx, myst-parser, furo) on top of the venv; autodoc imports every module.
DOCS_STAMP := $(VENV)/.docs-installed

$(DOCS_STAMP): $(DOCS_LOCK) $(STAMP)
	$(MAKE) --no-print-directory install-lock PY=$(PY) LOCK=$(DOCS_LOCK)
	@touch $@

docs: $(DOCS_STAMP)
	$(VENV)/bin/sphinx-build -W --keep-going -b html docs docs/_build/html

# The run archive of the last build (after make report; see docs/reproducibility.md).
archive: setup
	PATH=$(abspath $(VENV))/bin:$$PATH snakemake --cores $(CORES) archive $(SNAKEMAKE_ARGS)

# The submission export of the report (builds the report first if needed; docs/report.md).
arxiv: setup
	PATH=$(abspath $(VENV))/bin:$$PATH snakemake --cores $(CORES) arxiv $(SNAKEMAKE_ARGS)

# In the source/ directory of an unpacked archive: rebuild the aggregated tables and the checks
# of the archived run (its config files, in order, from $(RUN)/configfiles.txt) and compare
# them with the archived ones byte for byte.  No setup prerequisite: run `make setup` first.
RUN ?= ../run
REPLAY_TARGETS := aggregate_all checks_all
replay:
	@test -f "$(RUN)/configfiles.txt" || { echo "make replay: $(RUN)/configfiles.txt not found (RUN= the run/ directory of an unpacked archive)" >&2; exit 2; }
	mapfile -t configs < "$(RUN)/configfiles.txt" && \
	  PATH="$(abspath $(VENV))/bin:$$PATH" snakemake --cores $(CORES) $(REPLAY_TARGETS) \
	  --configfile "$${configs[@]}"
	PATH="$(abspath $(VENV))/bin:$$PATH" privdtol archive-compare --run "$(RUN)" --results results

clean-results:
	rm -rf results logs .snakemake
