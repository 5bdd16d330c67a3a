# Two entry points that install whatever is missing first (idempotent; quick when all is there):
#   make report   the whole pipeline: snakemake --cores 8 (ends in the replication report PDF)
#   make test     the test suite (what CI runs, through .ci/run)
#   make test-fast  the unit tests only: no pipeline, SLURM, notebook or install tests
#                 (pytest -m "not slow"; about a minute on 2 cores)
#   make docs     the documentation (Sphinx, warnings are errors) in docs/_build/html
#   make lint     ruff (lint + format check) and snakefmt --check; part of make test
# Needs a Debian/Ubuntu machine with python3 (3.11) and apt; run as root or with sudo.

SHELL := /bin/bash
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed
APT_PACKAGES := latexmk texlive-latex-base texlive-latex-recommended texlive-science \
                poppler-utils graphviz
CORES ?= 8
SNAKEMAKE_ARGS ?=

.PHONY: setup test test-fast lint report clean-results docs

setup: $(STAMP) .apt-ok

.apt-ok:
	@missing=""; for p in $(APT_PACKAGES); do \
	  dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then \
	  SUDO=$$([ "$$(id -u)" = 0 ] || echo sudo); \
	  echo "apt: installing$$missing"; \
	  $$SUDO apt-get update -qq && \
	  DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq --no-install-recommends $$missing; \
	fi
	@touch $@

$(STAMP): pyproject.toml
	@test -x $(PY) || python3 -m venv $(VENV) || { \
	  SUDO=$$([ "$$(id -u)" = 0 ] || echo sudo); \
	  $$SUDO apt-get update -qq && $$SUDO apt-get install -y -qq python3-venv && python3 -m venv $(VENV); }
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e '.[pipeline,test]'
	$(PY) -m ipykernel install --sys-prefix --name python3 >/dev/null
	@touch $@

test: setup lint
	$(VENV)/bin/pytest -q

lint: setup
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/snakefmt --check Snakefile workflow/rules/*.smk

test-fast: setup
	$(VENV)/bin/pytest -q -m "not slow"

report: setup
	PATH=$(abspath $(VENV))/bin:$$PATH snakemake --cores $(CORES) $(SNAKEMAKE_ARGS)

# The docs extra (Sphinx, myst-parser, furo) on top of the venv; autodoc imports every module.
DOCS_STAMP := $(VENV)/.docs-installed

$(DOCS_STAMP): pyproject.toml $(STAMP)
	$(PY) -m pip install -q -e '.[docs]'
	@touch $@

docs: $(DOCS_STAMP)
	$(VENV)/bin/sphinx-build -W --keep-going -b html docs docs/_build/html

clean-results:
	rm -rf results logs .snakemake
