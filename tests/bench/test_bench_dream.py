"""Benchmark (issue 14 row 6): one Dream run of Dreamdesk against the loopback model answering at
once, vs nanobot 0.3.5's own Dream (its gateway cron job, driven by tests/interop/nanobot_driver.py
in nanobot's venv) on the same fixture: a home nanobot made, the same new history entries, the
same scripted answers. Interleaved A,B,A,B on fresh copies of the home. Each side's run is timed
inside its own process (interpreter start-up, imports and building nanobot's agent, which its
gateway does once, are not counted). Target: Dreamdesk ≤ 0.3× nanobot.
Run with `python -m pytest -m bench tests/bench/test_bench_dream.py` (nanobot from
$DREAMDESK_NANOBOT_PYTHON or /tmp/dreamdesk-nanobot-venv/bin/python; skipped without it)."""

import json
import os
import shutil
import time
from pathlib import Path

import pytest

from bench_harness import Row, publish, table
from engine.dream.run import DreamOptions, run_dream
from engine.llm import choose_model, make_client
from engine.workspace import Workspace
from llm_server import ScriptedLLMServer, turn

pytestmark = pytest.mark.bench
ROUNDS = 7
DEFAULT_PYTHON = "/tmp/dreamdesk-nanobot-venv/bin/python"


@pytest.fixture(scope="module")
def nanobot(tmp_path_factory):
    from interop.conftest import ENV_VAR, VERIFIED, Nanobot
    py = os.environ.get(ENV_VAR) or DEFAULT_PYTHON
    if not Path(py).is_file():
        pytest.skip(f"nanobot-ai {'/'.join(VERIFIED)} is not installed: set {ENV_VAR} to its venv's Python "
                    f"(looked for {py})")
    nb = Nanobot(py, tmp_path_factory.mktemp("nanobot-user-home"))
    yield nb
    nb.close()


def test_dream_run_vs_nanobot(nanobot, tmp_path):
    from interop.nanobot_dream_runs import RUNS
    run = RUNS[0]          # reads USER.md, removes a line of it, rewrites one of MEMORY.md, answers
    srv = ScriptedLLMServer(default=turn(content="Nothing more to do.")).start()
    try:
        pristine = tmp_path / "pristine"
        nanobot("make-home", pristine)
        nanobot("use-model", pristine, srv.url)
        for line in run.history:
            nanobot.append_history(pristine, line)
        copies = iter(range(2 * ROUNDS))

        def fresh() -> Path:
            """A copy of the pristine home, its config pointed at the copy (untimed), the
            model's answers for one run queued."""
            home = tmp_path / f"home-{next(copies)}"
            shutil.copytree(pristine, home, symlinks=True)
            nanobot("patch-config", home, json.dumps({"agents": {"defaults": {"workspace": str(home / "workspace")}}}))
            assert not srv.script
            srv.add(*run.script(1))
            return home

        def nanobots() -> float:
            res = nanobot("dream", fresh())
            assert res["completed"] and res["sha"], res
            return res["seconds"]

        def ours() -> float:
            ws = Workspace.open(fresh())
            t0 = time.perf_counter()
            choice, key = choose_model(ws.config())
            res = run_dream(ws, make_client(choice, key), DreamOptions())
            took = time.perf_counter() - t0
            assert res.status == "completed", res.outcome
            return took

        row = Row("one Dream run, timed inside each process (Dreamdesk: choose the model, run_dream; "
                  "nanobot: its cron Dream job, agent prebuilt)", target=0.3)
        calls, conns = {"nanobot": [], "Dreamdesk": []}, {"nanobot": [], "Dreamdesk": []}
        for _ in range(ROUNDS):
            for who, fn, times in (("nanobot", nanobots, row.base), ("Dreamdesk", ours, row.ours)):
                n_req, n_conn = len(srv.requests), srv.connections
                times.append(fn())
                calls[who].append(len(srv.requests) - n_req)
                conns[who].append(srv.connections - n_conn)
    finally:
        srv.stop()
    said = {who: f"{max(calls[who])} model calls over {max(conns[who])} connection(s)" for who in calls}
    publish(table(f"Dream run vs nanobot 0.3.5 (Dreamdesk: {said['Dreamdesk']}; nanobot: {said['nanobot']})",
                  [row], baseline="nanobot 0.3.5"))
    assert row.ratio <= row.target
