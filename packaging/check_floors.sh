#!/usr/bin/env bash
# Dependency floors (.ci/run runs this): the lowest versions pyproject.toml allows
# (packaging/floors.txt: PySide6 6.10.0, pytest-qt 4.5.0, and the others' floors) in a fresh
# virtual environment, Dreamdesk installed into it from this checkout, then the default test run.
# The whole default run, not a subset: it takes about as long as CI's own run of it (~6 min), and
# a floor breaks where nobody guesses (a Qt signature, a pytest-qt teardown check).
set -euo pipefail
cd "$(dirname "$0")/.."

venv="${TMPDIR:-/tmp}/dreamdesk-floor-venv"
python3 -m venv --clear "$venv"
"$venv/bin/python" -m pip install --quiet --upgrade pip
"$venv/bin/python" -m pip install --quiet -r packaging/floors.txt
# the floors' setuptools builds it (no build environment that would fetch the newest)
"$venv/bin/python" -m pip install --quiet --no-deps --no-build-isolation -e . >"$venv/build.log" 2>&1 \
  || { cat "$venv/build.log" >&2; exit 1; }
"$venv/bin/python" -c 'import PySide6, pytestqt, sys; print("floors: PySide6", PySide6.__version__, "pytest-qt", pytestqt.__version__, "on Python", sys.version.split()[0])'
QT_QPA_PLATFORM=offscreen "$venv/bin/python" -m pytest -p no:cacheprovider
