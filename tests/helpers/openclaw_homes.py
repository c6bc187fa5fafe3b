"""The OpenClaw fixture homes (tests/fixtures/openclaw, built by the real OpenClaw 2026.9.6) copied
where a test may look at them: the build's absolute paths (openclaw.json's workspace, the state
database's setup row) become the copy's, as they would be had OpenClaw built it there."""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path

import pytest

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "openclaw"
HOMES = ("fresh", "dreamed", "over-cap", "over-total")


def manifest(name: str) -> dict:
    return json.loads((FIXTURES / name / "manifest.json").read_text(encoding="utf-8"))


def copy_home(name: str, dest: Path) -> Path:
    """`name`'s home as dest/.openclaw, its recorded paths made the copy's."""
    original, home = manifest(name)["original_home"], dest / ".openclaw"
    shutil.copytree(FIXTURES / name / "home", home)
    config = home / "openclaw.json"
    config.write_text(config.read_text(encoding="utf-8").replace(original, str(home)), encoding="utf-8")
    con = sqlite3.connect(home / "state" / "openclaw.sqlite")
    try:
        with con:
            con.execute("UPDATE workspace_setup_state SET workspace_path = replace(workspace_path, ?, ?)",
                        (original, str(home)))
    finally:
        con.close()
    return home


def oracle_context(name: str, home: Path) -> str:
    """The Project Context OpenClaw sent in the build's real turn, its paths made the copy's."""
    text = (FIXTURES / name / "oracle" / "project_context.txt").read_text(encoding="utf-8")
    return text.replace(manifest(name)["original_home"], str(home))


@pytest.fixture(autouse=True)
def no_openclaw_of_this_machine(tmp_path, monkeypatch):
    """No OpenClaw home of this machine's is looked at (imported by the tests that use the homes):
    HOME is private and no OPENCLAW_* is set."""
    monkeypatch.setenv("HOME", str(tmp_path / "user"))
    for name in ("OPENCLAW_HOME", "OPENCLAW_STATE_DIR", "OPENCLAW_PROFILE", "OPENCLAW_CONFIG_PATH",
                 "OPENCLAW_WORKSPACE_DIR"):
        monkeypatch.delenv(name, raising=False)


def grab_sizes(win, shots: Path, name: str) -> None:
    """What a person sees at the default size and at 1280×720 (offscreen), kept in `shots` to be looked at."""
    from PySide6.QtWidgets import QApplication
    shots.mkdir(parents=True, exist_ok=True)
    for size, tag in (((1280, 820), "default"), ((1280, 720), "1280x720")):
        win.resize(*size)
        QApplication.processEvents()
        assert win.grab().save(str(shots / f"{name}-{tag}.png"))
