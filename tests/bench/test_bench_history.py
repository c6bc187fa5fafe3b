"""Benchmarks (issue 14 row 7, design item 2): `dreamdesk history --json` on 100,000 lines against
a script that json.loads and json.dumps each line (time and peak memory of each child process),
and the Workspace's incremental history reader after a one-line append and on an unchanged file.

Run with `python -m pytest -m bench tests/bench/test_bench_history.py` (the tables print without
-s). DREAMDESK_BENCH_CHECKOUT=/path/to/a/checkout runs the CLI of that checkout instead (the
"before" numbers: main builds everything in memory and dumps it once)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from datetime import datetime, timedelta
from pathlib import Path

import pytest
from bench_harness import Row, interleave, publish, table

from dreamdesk.engine.home.history import HistoryReader, read_history

pytestmark = pytest.mark.bench
LINES = 100_000
ROUNDS = 5
CHECKOUT = Path(os.environ.get("DREAMDESK_BENCH_CHECKOUT", Path(__file__).resolve().parents[2]))

BASELINE = """
import json, sys
out = sys.stdout
with open(sys.argv[1], "rb") as f:
    for raw in f:
        if raw.strip():
            out.write(json.dumps(json.loads(raw), ensure_ascii=False) + "\\n")
"""
# The same work with Dreamdesk's CLI modules loaded first: what memory the streaming itself adds.
BASELINE_LOADED = "import dreamdesk.engine.cli\n" + BASELINE
CLI = "import runpy\nrunpy.run_module('dreamdesk.engine.cli', run_name='__main__', alter_sys=True)\n"   # python -m engine.cli
# Each child says its own peak: ru_maxrss from wait4 would count the pytest process it was forked
# from (the high-water mark survives exec); VmHWM is that of the program after exec.
PEAK = """import atexit, os
def _peak():
    with open("/proc/self/status") as f:
        kb = next(line.split()[1] for line in f if line.startswith("VmHWM:"))
    os.write(2, b"peak-kb %s\\n" % kb.encode())
atexit.register(_peak)
"""


def write_history(root: Path, n: int = LINES) -> Path:
    """A workspace whose history has n entries, 7 minutes apart, half of them dreamed."""
    (root / "memory").mkdir(parents=True)
    (root / "SOUL.md").write_text("I am Jenny.\n")
    start = datetime(2026, 1, 1, 8, 0)
    with open(root / "memory" / "history.jsonl", "w", encoding="utf-8") as f:
        for i in range(1, n + 1):
            f.write(json.dumps({"cursor": i, "timestamp": (start + timedelta(minutes=7 * i)).strftime("%Y-%m-%d %H:%M"),
                                "content": f"- [durable] fact {i} about tea and rain ✓ " * 3,
                                "session_key": "cli:direct"}, ensure_ascii=False) + "\n")
    (root / "memory" / ".cursor").write_text(str(n))
    (root / "memory" / ".dream_cursor").write_text(str(n // 2))
    return root / "memory" / "history.jsonl"


def child(code: str, args: list[str], peaks: list[float]) -> None:
    """Run a Python child with its output thrown away; note its peak resident memory (MB)."""
    run = subprocess.run([sys.executable, "-c", PEAK + code, *args], cwd=CHECKOUT, stdout=subprocess.DEVNULL,
                         stderr=subprocess.PIPE, env=dict(os.environ, PYTHONPATH=str(CHECKOUT)), check=True)
    peaks.append(int(run.stderr.split()[-1]) / 1024)


def test_history_json_streams_against_loads_and_dumps_per_line(tmp_path):
    ws = tmp_path / "ws"
    path = write_history(ws)
    cli = [sys.executable, "-m", "dreamdesk.engine.cli", "history", str(ws), "--json"]
    out = subprocess.run(cli, cwd=CHECKOUT, env=dict(os.environ, PYTHONPATH=str(CHECKOUT)),
                         capture_output=True, check=True).stdout
    assert len(json.loads(out)["entries"]) == LINES           # the real thing, checked once, untimed
    mem = {"ours": [], "base": [], "loaded": []}
    speed = interleave(f"`history --json`, {LINES:,} lines", lambda: child(CLI, cli[3:], mem["ours"]),
                       lambda: child(BASELINE, [str(path)], mem["base"]), rounds=ROUNDS, target=1.5)
    for _ in range(ROUNDS):
        child(BASELINE_LOADED, [str(path)], mem["loaded"])
    bare = Row("peak memory (VmHWM)", mem["ours"], mem["base"], unit="MB")
    loaded = Row("peak memory, baseline with the CLI's modules loaded", mem["ours"], mem["loaded"],
                 target=1.5, unit="MB")
    publish(table(f"dreamdesk history --json, {path.stat().st_size / 1e6:.0f} MB, CLI of {CHECKOUT.name}",
                  [speed, bare, loaded], baseline="json.loads + json.dumps per line"))
    assert speed.ratio <= speed.target and loaded.ratio <= loaded.target


def test_incremental_reader_after_an_append_and_when_unchanged(tmp_path):
    path = write_history(tmp_path / "ws")
    reader = HistoryReader(path)
    assert len(reader.read().entries) == LINES
    added = []

    def append():
        line = json.dumps({"cursor": LINES + len(added) + 1, "timestamp": "2026-12-01 10:00",
                           "content": "- one more fact"}).encode() + b"\n"
        with open(path, "ab") as f:
            f.write(line)
        added.append(line)

    tail = interleave("read after a one-line append", reader.read, lambda: json.loads(added[-1]),
                      rounds=9, setup=append)
    whole = interleave("read after a one-line append, vs reading it whole", reader.read,
                       lambda: read_history(path), rounds=3, setup=append)

    def settle():                      # unchanged for a while, and read once since
        then = time.time_ns() - 60 * 10**9
        os.utime(path, ns=(then, then))
        reader.read()

    before = reader.stats["unchanged"]
    same = interleave("read of an unchanged file", reader.read, lambda: os.stat(path), rounds=9, setup=settle)
    assert reader.stats["unchanged"] - before == 9
    assert reader.read() == read_history(path)
    rows = [Row(r.name, [t * 1e6 for t in r.ours], [t * 1e6 for t in r.base], unit="µs") for r in (tail, whole, same)]
    publish(table(f"HistoryReader, {LINES:,}-line history.jsonl", rows,
                  baseline="json.loads of the line / read_history / os.stat"))
