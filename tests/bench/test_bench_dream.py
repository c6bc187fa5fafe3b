"""Benchmark (issue 14 row 6): one Dream run of Dreamdesk against the loopback model answering at
once, vs nanobot 0.3.5's own Dream (its gateway cron job, driven by tests/interop/nanobot_driver.py
in nanobot's venv) on the same fixture: a home nanobot made, the same new history entries, the
same scripted answers. Interleaved A,B,A,B on fresh copies of the home.

Row 1 (the target, Dreamdesk ≤ 0.3× nanobot): each side's run timed inside its own process
(no interpreter start-up or imports; nanobot's agent is built untimed, as its gateway does once).
Row 2 (no target): the whole command in a fresh process each, start-up and imports included
(`python -m engine.cli dream HOME` vs `python nanobot_driver.py dream HOME`).
Run with `python -m pytest -m bench tests/bench/test_bench_dream.py` (nanobot from
$DREAMDESK_NANOBOT_PYTHON or /tmp/dreamdesk-nanobot-venv/bin/python; skipped without it)."""

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from bench_harness import Row, publish, table
from dreamdesk.engine.dream.run import DreamOptions, run_dream
from dreamdesk.engine.llm import choose_model, make_client
from dreamdesk.engine.home.workspace import Workspace
from helpers.llm_server import ScriptedLLMServer, turn

pytestmark = pytest.mark.bench
ROUNDS = 7
DEFAULT_PYTHON = "/tmp/dreamdesk-nanobot-venv/bin/python"
REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def nanobot_python() -> str:
    from interop.conftest import ENV_VAR, VERIFIED
    py = os.environ.get(ENV_VAR) or DEFAULT_PYTHON
    if not Path(py).is_file():
        pytest.skip(f"nanobot-ai {'/'.join(VERIFIED)} is not installed: set {ENV_VAR} to its venv's Python "
                    f"(looked for {py})")
    return py


@pytest.fixture(scope="module")
def nanobot(nanobot_python, tmp_path_factory):
    from interop.conftest import Nanobot
    nb = Nanobot(nanobot_python, tmp_path_factory.mktemp("nanobot-user-home"))
    yield nb
    nb.close()


@pytest.fixture
def fixture_home(nanobot, tmp_path):
    """fresh(): a copy of one home nanobot made (its config pointed at the copy, untimed), with
    the history entries of the first of nanobot's scripted Dream runs and that run's answers
    queued on the loopback model; then the model answers "Nothing more to do."."""
    from interop.nanobot_dream_runs import RUNS
    run = RUNS[0]          # reads USER.md, removes a line of it, rewrites one of MEMORY.md, answers
    srv = ScriptedLLMServer(default=turn(content="Nothing more to do.")).start()
    pristine = tmp_path / "pristine"
    nanobot("make-home", pristine)
    nanobot("use-model", pristine, srv.url)
    for line in run.history:
        nanobot.append_history(pristine, line)
    count = iter(range(1000))

    def fresh() -> Path:
        home = tmp_path / f"home-{next(count)}"
        shutil.copytree(pristine, home, symlinks=True)
        nanobot("patch-config", home, json.dumps({"agents": {"defaults": {"workspace": str(home / "workspace")}}}))
        assert not srv.script
        srv.add(*run.script(1))
        return home

    fresh.server = srv
    yield fresh
    srv.stop()


def measure(row: Row, srv, nanobots, ours) -> str:
    """Interleave the two sides (each returns its own duration); what each asked of the model."""
    calls: dict[str, set] = {"nanobot": set(), "Dreamdesk": set()}
    for _ in range(ROUNDS):
        for who, fn, times in (("nanobot", nanobots, row.base), ("Dreamdesk", ours, row.ours)):
            n_req, n_conn = len(srv.requests), srv.connections
            times.append(fn())
            calls[who].add((len(srv.requests) - n_req, srv.connections - n_conn))
    return "; ".join(f"{who}: " + ", ".join(f"{r} model calls over {c} connection(s)" for r, c in sorted(seen))
                     for who, seen in calls.items())


def test_dream_run_vs_nanobot(nanobot, nanobot_python, fixture_home):
    from interop.conftest import DRIVER, driver_env
    srv = fixture_home.server

    def nanobot_job() -> float:
        res = nanobot("dream", fixture_home())
        assert res["completed"] and res["sha"], res
        return res["seconds"]

    def our_run() -> float:
        ws = Workspace.open(fixture_home())
        t0 = time.perf_counter()
        choice, key = choose_model(ws.config())
        res = run_dream(ws, make_client(choice, key), DreamOptions())
        took = time.perf_counter() - t0
        assert res.status == "completed", res.outcome
        return took

    def timed_process(cmd: list, **kw) -> tuple[float, dict]:
        t0 = time.perf_counter()
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=120, **kw)
        took = time.perf_counter() - t0
        assert proc.returncode == 0, proc.stderr[-2000:]
        return took, json.loads(proc.stdout)

    def nanobot_process() -> float:
        home = fixture_home()
        took, res = timed_process([nanobot_python, str(DRIVER), "dream", str(home)], env=driver_env(home.parent))
        assert res["completed"] and res["sha"], res
        return took

    def our_process() -> float:
        took, res = timed_process([sys.executable, "-m", "dreamdesk.engine.cli", "dream", str(fixture_home()), "--json"],
                                  cwd=REPO, env=dict(os.environ, PYTHONPATH=str(REPO)))
        assert res["status"] == "completed", res["outcome"]
        return took

    in_process = Row("one Dream run, timed inside each process (Dreamdesk: choose the model + run_dream; "
                     "nanobot: its cron Dream job, agent prebuilt)", target=0.3)
    said = measure(in_process, srv, nanobot_job, our_run)
    cold = Row("the whole command in a fresh process (start-up, imports, nanobot's agent included)")
    measure(cold, srv, nanobot_process, our_process)
    publish(table(f"Dream run vs nanobot 0.3.5 ({said})", [in_process, cold], baseline="nanobot 0.3.5"))
    assert in_process.ratio <= in_process.target
