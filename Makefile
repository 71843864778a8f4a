# make render TASK=pragmatic N=600 | make release | make test | make test-fast | make bench
SHELL := /bin/bash
VENV := .venv
STAMP := $(VENV)/.installed
TASK ?= pragmatic
N ?= 600
OUT ?= data
SPLIT ?= train
SEED ?= 0
WORKERS ?=
WORKERS_PER_GPU ?=
DEVICE ?= auto
QUALITY ?= default
# Extra passes beside each image, a comma list of depth, normal, albedo, instance (docs/passes.md); none by default.
PASSES ?=
PYTEST_ARGS ?=
# Test processes: two more than the cores, since many tests wait on Blender, SLURM, a browser or the shared
# render rather than compute (docs/performance.md); each test file stays in one process (the SLURM tests of a
# file share one cluster).
TEST_JOBS ?= $(shell echo $$(( $$(nproc) + 2 )))
QUICK ?=
ONLY ?=
# make bench ONLY=scale: the scale benchmark's store sizes (a comma list; default 1125,4000,16000), and where it writes.
SCALE_SIZES ?=
BENCH_OUT ?= bench-out
DRY_RUN ?=

# The bpy wheel exists for Python 3.11 only: find one, or say so in one line.
PYTHON311 := $(shell for p in $$PY python3.11 python3 python; do \
	command -v $$p >/dev/null 2>&1 && $$p -c 'import sys; sys.exit(sys.version_info[:2] != (3, 11))' 2>/dev/null && { echo $$p; break; }; done)

.PHONY: setup test test-fast sweep pins pins-update render release bench clean-venv

# The experiment library `mewl study` copies (jsPsych), at the versions package-lock.json pins.
NODE_STAMP := node_modules/.installed

setup: $(STAMP) $(NODE_STAMP)

$(NODE_STAMP): $(wildcard package-lock.json)
	@if ! command -v npm >/dev/null 2>&1; then \
		echo "make: warning: npm not found: everything but mewl study works; install Node.js and npm, then make setup again" >&2; \
	else \
		npm ci --ignore-scripts --no-audit --no-fund --loglevel=error && touch $(NODE_STAMP); \
	fi

# A .venv copied or moved from another checkout runs that checkout's code (its editable
# install points there): where the venv's `mewl_gen` is not this folder's, make says so (venv-elsewhere).
VENV_CODE := $(if $(wildcard $(STAMP)),$(shell $(VENV)/bin/python -I -c 'import mewl_gen, pathlib; print(pathlib.Path(mewl_gen.__file__).resolve().parents[2])' 2>/dev/null))
ifneq ($(wildcard $(STAMP)),)
ifneq ($(VENV_CODE),$(realpath $(CURDIR)))
$(STAMP): venv-elsewhere
endif
endif

# It is the user's folder: make says so and stops, and `make clean-venv setup` makes it again (by then the
# folder is gone, which this looks at when it runs, after clean-venv).
.PHONY: venv-elsewhere
venv-elsewhere:
	@if [ -e $(STAMP) ]; then \
		echo "make: error: $(VENV) runs the code of $(or $(VENV_CODE),an unreadable install), not of $(realpath $(CURDIR)); make clean-venv setup makes it again here" >&2; \
		exit 1; \
	fi

# The packages are installed by uv, handed what pip is told (tools/uv_from_pip.py); bpy's own modules are
# compiled here, as Blender never writes their bytecode and every render worker would compile them again.
# A venv that is there keeps its interpreter: made again over itself by another Python 3.11 (a pyenv build first
# on PATH, where it was made with PY=/usr/bin/python3.11), it would link one interpreter and name the other's
# standard library in pyvenv.cfg, and its processes would fail in the standard library's C parts.
$(STAMP): pyproject.toml
	@if [ ! -x $(VENV)/bin/python ]; then \
		if [ -z "$(PYTHON311)" ]; then echo "make: error: Python 3.11 not found (bpy 5.0.1 needs it); install it or pass PY=/path/to/python3.11" >&2; exit 1; fi; \
		echo "$(PYTHON311) -m venv $(VENV)"; $(PYTHON311) -m venv $(VENV); \
	fi
	$(VENV)/bin/python -m pip install --quiet 'uv>=0.13,<0.14'
	$(VENV)/bin/python -m uv pip install --quiet --python $(VENV)/bin/python $$($(VENV)/bin/python tools/uv_from_pip.py) -e '.[test]'
	$(VENV)/bin/python -m compileall -q -j0 "$$($(VENV)/bin/python -c 'import importlib.util, os; print(os.path.dirname(importlib.util.find_spec("bpy").origin))')"
	@touch $(STAMP)

