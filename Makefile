# Two commands: `make run` (set up, compile and run the bundled example) and
# `make test` (set up, run every check). Both create .venv when it is missing.

VENV_DIR ?= .venv
PYTHON ?= python3
VPY := $(VENV_DIR)/bin/python
STAMP := $(VENV_DIR)/.xrelay-installed
TYPECHECK_TREE := build/typecheck/xrelay
SUBPACKAGES := dialects pass_manager transforms lowering runtime frontend tools

.PHONY: run test test-slow venv pytest filecheck lint layers pyright typecheck-tree clean fuzz

run: $(STAMP)
	$(VENV_DIR)/bin/xrelay-run --example

test: $(STAMP) pytest filecheck lint layers pyright

venv: $(STAMP)

# (Re)install when pyproject.toml changes; the editable install picks up code changes.
$(STAMP): pyproject.toml
	test -x $(VPY) || $(PYTHON) -m venv $(VENV_DIR)
	$(VPY) -m pip install --quiet --upgrade pip
	$(VPY) -m pip install --quiet -e ".[test]"
	touch $@

# One worker per core (pytest-xdist); a test file stays on one worker, so its
# module-scoped builds happen once.
PYTEST_WORKERS ?= auto

pytest: $(STAMP)
	$(VPY) -m pytest tests -m "not slow" -n $(PYTEST_WORKERS) --dist loadfile

# the slow tests (the onnx wheel's light real models through the ONNX backend)
test-slow: $(STAMP)
	$(VPY) -m pytest tests -m slow -n $(PYTEST_WORKERS) --dist loadfile

# Differential fuzzing (interpreter vs builds at opt 0 and 3): N random programs from
# SEED (random when empty; printed either way). `make fuzz N=5000 SEED=1`.
N ?= 1000
SEED ?=
fuzz: $(STAMP)
	$(VPY) -m tests.safety.fuzz --count $(N) $(if $(SEED),--seed $(SEED))

filecheck: $(STAMP)
	$(VENV_DIR)/bin/lit -v --order=smart tests/filecheck

lint: $(STAMP)
	$(VENV_DIR)/bin/ruff check .
	$(VENV_DIR)/bin/ruff format --check .

# pyright cannot follow setuptools' import hook that maps the top-level folders onto
# `xrelay.*`, so it checks a tree laid out like the installed package whose files are
# symlinks to the sources (pyright does not descend into symlinked folders).
typecheck-tree:
	rm -rf $(TYPECHECK_TREE) && mkdir -p $(TYPECHECK_TREE)
	cp -s $(CURDIR)/xrelay/*.py $(CURDIR)/xrelay/py.typed $(TYPECHECK_TREE)/
	for d in contrib ir target topi; do cp -rs $(CURDIR)/xrelay/$$d $(TYPECHECK_TREE)/$$d; done
	for d in $(SUBPACKAGES); do cp -rs $(CURDIR)/$$d $(TYPECHECK_TREE)/$$d; done
	find $(TYPECHECK_TREE) -name __pycache__ -prune -exec rm -rf {} +

# The layers contract in pyproject.toml ([tool.importlinter]): import-linter reads the
# package from the current directory, so it runs in the typecheck tree, which is laid
# out as the installed package (the editable install's import hook is not a folder).
layers: $(STAMP) typecheck-tree
	cd $(dir $(TYPECHECK_TREE)) && $(CURDIR)/$(VENV_DIR)/bin/lint-imports --no-cache --no-logo $(CURDIR)/pyproject.toml

pyright: $(STAMP) typecheck-tree
	$(VENV_DIR)/bin/pyright

clean:
	rm -rf build .pytest_cache
