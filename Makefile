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
# render (on 2 cores the suite used two thirds of the CPU with one per core; with four processes it took 417 s
# where three took 489 s, run in turns on one checkout, though a fresh clone's run with four then read 487 s:
# this machine's speed moves as much); each test file stays in one process (the SLURM tests of a file share
# one cluster).
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
# install points there): where the venv's `mewl_gen` is not this folder's, make the venv again.
VENV_CODE := $(if $(wildcard $(STAMP)),$(shell $(VENV)/bin/python -I -c 'import mewl_gen, pathlib; print(pathlib.Path(mewl_gen.__file__).resolve().parents[2])' 2>/dev/null))
ifneq ($(wildcard $(STAMP)),)
ifneq ($(VENV_CODE),$(realpath $(CURDIR)))
$(STAMP): venv-elsewhere
endif
endif

.PHONY: venv-elsewhere
venv-elsewhere:
	@echo "make: $(VENV) runs the code of $(or $(VENV_CODE),an unreadable install), not of $(realpath $(CURDIR)): making it again here" >&2
	rm -rf $(VENV)

# The packages are installed by uv (from PyPI, as pip would): on 2 cores make setup took 19 to 26 s (uv's cache
# full or empty) where pip took 102, much of it compiling every installed module's bytecode. Python writes a
# module's bytecode the first time a process imports it, except in Blender, which never writes it: bpy's own
# modules are compiled here (1 s), or every render worker would compile them again. uv reads no pip configuration,
# so what pip is told (its PIP_* variables and config files, as `pip config list` shows them) is handed on to it:
# the indexes, the folders of wheels (find-links, such as a machine's CPU-only torch) and the constraints, with
# pip's choice of the best version on any index, so that both pick the same wheels from the same places.
define UV_FROM_PIP
import re, subprocess, sys
listed = subprocess.run([sys.executable, "-m", "pip", "config", "list"], capture_output=True, text=True).stdout
found = dict(re.findall(r"^(\S+?)='(.*)'$$", listed, re.M))
flags = []
for key in ("index-url", "extra-index-url", "find-links", "constraint"):
    value = found.get(f":env:.{key}") or found.get(f"install.{key}") or found.get(f"global.{key}") or ""
    flags += [f"--{key}={v}" for v in value.split()]
if any(f.startswith(("--index-url", "--extra-index-url")) for f in flags):
    flags.append("--index-strategy=unsafe-best-match")
print(" ".join(flags))
endef
# Handed to the one recipe that runs it, not to every command make runs.
$(STAMP): export UV_FROM_PIP_CODE = $(UV_FROM_PIP)

$(STAMP): pyproject.toml
	@if [ -z "$(PYTHON311)" ]; then echo "make: error: Python 3.11 not found (bpy 5.0.1 needs it); install it or pass PY=/path/to/python3.11" >&2; exit 1; fi
	$(PYTHON311) -m venv $(VENV)
	$(VENV)/bin/python -m pip install --quiet 'uv>=0.13,<0.14'
	$(VENV)/bin/python -m uv pip install --quiet --python $(VENV)/bin/python $$($(VENV)/bin/python -c "$$UV_FROM_PIP_CODE") -e '.[test]'
	$(VENV)/bin/python -m compileall -q -j0 "$$($(VENV)/bin/python -c 'import importlib.util, os; print(os.path.dirname(importlib.util.find_spec("bpy").origin))')"
	@touch $(STAMP)

# The package's bytecode, written before the tests (only what changed since), and the tests run with Python's
# bytecode cache on (PYTEST): where PYTHONDONTWRITEBYTECODE is set, every process the tests start (each `mewl`,
# each Blender worker, each test process collecting the tests) would compile every module again, about half a
# second of CPU each.
COMPILE := $(VENV)/bin/python -m compileall -q src
PYTEST := env -u PYTHONDONTWRITEBYTECODE $(VENV)/bin/python -m pytest

# The slowest tests are listed at the end: where CI's time goes.
test: setup
	@$(COMPILE)
	$(PYTEST) -n $(TEST_JOBS) --dist loadfile --no-loadscope-reorder --durations=40 $(PYTEST_ARGS)

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
# tasks (its shared render is at preview quality): a draft render of every task, about 4 minutes of CPU.
pins: setup
	@$(COMPILE)
	MEWL_TEST_PINS=draft $(PYTEST) -q tests/test_pinned_output.py $(PYTEST_ARGS)

# Rewrite tests/pinned_digests.py from what this checkout samples and renders (draft and preview, every task,
# this CPU's PNGs), and print each group that changed: for a change meant to alter output.
pins-update: setup
	@$(COMPILE)
	env -u PYTHONDONTWRITEBYTECODE $(VENV)/bin/python -m tests.test_pinned_output --write

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
