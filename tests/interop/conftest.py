"""The interop suite: nanobot-ai's own code (in its own virtual environment, driven by
subprocess through nanobot_driver.py) reads back what Dreamdesk wrote, on homes nanobot made.

nanobot's Python is found through DREAMDESK_NANOBOT_PYTHON (.ci/run sets it). Without it the
suite is skipped with one line; in CI (CI set) it fails instead, so it always runs there.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from helpers.toolchain import python_or_skip, require_version

HERE = Path(__file__).resolve().parent
DRIVER = HERE / "nanobot_driver.py"
VERIFIED = ("0.3.5",)          # the nanobot-ai versions this suite verifies (README says so too)
ENV_VAR = "DREAMDESK_NANOBOT_PYTHON"
TIMEOUT = 60


class NanobotError(AssertionError):
    pass


def driver_env(home_dir: Path) -> dict:
    """The environment nanobot's driver runs in: none of our Python's settings, a private HOME."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("NANOBOT_", "PYTHON", "VIRTUAL_ENV"))}
    env["HOME"] = str(home_dir)          # nanobot's ~/.nanobot (legacy sessions, CLI history): private
    env["NO_PROXY"] = env["no_proxy"] = "*"
    return env


class Nanobot:
    """nanobot's own code, one long-lived driver process (imports are paid once)."""

    def __init__(self, python: str, home_dir: Path):
        self.proc = subprocess.Popen([python, "-u", str(DRIVER), "serve"], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                     encoding="utf-8", env=driver_env(home_dir), cwd=str(home_dir))
        self._lock = threading.Lock()
        self._stderr: list[str] = []
        self._reader = threading.Thread(target=lambda: self._stderr.extend(self.proc.stderr), daemon=True)
        self._reader.start()
        hello = self._read()
        self.version = hello["version"]

    def _read(self) -> dict:
        line = self.proc.stdout.readline()
        if not line:
            raise NanobotError("nanobot's driver died:\n" + "".join(self._stderr[-40:]))
        return json.loads(line)

    def __call__(self, op: str, *args, ok: bool = True) -> dict:
        """One step of nanobot's code; a traceback inside nanobot fails the test with it."""
        with self._lock:
            self.proc.stdin.write(json.dumps([op, *[str(a) for a in args]]) + "\n")
            self.proc.stdin.flush()
            out = self._read()
        if ok and "error" in out:
            raise NanobotError(f"nanobot {op} {' '.join(map(str, args))} raised:\n{out['error']}")
        return out

    # the steps, by name
    def make_home(self, home: Path) -> dict:
        return self("make-home", home)

    def check(self, home: Path) -> dict:
        return self("check", home)

    def append_history(self, home: Path, text: str) -> int:
        return self("append-history", home, text)["cursor"]

    def save_config(self, home: Path) -> dict:
        return self("save-config", home)

    def archive(self, home: Path, key: str | None = None) -> dict:
        return self("archive-session", home, *([key] if key else []))

    def chat(self, home: Path, key: str, n: int) -> dict:
        return self("chat", home, key, n)

    def system_prompt(self, home: Path) -> str:
        return self("system-prompt", home)["text"]

    def dream_log(self, home: Path, sha: str = "") -> str:
        return self("dream-log", home, sha)["content"]

    def dream_restore(self, home: Path, sha: str = "") -> str:
        return self("dream-restore", home, sha)["content"]

    def close(self) -> None:
        try:
            self.proc.stdin.close()
            self.proc.wait(timeout=10)
        except (OSError, subprocess.TimeoutExpired):
            self.proc.kill()
            self.proc.wait()
        self._reader.join(timeout=5)
        self.proc.stdout.close()
        self.proc.stderr.close()


SKIP_PREFIX = "nanobot interop tests skipped"


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item, call):
    """Every interop test skipped for want of nanobot reports the same place, so `-ra` folds
    them into one line instead of one per test file."""
    rep = yield
    lr = rep.longrepr
    if rep.skipped and isinstance(lr, tuple) and len(lr) == 3 and SKIP_PREFIX in str(lr[2]):
        rep.longrepr = (str(HERE / "conftest.py"), 1, lr[2])
    return rep


@pytest.fixture(scope="session")
def _nanobot_session(tmp_path_factory):
    py = python_or_skip(ENV_VAR, "nanobot-ai", VERIFIED, SKIP_PREFIX, "interop suite")
    nb = Nanobot(py, tmp_path_factory.mktemp("nanobot-user-home"))
    require_version(nb, ENV_VAR, "nanobot-ai", VERIFIED)
    yield nb
    nb.close()


@pytest.fixture
def nanobot(_nanobot_session) -> Nanobot:
    return _nanobot_session


