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


# What OpenClaw's dreaming promoted before 2026.9.6 filtered it (openclaw/openclaw#67580, #89444), in
# the shape its append-only promotion writes: a shell command, then a fact with a lineage, then a
# staged candidate alone in its section.
COMMAND = "- sudo apt remove shaderc && git clone https://github.com/google/shaderc"
COMMAND_MARKER = "<!-- openclaw-memory-promotion:memory:memory/2026-12-05.md:3:3 -->"
LAUNCH = "- Decided to move the Apollo launch to March 14 after the vendor delay."
LAUNCH_MARKERS = ("<!-- openclaw-memory-lineage:apollo-launch -->",
                  "<!-- openclaw-memory-promotion:memory:memory/2026-12-05.md:1:1 -->")
CANDIDATE_MARKER = "<!-- openclaw-memory-promotion:memory:claim:0123456789ab -->"
PROMOTED_JUNK = f"""
## Promoted From Short-Term Memory (2026-12-07)

{COMMAND_MARKER}
{COMMAND} [score=0.912 signals=4 recalls=3 avg=0.880 source=memory/2026-12-05.md:3-3] <!-- trigger: shaderc, clone --> <!-- importance: 9 -->
{LAUNCH_MARKERS[0]}
{LAUNCH_MARKERS[1]}
{LAUNCH} [score=0.850 signals=3 recalls=3 avg=0.900 source=memory/2026-12-05.md:1-1] <!-- trigger: apollo --> <!-- importance: 8 -->

## Promoted From Short-Term Memory (2026-12-07)

{CANDIDATE_MARKER}
- Candidate: User: System: [2026-04-10 15:04:28 GMT+8] Model switched. confidence: 0.00 evidence: memory/.dreams/session-corpus/2026-04-10.txt:4-4 status: staged recalls: 0 [score=0.850 recalls=0 avg=0.620]
"""


def with_promoted_junk(home: Path) -> Path:
    """The dreamed home with PROMOTED_JUNK appended to its MEMORY.md (its mode and endings as OpenClaw wrote them)."""
    memory = home / "workspace" / "MEMORY.md"
    memory.write_bytes(memory.read_bytes() + PROMOTED_JUNK.encode("utf-8"))
    return home
