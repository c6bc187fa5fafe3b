"""Benchmark (issue 28, Speed): an OpenClaw home with two years of daily notes (730 files, ~5 MB)
and a state database with 10,000 recall entries. Rows, interleaved A,B,A,B against a bare read of
the same files and rows (every note's and bootstrap file's bytes, every recall row json.loads'd):
the Dashboard's read (status.read_status, what the window's state read does), target ≤ 1.5×; and
the prompt preview, target ≤ 50 ms. Run with `python -m pytest -m bench tests/bench/test_bench_openclaw.py`
(the table prints without -s, with the machine and its load).

The home is the `dreamed` fixture OpenClaw itself built (tests/fixtures/openclaw), its notes and
recall store grown to that size in the shapes OpenClaw writes them."""

from __future__ import annotations

import json
import sqlite3
from datetime import date, timedelta
from pathlib import Path

import pytest
from bench_harness import interleave, publish, table

from dreamdesk.engine.assistants import assistant_of, open_home
from dreamdesk.engine.overview.status import read_status
from helpers.openclaw_homes import copy_home
from helpers.openclaw_state_db import grow_recalls

pytestmark = pytest.mark.bench
NOTES, RECALLS, ROUNDS = 730, 10_000, 15
NOTE_BYTES = 7_000            # 730 × ~7 KB ≈ 5 MB
STATUS_TARGET, PROMPT_LIMIT = 1.5, 0.050


def _grow_notes(workspace: Path) -> None:
    line = "- Met with the platform team about the storage driver; next step is the vendor ticket.\n"
    body = line * (NOTE_BYTES // len(line))
    day = date(2026, 12, 5)
    for i in range(NOTES):
        d = day - timedelta(days=i)
        (workspace / "memory" / f"{d.isoformat()}.md").write_text(f"# {d.isoformat()}\n\n{body}", encoding="utf-8")


def test_an_openclaw_home_with_two_years_of_notes_and_10000_recalls(tmp_path):
    home = copy_home("dreamed", tmp_path)
    workspace, db = home / "workspace", home / "state" / "openclaw.sqlite"
    _grow_notes(workspace)
    grow_recalls(db, RECALLS)
    files = sorted(workspace.glob("*.md")) + sorted((workspace / "memory").glob("*.md"))
    assert len(files) > NOTES

    def bare():
        for p in files:
            p.read_bytes()
        con = sqlite3.connect(f"file:{db}?mode=ro&immutable=1", uri=True)
        try:
            for (v,) in con.execute("SELECT value_json FROM plugin_state_entries WHERE namespace = 'short-term-recall'"):
                json.loads(v)
        finally:
            con.close()

    def ours():
        return read_status(open_home(home))

    st = ours()
    assert len(st.files) > NOTES              # every note is listed
    ws = open_home(home)
    assistant = assistant_of(ws)
    rows = [interleave("Dashboard read (read_status), 730 notes + 10,000 recalls", ours, bare, ROUNDS,
                       target=STATUS_TARGET),
            interleave("prompt preview (a private session)", lambda: assistant.build_prompt(ws, None, 0),
                       bare, ROUNDS, limit=PROMPT_LIMIT)]
    publish(table("OpenClaw home: two years of notes, 10,000 recall entries", rows,
                  "bare read of the same files and rows"))