@dataclass
class Home:
    path: Path            # the home folder (config.json, sessions/, workspace/)
    made: dict = field(repr=False)    # what nanobot's make-home reported
    baseline: dict = field(repr=False)    # nanobot's check right after

    @property
    def ws(self) -> Path:
        return self.path / "workspace"

    def __str__(self) -> str:
        return str(self.path)

    def __fspath__(self) -> str:
        return str(self.path)


@pytest.fixture
def nanobot_home(nanobot, tmp_path) -> Home:
    """A fresh home made by nanobot itself: its config (saved by its own saver), workspace
    templates and git store, history entries, a `dream:` commit, sessions (a chat of 12
    messages, a short one, a `dream:<stamp>` Dream transcript) and `.nanobot/workspace-id`."""
    home = tmp_path / "home"
    made = nanobot.make_home(home)
    return Home(home, made, nanobot.check(home))



# -- homes written by nanobot's own Dream ---------------------------------------------------------
@dataclass
class DreamedHome(Home):
    """A nanobot home after several runs of nanobot's own gateway Dream (driver op `dream`)
    against the scripted loopback model: `runs[i]` is what the driver reported for RUNS[i]
    (its session key, whether it completed, its commit sha or None, the diff nanobot
    summarised, every usage record in the home's store by then)."""
    form: str = "lf"
    runs: list[dict] = field(default_factory=list, repr=False)

    @property
    def commits(self) -> list[str]:
        return [r["sha"] for r in self.runs if r["sha"]]


def _next_second(after: float | None) -> None:
    """nanobot names a Dream's session by the second it starts and git keeps commit times in
    seconds: a run starting in the second the last one committed would reuse its transcript
    or blur which commit is whose. Real runs are hours apart."""
    while after is not None and int(time.time()) <= int(after):
        time.sleep(0.05)


@dataclass
class DreamPlan:
    """One home to build with nanobot's own Dream: build_dreamed_home's arguments."""
    home: Path
    form: str = "lf"
    runs: tuple | list | None = None          # None: RUNS
    before: object = None                     # before(home) is called before the first run
    script: object = None                     # script(run, n): the model's turns (default run.script(n))


def build_dreamed_homes(nanobot, srv, plans: list[DreamPlan]) -> list[DreamedHome]:
    """make-home for each plan (crlf-bom: USER.md with CRLF line endings and a BOM), its config
    pointed at the loopback model `srv` (nanobot's `custom` provider), then nanobot's own Dream
    once per run, after nanobot appended that run's history lines. The homes take their runs in
    turns: each home's next run still starts in a later second than its last one ended
    (_next_second), and the other homes' runs take up that wait instead of a sleep."""
    from .nanobot_dream_runs import RUNS

    outs, todo, done = [], [], []
    for plan in plans:
        made = nanobot("make-home", plan.home, plan.form)
        nanobot("use-model", plan.home, srv.url)
        out = DreamedHome(plan.home, made, nanobot.check(plan.home), form=plan.form)
        if plan.before is not None:
            plan.before(out)
        outs.append(out)
        todo.append(list(enumerate(RUNS if plan.runs is None else plan.runs, 1)))
        done.append(time.time())          # make-home committed this second
    while any(todo):
        for i, plan in enumerate(plans):
            if not todo[i]:
                continue
            n, run = todo[i].pop(0)
            for line in run.history:
                nanobot.append_history(plan.home, line)
            srv.add(*(plan.script(run, n) if plan.script else run.script(n)))
            _next_second(done[i])
            res = nanobot("dream", plan.home)
            done[i] = time.time()
            if res["failed"] or not res["completed"] or srv.script:
                raise NanobotError(f"nanobot's Dream run {n} on {plan.home} went wrong: {res}")
            outs[i].runs.append(res)
    return outs


def build_dreamed_home(nanobot, srv, home: Path, form: str = "lf", runs=None, before=None,
                       script=None) -> DreamedHome:
    """One home, as build_dreamed_homes builds it. `before(home)` is called before the first
    run; `script(run, n)` gives the model's turns (default run.script(n))."""
    return build_dreamed_homes(nanobot, srv, [DreamPlan(home, form, runs, before, script)])[0]


@pytest.fixture
def make_dreamed_home(nanobot, llm_server, tmp_path):
    """Factory: make_dreamed_home(name="home", form="lf"|"crlf-bom", runs=RUNS, before=None,
    script=None): build_dreamed_home in this test's folder."""

    def make(name: str = "home", form: str = "lf", runs=None, **kw) -> DreamedHome:
        return build_dreamed_home(nanobot, llm_server(default=None), tmp_path / name, form, runs, **kw)

    return make


MARK = "own_dreamed_home"
FORMS = ("lf", "crlf-bom")


def pytest_configure(config):
    config.addinivalue_line("markers", f"{MARK}(form=None, runs=None, before=None): the test gets a "
                            "home of its own after nanobot's Dream ran `runs` on it (fixture own_dreamed_home), "
                            "built with the session's other dreamed homes; form None: the test's `form` parameter "
                            "or lf")


