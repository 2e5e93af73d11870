# `make demo` and `make test` work on a fresh Debian machine with Python 3.10+ (python3-venv).
# Both create the virtual environment .venv on first use and install the project into it.

VENV := .venv
BIN := $(VENV)/bin
# reinstall when pyproject.toml changes (new dependencies, entry points)
INSTALLED := $(VENV)/.installed

.PHONY: demo test

$(BIN)/python:
	python3 -m venv $(VENV)

$(INSTALLED): pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $@

demo: $(INSTALLED)
	@echo "== west0479 as CSR (dense rows, compressed columns): SAM paper Sec. 3.1, Fig. 1c"
	$(BIN)/sam-sim tensor west0479 -f ds
	@echo
	@echo "== LFAT5 (SAM paper Table 3) as DCSR (both levels compressed)"
	$(BIN)/sam-sim tensor LFAT5 -f ss01

# pytest exits 5 when it collects no test: not a failure here.
test: $(INSTALLED)
	$(BIN)/ruff check .
	$(BIN)/pytest; status=$$?; if [ $$status -eq 5 ]; then echo "pytest: no tests collected"; \
		exit 0; fi; exit $$status
