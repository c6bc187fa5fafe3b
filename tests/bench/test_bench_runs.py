"""Benchmark (issue 14 row 8, design item 2): the Dream runs tab at 1,000 run records, against a
bare loop that json.loads the same 1,000 files, interleaved A,B,A,B. Rows: list_runs with nothing
kept (a first open), list_runs again (the records kept by their stat, engine/disk/stat_memo.py), and
a load of the tab (refresh: the records read on the reader thread, then the rows shown).
Target: the tab load ≤ 100 ms. Run with `python -m pytest -m bench tests/bench/test_bench_runs.py`
(the table prints without -s, with the machine and its load).

The records are the demo's own eight (resources/demo-history), written again by save_record
every 6 hours for 250 days, then slimmed by the 30-day retention as Dream does after each run
(records.prune): about 120 full records and 880 pruned ones, ~4 MB."""

import json
import os
import time
from datetime import datetime, timedelta

import pytest
from bench_harness import interleave, publish, table

from dreamdesk.engine.dream import records
from dreamdesk.engine.disk.stat_memo import forget_all
from dreamdesk.engine.home.workspace import Workspace
from dreamdesk.engine.core.resources import resource
from dreamdesk.gui.app.app import build_demo_copy
from dreamdesk.gui.qt import QApplication
from dreamdesk.gui.views.runs_view import RunsView

pytestmark = pytest.mark.bench
RUNS = 1000
ROUNDS = 7
TAB_LOAD_LIMIT = 0.100


def write_runs(ws: Workspace, n: int = RUNS) -> None:
    """n run records after the demo's (their templates), the older ones pruned; dated 10 s back so
    they count as settled (engine/disk/stat_memo.py), as a workspace's records are between two looks."""
    tmpl = [json.loads(p.read_text(encoding="utf-8"))
            for p in sorted(resource("demo-history", "memory", "dreams").glob("r-*.json"))]
    start = datetime(2026, 1, 1, 3, 0, 0).astimezone()
    have = len(list(ws.dreams_dir.glob("r-*.json")))
    for i in range(n - have):
        t = start + timedelta(hours=6 * i)
        rec = dict(tmpl[i % len(tmpl)], id="r-" + t.strftime("%Y%m%d-%H%M%S"), run_number=100 + i,
                   started=t.isoformat(timespec="seconds"),
                   finished=(t + timedelta(seconds=40 + i % 50)).isoformat(timespec="seconds"))
        records.save_record(ws, rec)
    records.prune(ws, t + timedelta(hours=1))
    past = time.time_ns() - 10_000_000_000
    for p in ws.dreams_dir.iterdir():
        os.utime(p, ns=(past, past))


def test_runs_tab_at_1000_records(tmp_path, qtbot, gui_engine):
    ws = Workspace.open(build_demo_copy(tmp_path) / "workspace")
    write_runs(ws)
    paths = sorted(ws.dreams_dir.glob("r-*.json"))
    assert len(paths) == RUNS

    def bare():
        for p in paths:
            json.loads(p.read_bytes())

    view = RunsView(gui_engine)
    qtbot.addWidget(view)
    view.resize(1200, 820)
    view.show()
    qtbot.waitExposed(view)
    view.set_workspace(ws)
    qtbot.waitUntil(lambda: view.model.rowCount() == RUNS, timeout=30000)

    def idle():
        qtbot.waitUntil(lambda: not gui_engine._callbacks, timeout=30000)     # the detail of the last load shown

    def tab_load():
        with qtbot.waitSignal(view.model.modelReset, timeout=30000):
            view.refresh()
        QApplication.processEvents()                                        # the rows painted

    rows = [interleave("list_runs, nothing kept (first open)", lambda: records.list_runs(ws), bare, ROUNDS,
                       setup=forget_all),
            interleave("list_runs again (kept by stat)", lambda: records.list_runs(ws), bare, ROUNDS),
            interleave("Dream runs tab load (refresh → rows shown)", tab_load, bare, ROUNDS, setup=idle,
                       limit=TAB_LOAD_LIMIT)]
    runs, problems = records.list_runs(ws)
    assert len(runs) == RUNS and not problems
    size = sum(p.stat().st_size for p in paths)
    publish(table(f"Dream runs, {RUNS:,} records ({size / 1e6:.1f} MB, "
                  f"{sum(1 for r in runs if r.pruned_at):,} pruned)", rows,
                  baseline=f"json.loads of the {RUNS:,} files"))
    tab = rows[-1]
    assert sorted(tab.ours)[len(tab.ours) // 2] <= TAB_LOAD_LIMIT, tab.ours