STATE_ENV = "DREAMDESK_STATE_DIR"


def _in_state(before, state: Path):
    """before(home), with Dreamdesk's own state (pins, seen files, ...) kept in `state`: the
    folder the test that owns the home gets as its state folder."""
    def run(home):
        old = os.environ.get(STATE_ENV)
        os.environ[STATE_ENV] = str(state)
        try:
            before(home)
        finally:
            if old is None:
                os.environ.pop(STATE_ENV, None)
            else:
                os.environ[STATE_ENV] = old
    return run


def _plans(session, base: Path) -> dict:
    """The dreamed homes the selected tests use: {form: DreamPlan} for the shared ones, {nodeid:
    DreamPlan} for each test marked own_dreamed_home (with the state folder it gets)."""
    plans: dict = {}
    for item in session.items:
        mark = item.get_closest_marker(MARK)
        if mark is not None:
            params = getattr(getattr(item, "callspec", None), "params", {})
            form = mark.kwargs.get("form") or params.get("form", "lf")
            folder = base / f"own-{len(plans)}"
            before = mark.kwargs.get("before")
            plans[item.nodeid] = DreamPlan(folder / "home", form, mark.kwargs.get("runs"),
                                           before and _in_state(before, folder / "state"))
        if "_dreamed_originals" in item.fixturenames:
            for form in FORMS:
                plans.setdefault(form, DreamPlan(base / f"dreamed-{form}" / "home", form))
    return plans


@pytest.fixture(scope="session")
def _dreamed_batch(_nanobot_session, tmp_path_factory, request):
    """Every dreamed home the selected tests use, built in one go on first use (their runs in
    turns: see build_dreamed_homes): the shared one of each form, and each marked test's own."""
    from helpers.llm_server import ScriptedLLMServer

    plans = _plans(request.session, tmp_path_factory.mktemp("dreamed"))
    srv = ScriptedLLMServer(default=None).start()
    try:
        homes = build_dreamed_homes(_nanobot_session, srv, list(plans.values())) if plans else []
    finally:
        srv.stop()
    return dict(zip(plans, homes))


@pytest.fixture(scope="session")
def _dreamed_originals(_dreamed_batch):
    """Each form's dreamed home, built once a session (with the batch) and never changed: tests
    get copies (`dreamed_copy`) or read it (checked)."""
    return lambda form: _dreamed_batch[form]


@pytest.fixture
def own_dreamed_home(_dreamed_batch, request, monkeypatch) -> DreamedHome:
    """This test's own dreamed home (see the own_dreamed_home mark), with the state folder its
    `before` wrote Dreamdesk's state into; the test may write into both."""
    assert request.node.get_closest_marker(MARK), f"mark the test with @pytest.mark.{MARK}(...)"
    home = _dreamed_batch.pop(request.node.nodeid)
    monkeypatch.setenv(STATE_ENV, str(home.path.parent / "state"))
    return home


@pytest.fixture
def dreamed_copy(_nanobot_session, _dreamed_originals, tmp_path):
    """Factory: dreamed_copy(form) is a private copy of the session's dreamed home of that form
    (the bytes nanobot wrote, mtimes kept), its config then pointed at the copy's workspace by
    nanobot's own settings saver, as after moving a home. Saves ~5 s per test."""

    def copy(form: str = "lf", name: str = "home") -> DreamedHome:
        src = _dreamed_originals(form)
        dest = tmp_path / name
        shutil.copytree(src.path, dest, symlinks=True)
        _nanobot_session("patch-config", dest, json.dumps({"agents": {"defaults": {"workspace": str(dest / "workspace")}}}))
        return DreamedHome(dest, src.made, src.baseline, form=src.form, runs=src.runs)

    return copy


def _read_only(home: DreamedHome):
    """The session's home, for a test that only reads it; afterwards it must be byte- and
    mtime-identical (whatever a test reads through Dreamdesk writes nothing in a home)."""
    from conftest import tree_state
    before = tree_state(home.path)
    yield home
    assert tree_state(home.path) == before, "a read-only test wrote into the shared dreamed home"


@pytest.fixture
def nanobot_dreamed_home(_dreamed_originals):
    """A home (LF files) after nanobot's own Dream ran RUNS: three `dream: periodic memory
    consolidation` commits that removed real lines of USER.md and memory/MEMORY.md, then a run
    that changed nothing (no commit); four transcripts and the usage records nanobot kept. Built
    once a session and shared by tests that only read it (checked); a test that writes builds its
    own with make_dreamed_home()."""
    yield from _read_only(_dreamed_originals("lf"))


@pytest.fixture
def nanobot_dreamed_home_crlf(_dreamed_originals):
    """The same runs on a home whose USER.md has CRLF line endings and a BOM (shared, read-only)."""
    yield from _read_only(_dreamed_originals("crlf-bom"))
