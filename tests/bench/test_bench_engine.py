"""Benchmarks: ratios against a baseline measured in the same run (never absolute timings).
Run with `python3 -m pytest -m bench tests/bench -s`."""

import json
import subprocess
import time

import pytest

from dreamdesk.engine.home.history import parse_history
from dreamdesk.engine.versions.snapshots import SnapshotStore
from dreamdesk.engine.home.workspace import Workspace

pytestmark = pytest.mark.bench


def best_of(fn, n=5):
    times = []
    for _ in range(n):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times)


def test_history_reader_vs_bare_json_loads():
    lines = [json.dumps({"cursor": i, "timestamp": "2026-11-01 10:00", "content": f"- [durable] fact {i} " * 5,
                         "session_key": "cli:direct"}) for i in range(1, 100_001)]
    data = ("\n".join(lines) + "\n").encode()

    def bare():
        for raw in data.split(b"\n"):
            if raw:
                json.loads(raw)

    base = best_of(bare)
    ours = best_of(lambda: parse_history(data))
    ratio = ours / base
    print(f"\nhistory: 100,000 lines, bare json.loads {base * 1000:.0f} ms, parse_history {ours * 1000:.0f} ms, "
          f"ratio {ratio:.2f}")
    assert ratio < 4      # validation, line numbers and offsets cost at most a few json.loads


def test_size_history_one_pass_vs_checkout_per_commit(make_workspace):
    root = make_workspace({"USER.md": "# U\n", "SOUL.md": "s", "memory/MEMORY.md": "m"})
    ws = Workspace.open(root)
    store = SnapshotStore(ws)
    for i in range(60):
        (root / "USER.md").write_text("# U\n" + "- fact\n" * i)
        store.snapshot(f"edit: {i}")
    shas = [s.sha for s in store.list()]

    def naive():
        for sha in shas:
            for path in ("SOUL.md", "USER.md", "memory/MEMORY.md"):
                subprocess.run(["git", f"--git-dir={store.git_dir}", "show", f"{sha}:{path}"],
                               capture_output=True, check=False)

    def ours():
        store._blob_cache.clear()
        store.size_history()

    base = best_of(naive, 2)
    t = best_of(ours, 3)
    print(f"\nsize history: {len(shas)} snapshots, git show per file per commit {base * 1000:.0f} ms, "
          f"one log + one cat-file pass {t * 1000:.0f} ms, ratio {t / base:.3f}")
    assert t < base
