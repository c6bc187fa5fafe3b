#!/usr/bin/env bash
# The wheel as a user gets it (.ci/run runs this after the tests): built from this checkout,
# installed into a fresh virtual environment with its real dependencies from the package index,
# then a first start from that install (demo copied, window shown and read, exit 0) and
# `dreamdesk status` on the copy it made (packaging/smoke_start.py).
set -euo pipefail
cd "$(dirname "$0")/.."

work="${TMPDIR:-/tmp}/dreamdesk-wheel-check"
rm -rf "$work"
mkdir -p "$work"
# the build backend is the CI venv's (setuptools is a test dependency): no build environment to fetch
# (its warnings about the resources' folders, which are package data, only when the build fails)
python3 -m pip wheel --quiet --no-deps --no-build-isolation -w "$work" . >"$work/build.log" 2>&1 \
  || { cat "$work/build.log" >&2; exit 1; }
wheel=$(ls "$work"/dreamdesk-*.whl)
python3 -m venv "$work/venv"
"$work/venv/bin/python" -m pip install --quiet --upgrade pip
"$work/venv/bin/python" -m pip install --quiet "$wheel"
"$work/venv/bin/python" -c 'import PySide6, sys; print("wheel:", sys.argv[1], "installed with PySide6", PySide6.__version__)' \
  "$(basename "$wheel")"
python3 packaging/smoke_start.py --resources-under "$work/venv" -- "$work/venv/bin/dreamdesk"