# The package's bytecode, written before the tests (only what changed since), and the tests run with Python's
# bytecode cache on (PYTEST): where PYTHONDONTWRITEBYTECODE is set, every process the tests start (each `mewl`,
# each Blender worker, each test process collecting the tests) would compile every module again.
COMPILE := $(VENV)/bin/python -m compileall -q src
PYTEST := env -u PYTHONDONTWRITEBYTECODE $(VENV)/bin/python -m pytest

# The slowest tests are listed at the end: where CI's time goes.
test: setup
	@$(COMPILE)
	$(PYTEST) -n $(TEST_JOBS) --dist loadfile --durations=40 $(PYTEST_ARGS)

# A quick check (under a minute on 2 cores): every test that needs neither Blender, SLURM nor a browser and takes
# well under a second or two; statistical sweeps, audits and whole-dataset runs of the command are `slow` (make test).
FAST := not render and not slurm and not browser and not slow
test-fast: setup
	@$(COMPILE)
	$(PYTEST) -n 2 --dist loadfile -m "$(FAST)" $(PYTEST_ARGS)

# The statistical sweeps (`slow`, Blender-free) at their full sizes (tests/conftest.py's sweep): larger samples than
# make test's, for a change to a sampler or an audit; a few minutes more than make test's share of them.
sweep: setup
	@$(COMPILE)
	MEWL_TEST_SWEEP=full $(PYTEST) -n $(TEST_JOBS) --dist loadfile -m "slow and not render and not slurm and not browser" $(PYTEST_ARGS)

# The draft render's pinned digests (tests/test_pinned_output.py) over every task, which make test checks for two
# tasks (its shared render is at preview quality): a draft render of every task (docs/performance.md).
pins: setup
	@$(COMPILE)
	$(PYTEST) -q tests/test_pinned_output.py $(PYTEST_ARGS)
	env -u PYTHONDONTWRITEBYTECODE $(VENV)/bin/python -m tests.test_pinned_output --check-draft

# Rewrite tests/pinned_digests.py from what this checkout samples and renders (draft and preview, every task,
# this CPU's PNGs) and the pixel references tests/pinned_pixels.zip (docs/pixels.md), and print each group and
# image that changed: for a change meant to alter output. RENDER=no rewrites the sampled pins alone (a change to a
# sampler), leaving the render's pins and references as they are.
pins-update: setup
	@$(COMPILE)
	env -u PYTHONDONTWRITEBYTECODE $(VENV)/bin/python -m tests.test_pinned_output --write $(if $(filter no,$(RENDER)),--no-render,)

# MEWL_OUT_OPTION: a refusal of the dataset folder names OUT=, the option typed here, not the command's --out.
render: setup
	MEWL_OUT_OPTION=OUT= $(VENV)/bin/mewl render --task $(TASK) --n $(N) --out "$(OUT)" --split $(SPLIT) --seed $(SEED) \
		--device $(DEVICE) --quality $(QUALITY) $(if $(WORKERS),--workers $(WORKERS),) $(if $(WORKERS_PER_GPU),--workers-per-gpu $(WORKERS_PER_GPU),) \
		$(if $(PASSES),--passes $(PASSES),)

# MEWL's release as the paper sized it: every task, 3,000 / 600 / 600 episodes in train / val / test.
release: setup
	MEWL_OUT_OPTION=OUT= $(VENV)/bin/mewl render --preset mewl-release --out "$(OUT)" --seed $(SEED) \
		--device $(DEVICE) --quality $(QUALITY) $(if $(WORKERS),--workers $(WORKERS),) $(if $(WORKERS_PER_GPU),--workers-per-gpu $(WORKERS_PER_GPU),) $(if $(DRY_RUN),--dry-run,) \
		$(if $(PASSES),--passes $(PASSES),)

bench: setup
	$(VENV)/bin/python -m mewl_gen.bench --out $(BENCH_OUT) --device $(DEVICE) --pipeline-task shape,number,pragmatic,relation $(if $(QUICK),--quick,) $(if $(ONLY),--only $(ONLY),) \
		$(if $(SCALE_SIZES),--scale-sizes $(SCALE_SIZES),)

clean-venv:
	rm -rf $(VENV)
