# Two commands: `make run` (set up, compile and run the bundled example) and
# `make test` (set up, run every check). Both create .venv when it is missing.

VENV_DIR ?= .venv
PYTHON ?= python3
VPY := $(VENV_DIR)/bin/python
STAMP := $(VENV_DIR)/.xrelay-installed
TYPECHECK_TREE := build/typecheck/xrelay
SUBPACKAGES := dialects pass_manager transforms lowering runtime frontend tools

.PHONY: run test venv pytest filecheck lint pyright typecheck-tree clean

run: $(STAMP)
	$(VENV_DIR)/bin/xrelay-run --example

test: $(STAMP) pytest filecheck lint pyright

venv: $(STAMP)

# (Re)install when pyproject.toml changes; the editable install picks up code changes.
$(STAMP): pyproject.toml
	test -x $(VPY) || $(PYTHON) -m venv $(VENV_DIR)
	$(VPY) -m pip install --quiet --upgrade pip
	$(VPY) -m pip install --quiet -e ".[test]"
	touch $@

pytest: $(STAMP)
	$(VPY) -m pytest tests

filecheck: $(STAMP)
	$(VENV_DIR)/bin/lit -v --order=smart tests/filecheck

lint: $(STAMP)
	$(VENV_DIR)/bin/ruff check .
	$(VENV_DIR)/bin/ruff format --check .

# pyright cannot follow setuptools' import hook that maps the top-level folders onto
# `xrelay.*`, so it checks a tree of symlinks laid out like the installed package.
typecheck-tree:
	rm -rf $(TYPECHECK_TREE) && mkdir -p $(TYPECHECK_TREE)
	ln -s ../../../xrelay/__init__.py $(TYPECHECK_TREE)/__init__.py
	ln -s ../../../xrelay/py.typed $(TYPECHECK_TREE)/py.typed
	for d in $(SUBPACKAGES); do ln -s ../../../$$d $(TYPECHECK_TREE)/$$d; done

pyright: $(STAMP) typecheck-tree
	$(VENV_DIR)/bin/pyright

clean:
	rm -rf build .pytest_cache
