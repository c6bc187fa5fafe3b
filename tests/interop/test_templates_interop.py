"""The engine knows nanobot's bundled templates by digest only: each digest must be the one of
the template the installed nanobot really ships, and the legacy SOUL.md must lead to its
current one the way the preview takes it."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from dreamdesk.engine.assistants import nanobot_templates as nt


def _templates_dir() -> Path:
    python = os.environ["DREAMDESK_NANOBOT_PYTHON"]
    out = subprocess.run([python, "-c", "import nanobot.templates as t, os; print(os.path.dirname(t.__file__))"],
                         capture_output=True, text=True, timeout=60, check=True)
    return Path(out.stdout.strip())


def test_every_template_digest_is_nanobots_own(nanobot):
    d = _templates_dir()
    for name, digest in nt.DIGESTS.items():
        assert nt.digest((d / name).read_text(encoding="utf-8")) == digest, name


def test_the_current_soul_template_is_taken_from_the_legacy_one(nanobot):
    d = _templates_dir()
    legacy = (d / "legacy/SOUL.md").read_text(encoding="utf-8")
    assert nt.current_soul_from_legacy(legacy).strip() == (d / "SOUL.md").read_text(encoding="utf-8").strip()


def test_every_template_line_digest_is_a_line_of_nanobots_own_template(nanobot):
    """The Archive folds entries made of these lines away as onboarding placeholders."""
    d = _templates_dir()
    for name, digests in nt.LINE_DIGESTS.items():
        lines = (d / name).read_text(encoding="utf-8").splitlines()
        assert digests == {nt.line_digest(line) for line in lines if line.strip()}, name
