"""A real second process plays the assistant while each write operation runs from start to end:
it appends to memory/MEMORY.md in place and to history.jsonl with the assistant's own cursor
rule (max(.cursor, last cursor) + 1, no lock of ours), every few milliseconds. None of its bytes
are lost: every line it appended to MEMORY.md is in the file or in the archive, every history
entry it wrote is read, and no duplicate cursor is left."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from reliability.test_kills import OPS, _copy, _run_to_end, template  # noqa: F401  (template is a fixture)

WRITER = r"""
import json, os, sys, time
ws, stop = sys.argv[1], sys.argv[2]
mem, hist, cur = (os.path.join(ws, "memory", n) for n in ("MEMORY.md", "history.jsonl", ".cursor"))

def last_cursor():
    top = 0
    with open(hist, encoding="utf-8", errors="replace") as f:
        for line in f:
            try:
                c = json.loads(line)["cursor"]
                if isinstance(c, int) and not isinstance(c, bool):
                    top = max(top, c)
            except Exception:
                pass
    try:
        top = max(top, int(open(cur).read().strip() or 0))
    except (OSError, ValueError):
        pass
    return top

n = h = 0
while not os.path.exists(stop):
    with open(mem, "a", encoding="utf-8") as f:
        f.write(f"- outside line {n}\n")
    n += 1
    if n % 5 == 0:
        c = last_cursor() + 1
        with open(hist, "a", encoding="utf-8") as f:
            f.write(json.dumps({"cursor": c, "timestamp": "2026-12-01 10:00", "content": f"outside history {h}"}) + "\n")
        open(cur, "w").write(str(c))
        h += 1
    time.sleep(float(os.environ.get("WRITER_PERIOD", "0.02")))
print(n, h)
"""


@pytest.mark.parametrize("op", OPS)
def test_the_assistant_writing_throughout_loses_nothing(template, tmp_path, op):  # noqa: F811
    assert _race(template, tmp_path / "home", op) > 0       # it wrote throughout, and nothing was lost


@pytest.mark.slow
@pytest.mark.parametrize("op", OPS)
def test_ten_races_per_operation_lose_nothing(template, tmp_path, op):  # noqa: F811
    assert all(_race(template, tmp_path / f"home{i}", op) > 0 for i in range(RACES_SLOW))
    print(f"\n{op}: {RACES_SLOW} runs with the assistant writing throughout, nothing lost")


RACES_SLOW = 10


def _race(template: dict, home: Path, op: str) -> int:  # noqa: F811
    """One run of `op` from start to end with the assistant writing every 20 ms (often enough to
    land between Dreamdesk's check and its rename, rarely enough that some writes get there)."""
    from dreamdesk.engine.recovery.archive import read_archive
    from dreamdesk.engine.home.history import read_history
    from dreamdesk.engine.home.workspace import Workspace
    home = _copy(template, home)
    ws_root = home / "workspace"
    bad_before = len(read_history(ws_root / "memory/history.jsonl").bad_lines)
    stop = home.parent / f"stop-{home.name}"
    writer = subprocess.Popen([sys.executable, "-c", WRITER, str(ws_root), str(stop)], stdout=subprocess.PIPE,
                              text=True)
    try:
        code, err, _, _said = _run_to_end(op, home, template["targets"].get(op, ""))
    finally:
        stop.touch()
        n, h = map(int, writer.communicate(timeout=30)[0].split())
    assert "Traceback" not in err, err
    assert n > 0
    ws = Workspace.open(home)
    text = (ws_root / "memory/MEMORY.md").read_text(encoding="utf-8")
    archived = {r.text for r in read_archive(ws).records if r.file == "memory/MEMORY.md"}
    lost = [k for k in range(n) if f"- outside line {k}\n" not in text and f"- outside line {k}" not in archived]
    assert lost == [], f"{op}: {len(lost)} of {n} appended lines lost (e.g. {lost[:5]})"
    hist = read_history(ws_root / "memory/history.jsonl")
    read = {e.content for e in hist.entries}
    missing = [k for k in range(h) if f"outside history {k}" not in read]
    assert missing == [], f"{op}: history entries of the assistant not read: {missing[:5]}"
    assert len(hist.bad_lines) <= bad_before, f"{op}: {[b.why for b in hist.bad_lines[bad_before:]][:3]}"
    return n                                      # lines the assistant appended, all kept
