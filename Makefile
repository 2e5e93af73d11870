# `make demo` and `make test` work on a fresh Debian machine with Python 3.10+ (python3-venv).
# Both create the virtual environment .venv on first use and install the project into it.

VENV := .venv
BIN := $(VENV)/bin
# reinstall when pyproject.toml changes (new dependencies, entry points)
INSTALLED := $(VENV)/.installed

.PHONY: demo test test-fast corpus warm

$(BIN)/python:
	python3 -m venv $(VENV)

$(INSTALLED): pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $@

OUT := demo-out

# Compile SpM*SpM (Gustavson, i->k->j), simulate it on a shipped SuiteSparse matrix, check it
# against scipy, and draw the graph (with token counts) and the stream token breakdown.
demo: $(INSTALLED)
	@mkdir -p $(OUT)
	$(BIN)/custard compile "X(i,j)=B(i,k)*C(k,j)" -f=X:ss -f=B:ss -f=C:ss -s="reorder(i,k,j)" \
		-o $(OUT)/matmul_ikj.gv
	$(BIN)/sam-sim run $(OUT)/matmul_ikj.gv -t B=west0479 -t C=B --check \
		--report $(OUT)/report.json -o $(OUT)/X.mtx --html $(OUT)/run.html \
		--trace-events $(OUT)/trace.json
	$(BIN)/sam-sim draw $(OUT)/matmul_ikj.gv --stats $(OUT)/report.json -o $(OUT)/graph.svg
	$(BIN)/sam-sim plot $(OUT)/report.json -o $(OUT)/tokens.png
	@echo "== results in $(OUT)/: graph.svg, tokens.png, tokens-timeline.png, run.html (open it in a browser), trace.json (https://ui.perfetto.dev), report.json, X.mtx"

# Compile every block kernel of the fast engine ahead of time (runs compile what they need by
# themselves; this saves the first long run its wait), in one process per CPU, with progress.
warm: $(INSTALLED)
	$(BIN)/sam-sim warm --all

# pytest exits 5 when it collects no test: not a failure here.
test: $(INSTALLED)
	$(BIN)/ruff check .
	$(BIN)/pytest $(PYTEST_ARGS); status=$$?; if [ $$status -eq 5 ]; then echo "pytest: no tests collected"; \
		exit 0; fi; exit $$status

# The fast tier for developers (under 3 minutes on 2 cores): no test marked slow, fuzz or
# subprocess (tests/helpers/tiers.py), Hypothesis tests at most 10 examples (the dev profile of
# tests/conftest.py). Every module of sam/, custard/ and formats/ still runs in it
# (`make test-fast PYTEST_ARGS=--module-report` names any that does not).
test-fast: $(INSTALLED)
	$(BIN)/ruff check .
	HYPOTHESIS_PROFILE=dev $(BIN)/pytest -m "not slow and not fuzz and not subprocess" $(PYTEST_ARGS)

# The TACO website corpus (tests/data/taco-website/success.log): compile every unique line (also
# through DOT text and back), count over all logged lines, and simulate a seeded sample of 300
# compiled lines through DOT text against the gold result and the in-memory graph (a few
# minutes). Exits 1 on a crash, a refusal longer than a line, or a sampled line that fails.
corpus: $(INSTALLED)
	$(BIN)/python scripts/corpus.py --dot --all-lines --simulate 300
