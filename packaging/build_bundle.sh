#!/usr/bin/env bash
# Build the PyInstaller one-folder bundle, dist/dreamdesk/, and smoke-start it (.ci/run runs this).
# Run from a virtual environment with Dreamdesk's dependencies installed (`pip install -e .`): the
# bundle is made of that environment's packages, and PyInstaller is installed into it, pinned.
set -euo pipefail
cd "$(dirname "$0")/.."

pyinstaller_version="6.22.3"
python3 -m pip install --quiet "pyinstaller==$pyinstaller_version"
rm -rf dist/dreamdesk
python3 -m PyInstaller --noconfirm --log-level ERROR --distpath dist --workpath build/pyinstaller \
  packaging/dreamdesk.spec
echo "bundle: $(du -sh dist/dreamdesk | cut -f1) in dist/dreamdesk (PyInstaller $pyinstaller_version)"

# a first start from the bundle (demo copied, window shown and read, charts drawn, exit 0), its
# resources read from inside it, then `dreamdesk status` on the copy it made
python3 packaging/smoke_start.py --resources-under dist/dreamdesk ${DREAMDESK_SMOKE_PNG:+--png "$DREAMDESK_SMOKE_PNG"} \
  -- dist/dreamdesk/dreamdesk
