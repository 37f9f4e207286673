# make demo: reduce a bundled example with a real test.  make test: ruff, mypy --strict, pytest.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: demo test lint typecheck pytest bench bench-sitting bench-parallel bench-sleeping bench-presets bench-scale bench-cluster bench-spread bench-together clean

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q -e '.[test]'
	touch $(STAMP)

DEMO_OUT := .demo

# Real reductions: a Python program whose traceback must keep its KeyError, (when gcc is here) a C
# program that must still compile and read through a null pointer (AddressSanitizer says so), and a
# directory: a Python package of six modules whose run must still end in its ZeroDivisionError.
demo: $(STAMP)
	@mkdir -p $(DEMO_OUT)
	@echo "== Python: keep \"KeyError: 'E500'\" in the traceback of examples/python/inventory.py"
	$(BIN)/treereduce-py examples/python/inventory.py -o $(DEMO_OUT)/inventory.py --force \
	    --exit-code 1 --stderr-regex "KeyError: 'E500'" -- $(BIN)/python @@
	@echo "-- before: $$(wc -c < examples/python/inventory.py) bytes; after: $$(wc -c < $(DEMO_OUT)/inventory.py) bytes:"
	@cat $(DEMO_OUT)/inventory.py; echo
	@if command -v gcc >/dev/null; then \
	    echo "== C: keep the null-pointer read of examples/c/crash.c (test: examples/c/check.sh)"; \
	    $(BIN)/treereduce-py examples/c/crash.c -o $(DEMO_OUT)/crash.c --force -- ./examples/c/check.sh @@ && \
	    echo "-- before: $$(wc -c < examples/c/crash.c) bytes; after: $$(wc -c < $(DEMO_OUT)/crash.c) bytes:" && \
	    cat $(DEMO_OUT)/crash.c; echo; \
	else echo "(gcc not found: skipping the C demo)"; fi
	@echo "== A directory: the Python package examples/package/shop must still die of its ZeroDivisionError"
	@echo "   (modules imported once are pasted into their importer, then the file is reduced: about 2 minutes)"
	$(BIN)/treereduce-py examples/package/shop -o $(DEMO_OUT)/shop --force -- ./examples/package/check.sh @@
	@n=$$(ls $(DEMO_OUT)/shop | wc -l); if [ "$$n" -eq 1 ]; then w=file; else w=files; fi; \
	    echo "-- before: $$(cat examples/package/shop/*.py | wc -c) bytes in $$(ls examples/package/shop | wc -l) files;" \
	    "after: $$(cat $(DEMO_OUT)/shop/* | wc -c) bytes in $$n $$w:"
	@for f in $(DEMO_OUT)/shop/*; do echo "# $$f"; cat "$$f"; done

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

typecheck: $(STAMP)
	$(BIN)/mypy

pytest: $(STAMP)
	$(BIN)/pytest -q

test: lint typecheck pytest

# Every benchmark family at one commit, then docs/benchmarks.md: the peer cases (300 s per run:
# hours, with five tools), the parallel and size families, the scale family, the cluster and batch
# runs. `make bench BENCH_RESUME=--resume` continues an interrupted run of the same engine (the
# treereduce_py/ and queries/ trees): the peer (case, tool) runs already stored from it are skipped.
BENCH_RESUME ?=
bench: $(STAMP)
	$(BIN)/python -m pip install -q -e '.[bench,cluster]'
	$(BIN)/python bench/run.py --no-scaling --no-report $(BENCH_RESUME)
	$(BIN)/python bench/scaling.py
	$(BIN)/python bench/sleeping.py
	$(BIN)/python bench/scale.py --tools treereduce-py,cvise
	$(BIN)/python bench/scale.py --sizes 100m --tests fast --tools treereduce-py,cvise
	$(BIN)/python bench/scale.py --sizes 100k --tools shrinkray
	$(BIN)/python bench/cluster.py
	$(BIN)/python bench/report.py

# The parallel speed-up family alone (4 cases x jobs 1-16 x 2 modes), then the report.
bench-parallel: $(STAMP)
	$(BIN)/python -m pip install -q -e '.[bench]'
	$(BIN)/python bench/prepare.py python-orders-exception js-orders-exception c-orders-abort \
		java-ledger-exception
	$(BIN)/python bench/scaling.py --only parallel
	$(BIN)/python bench/report.py --allow-mixed peers

# The engine's own parallel speed-up: the three padded cases' inputs with an in-process test that
# sleeps 0.5 s and holds no core (3 cases x jobs 1-16 x 2 modes: about 20 min), then the report.
bench-sleeping: $(STAMP)
	$(BIN)/python -m pip install -q -e '.[bench]'
	$(BIN)/python bench/sleeping.py
	$(BIN)/python bench/report.py --allow-mixed peers

# The strategy presets family (docs/strategies.md): every --strategy preset on five cases in five
# languages, with the peer table's test, jobs, timeout and limit (25 runs of up to 300 s; its own
# commit stamp, rendered as its own section). BENCH_RESUME=--resume continues an interrupted run.
PRESET_CASES = c-csmith-warning,go-inventory-panic,js-ms-exception,python-fractions,rust-ice-wf
bench-presets: $(STAMP)
	$(BIN)/python -m pip install -q -e '.[bench]'
	$(BIN)/python bench/run.py --no-scaling --no-report --tools treereduce-py --presets all \
		--cases $(PRESET_CASES) $(BENCH_RESUME)
	$(BIN)/python bench/report.py --allow-mixed peers,parallel

# The scale family alone (C and JavaScript at 100 KB, 1 MB, 10 MB; fast and real tests; 100 MB with
# the fast test, treereduce-py and C-Vise only), then the
# report: treereduce-py and C-Vise at every size, Shrink Ray at 100 KB only (it reaches the 300 s
# limit there already; at every size it would add 40 min of limits). scale.py builds and checks
# its inputs first (bench/scale_gen.py). Only the scale runs must come from one commit here; the
# stored parallel family may mix them.
bench-scale: $(STAMP)
	$(BIN)/python -m pip install -q -e '.[bench]'
	$(BIN)/python bench/scale.py --tools treereduce-py,cvise
	$(BIN)/python bench/scale.py --sizes 100m --tests fast --tools treereduce-py,cvise
	$(BIN)/python bench/scale.py --sizes 100k --tools shrinkray
	$(BIN)/python bench/report.py --allow-mixed peers,parallel

# Run-to-run spread (issue 30): each tool three times on four small cases (bench/spread.py: its
# CASES and TOOLS), with the peer table's test, --jobs 2 and 300 s limit, then the report. Up to
# 48 runs of at most 300 s each (4 h at worst).
bench-spread: $(STAMP)
	$(BIN)/python -m pip install -q -e '.[bench]'
	$(BIN)/python bench/spread.py
	$(BIN)/python bench/report.py --allow-mixed peers,parallel

# `make bench` in sittings (bench/sitting.sh): each chunk (a peer case with every tool, a family's
# case and mode) is committed on the current branch as soon as it has run and skipped when this runs
# again, so a stop loses at most one chunk; hours in all. SITTING="peers parallel" runs some phases.
SITTING ?=
bench-sitting: $(STAMP)
	$(BIN)/python -m pip install -q -e '.[bench,cluster]'
	bash bench/sitting.sh $(SITTING)

# Tests on a Dask cluster and batch mode (issue 12; a few minutes), then the report.
bench-cluster: $(STAMP)
	$(BIN)/python -m pip install -q -e '.[bench,cluster]'
	$(BIN)/python bench/cluster.py
	$(BIN)/python bench/report.py --allow-mixed peers,parallel

# A directory's files at once against in turn (issue 29): nine standard-library files, the test
# padded by a 0.4 s sleep, at 2 and 8 jobs (about 13 minutes); bench/results/together.json.
bench-together: $(STAMP)
	$(BIN)/python bench/together.py

clean:
	rm -rf $(VENV) $(DEMO_OUT) build *.egg-info .mypy_cache .ruff_cache .pytest_cache
