# The course's commands. `make grade` and `make test` work on a fresh machine: they create the
# virtual environment first. Run `make help` for the list.

PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
# Stamp file: reinstall only when the lock or the project metadata change.
STAMP := $(VENV)/.installed
# pyproject.toml declares the dependency groups; `make lock` pins them into requirements/.
LOCK := requirements/lock.txt
DEV_PINS := requirements/dev.txt
SUDO := $(if $(filter 0,$(shell id -u)),,sudo)
LAB_ROOT_FLAG := $(if $(filter 0,$(shell id -u)),--allow-root,)

.PHONY: help setup bytecode browser-deps sandbox-deps vm-deps slurm-deps lite-deps bench lessons \
	check test test-fast handout lite lite-serve grade mutation lab lock clean

help:
	@echo "make grade         install, then grade the sample class into ./grades"
	@echo "make test          install, then run the checks and every test (browser included)"
	@echo "make test-fast     the tests that need no kernel, nbgrader, browser, bubblewrap, VM, Slurm or minutes"
	@echo "make setup         create .venv and install the dev group from the lock (requirements/)"
	@echo "make bytecode      compile the grader once, so no grading process compiles it again"
	@echo "make browser-deps  install Debian's chromium and chromium-driver if missing"
	@echo "make sandbox-deps  install Debian's bubblewrap if missing (grading falls back without it)"
	@echo "make vm-deps       install Debian's kernel, QEMU and busybox for the cgroup-v2 VM test"
	@echo "make slurm-deps    install Debian's Slurm and munge for the one-node cluster test"
	@echo "make lite-deps     install npm if missing (it brings the browser course's Pyodide)"
	@echo "make lessons       regenerate lessons/ from solutions/ with nbgrader"
	@echo "make check         ruff, mypy, import layers, notebook hygiene, lessons in sync, contract table"
	@echo "make handout       build what students receive into build/handout/ and build/handout.zip"
	@echo "make lite          build the course as a browser site (JupyterLite) into build/lite/"
	@echo "make lite-serve    serve build/lite/ on http://127.0.0.1:8000 with the headers it needs"
	@echo "make bench         time the grader against nbgrader autograde (about 15 minutes)"
	@echo "make mutation      grade every mutant of the reference; fail on an unexplained survivor"
	@echo "make lab           open JupyterLab on the lessons"
	@echo "make lock          pin pyproject.toml's dependency groups into requirements/ (with uv)"
	@echo "make clean         remove build output, grades and test artifacts"

setup: $(STAMP)

$(STAMP): $(LOCK) $(DEV_PINS) pyproject.toml
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV) || { \
		echo "python3 -m venv failed; installing python3-venv"; rm -rf $(VENV); \
		$(SUDO) apt-get update && $(SUDO) apt-get install -y python3-venv && $(PYTHON) -m venv $(VENV); }
	$(BIN)/python -m pip install --quiet -r $(DEV_PINS) -e '.[dev]'
	@touch $(STAMP)

# The bytecode of the grader and of the hidden tests, written here once: a grading job
# would otherwise compile them at every start (about 0.4 s), and nothing writes them where
# PYTHONDONTWRITEBYTECODE is set. Python never runs a stale file, so this is about speed only.
bytecode: setup
	$(BIN)/python -m grader.install.bytecode

# Debian packages: the browser and its driver for the widget test, fonts so its screenshots show
# Japanese text and emoji, bubblewrap, which the grader uses to contain student code, and
# debootstrap, which makes the fresh root the Gradescope bundle is tried in end to end.
BROWSER_PACKAGES := chromium chromium-driver fonts-noto-cjk fonts-noto-color-emoji bubblewrap \
	debootstrap

browser-deps:
	@if dpkg -s $(BROWSER_PACKAGES) >/dev/null 2>&1; then \
		echo "browser packages are installed"; \
	else \
		$(SUDO) apt-get update && $(SUDO) apt-get install -y $(BROWSER_PACKAGES); \
	fi

# The grader runs without bubblewrap too (with weaker isolation, as its summary says), so a
# machine where it cannot be installed still grades.
sandbox-deps:
	@command -v bwrap >/dev/null 2>&1 || { $(SUDO) apt-get update && \
		$(SUDO) apt-get install -y bubblewrap; } || \
		echo "bubblewrap could not be installed; grading will use the fallback isolation"

