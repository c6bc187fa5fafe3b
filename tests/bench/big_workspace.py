"""A demo copy (with its recorded past: snapshots, runs, archive) grown to the sizes issue 14
measures at: a 100,000-line history.jsonl and 1,000 Dream run records."""

from __future__ import annotations

import json
from pathlib import Path

HISTORY_LINES = 100_000
RUN_RECORDS = 1000


def history_bytes(n: int = HISTORY_LINES) -> bytes:
    lines = [json.dumps({"cursor": i, "timestamp": f"2026-11-{(i % 28) + 1:02d} 10:00",
                         "content": f"- [durable] fact {i}: " + "likes tea and the NAS " * 3,
                         "session_key": "cli:direct"}) for i in range(1, n + 1)]
    return ("\n".join(lines) + "\n").encode()


def run_record(i: int) -> dict:
    day = f"2026-{10 + i // 500:02d}-{i % 28 + 1:02d}"
    rid = f"r-{day.replace('-', '')}-{i:06d}"
    return {"id": rid, "started": f"{day}T10:00:00+00:00", "finished": f"{day}T10:01:00+00:00", "status": "ok",
            "trigger": "manual", "outcome": "Dreamed 3 entries into MEMORY.md.", "tokens": {"input": 1000, "output": 200},
            "writes": [{"file": "memory/MEMORY.md", "before": 1000, "size": 1100}],
            "created": [{"file": "memory/MEMORY.md", "text": f"- fact {i}", "pass": "main", "kind": "add",
                         "sources": [i]}], "archived": [], "refused": []}


def grow(home: Path, history: bool = True, runs: bool = True) -> Path:
    """The workspace folder of `home`, grown in place."""
    ws = home / "workspace"
    if history:
        (ws / "memory" / "history.jsonl").write_bytes(history_bytes())
        (ws / "memory" / ".cursor").write_text(str(HISTORY_LINES))
        (ws / "memory" / ".dream_cursor").write_text(str(HISTORY_LINES - 10))
    if runs:
        d = ws / "memory" / "dreams"
        d.mkdir(exist_ok=True)
        for i in range(RUN_RECORDS):
            rec = run_record(i)
            (d / f"{rec['id']}.json").write_text(json.dumps(rec))
    return ws