# Debian packages for tests/hosts/test_hosts_vm.py: Debian 12's own kernel (cgroup v2 only), which
# virtme-ng (the dev group) boots under QEMU with this machine's files shared read-only, and
# the static busybox virtme-ng's init needs.
VM_PACKAGES := linux-image-amd64 qemu-system-x86 busybox-static

vm-deps:
	@if dpkg -s $(VM_PACKAGES) >/dev/null 2>&1; then \
		echo "VM packages are installed"; \
	else \
		$(SUDO) apt-get update && $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y \
			$(VM_PACKAGES); \
	fi

# Debian packages for tests/grader/batch/test_shards_on_slurm.py, which starts a one-node Slurm
# cluster on localhost (munged, slurmctld, slurmd) to run docs/clusters.md's job array.
SLURM_PACKAGES := slurm-wlm munge

slurm-deps:
	@if dpkg -s $(SLURM_PACKAGES) >/dev/null 2>&1; then \
		echo "Slurm packages are installed"; \
	else \
		$(SUDO) apt-get update && $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y \
			$(SLURM_PACKAGES); \
	fi

# npm brings the pinned Pyodide runtime for `make lite` (tooling/lite/package-lock.json), and with
# it the axe-core that tests/browser/test_reports_accessibility.py runs (never put in the site).
lite-deps:
	@command -v npm >/dev/null 2>&1 || { $(SUDO) apt-get update && $(SUDO) apt-get install -y npm; }

lessons: setup
	$(BIN)/python -m tooling.lessons

# lint-imports checks pyproject.toml's import contracts (the pipeline's layers); without its
# cache it still takes a second, and leaves no cache folder in the work tree.
check: setup
	$(BIN)/ruff format --check .
	$(BIN)/ruff check .
	$(BIN)/mypy
	$(BIN)/lint-imports --no-cache --no-logo
	$(BIN)/python -m tooling.hygiene
	$(BIN)/python -m tooling.lessons --check
	$(BIN)/python -m tooling.contract_table --check

# The slowest tests are listed at the end, so CI's log shows where the time goes.
test: setup browser-deps vm-deps slurm-deps bytecode check lite
	$(BIN)/pytest --durations=25

# The inner loop: every test whose module declares none of these needs (pyproject.toml's
# markers, enforced by tests/needs.py), under a minute, in two pytest processes (pytest-xdist):
# these tests write only below their own temporary folders, and the project's bytecode, which
# they read, is written before they start. Where PYTHONDONTWRITEBYTECODE is set, as in many
# containers, pytest would rewrite and compile every test module again at each run (about 3 s a
# process) and each grading process the grader: the loop keeps bytecode, as Python does by
# default (an empty value unsets it), and `bytecode` compiles the grader first.
FAST := not (kernel or nbgrader or browser or bwrap or vm or slurm or slow)

test-fast: setup bytecode
	PYTHONDONTWRITEBYTECODE= $(BIN)/pytest -n 2 -m "$(FAST)" -q --durations=10

handout: setup
	$(BIN)/python -m tooling.handout

# The site is built from scratch every time (about 20 s once build/lite-cache/ holds the
# downloads); tooling/lite/build.py says what goes in it.
lite: setup lite-deps
	$(BIN)/python -m tooling.lite build

lite-serve: setup
	$(BIN)/python -m tooling.lite serve

bench: setup sandbox-deps bytecode
	$(BIN)/python -m bench
	$(BIN)/python -m bench.scenarios

grade: setup sandbox-deps bytecode
	$(BIN)/python -m grader

# Grades mutants of the reference in one batch, as `make grade` grades a class (under a minute).
mutation: setup sandbox-deps bytecode
	$(BIN)/python -m tooling.mutation

lab: setup
	$(BIN)/jupyter lab $(LAB_ROOT_FLAG) --ServerApp.root_dir=lessons

# Resolves again from PyPI, keeping today's pins unless pyproject.toml rules them out;
# `make lock LOCK_FLAGS=--upgrade` takes the newest versions it allows.
lock: setup
	$(BIN)/python -m tooling.lock $(LOCK_FLAGS)

clean:
	rm -rf build grades test-artifacts .pytest_cache
	find . -name __pycache__ -type d -not -path "./$(VENV)/*" -prune -exec rm -rf {} +
