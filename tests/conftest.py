"""Shared fixtures. Qt runs offscreen in every test run (CI sets it too)."""

from __future__ import annotations

import json
import os
import shutil
import sys
from contextlib import contextmanager
from pathlib import Path

import pytest

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from helpers.fake_templates import fake_templates  # noqa: E402,F401  (a fixture: stand-ins for nanobot's templates)

REPO = Path(__file__).resolve().parent.parent
DEMO_HOME = REPO / "resources" / "demo"


@pytest.fixture(scope="session")
def _runtime_root():
    """A short private folder for the app's single-instance socket: a window a test opens and
    never quits would otherwise leave its socket in /tmp (the path must stay under ~100 bytes)."""
    import tempfile
    d = tempfile.mkdtemp(prefix="ddrt-")
    yield d
    shutil.rmtree(d, ignore_errors=True)


@pytest.fixture(autouse=True)
def private_state(tmp_path_factory, monkeypatch, _runtime_root) -> Path:
    """Dreamdesk's own per-workspace state (locks, journal, remembered settings) goes to a
    private folder in every test, never the user's, and is inherited by subprocesses."""
    d = tmp_path_factory.mktemp("dreamdesk-state")
    monkeypatch.setenv("DREAMDESK_STATE_DIR", str(d))
    # and its cache of what it derived from snapshot repositories (engine/versions/commit_cache.py)
    monkeypatch.setenv("DREAMDESK_CACHE_DIR", str(tmp_path_factory.mktemp("dreamdesk-cache")))
    # its log file (engine/core/logs.py), and no keyring of this machine for an app started in a subprocess
    monkeypatch.setenv("DREAMDESK_LOG_DIR", str(tmp_path_factory.mktemp("dreamdesk-logs")))
    monkeypatch.setenv("PYTHON_KEYRING_BACKEND", "keyring.backends.fail.Keyring")
    monkeypatch.setenv("XDG_RUNTIME_DIR", _runtime_root)
    return d


@pytest.fixture(autouse=True)
def no_known_secrets():
    """Each test starts with no secrets registered (a key one test used must not mask text in
    the next)."""
    from dreamdesk.engine.core import redact
    redact.forget_all()
    yield
    redact.forget_all()


@pytest.fixture(autouse=True)
def no_system_keyring():
    """No test touches the keyring of the machine it runs on: keyring's fail backend (what a
    machine without any keyring has) unless a test asks for memory_keyring; and no key one test
    stored is known to the next."""
    import keyring
    from keyring.backends import fail

    from dreamdesk.engine.desktop import keychain
    before = keyring.get_keyring()
    keyring.set_keyring(fail.Keyring())
    keychain.forget_session()
    yield
    keychain.forget_session()
    keyring.set_keyring(before)


@pytest.fixture
def brief_job_lock_wait(monkeypatch):
    """For a test that holds the workspace's job lock on purpose: a job gives up after 50 ms
    instead of the product's 2 s (engine/recovery/job_lock.py JOB_LOCK_TIMEOUT); what it does when it
    gives up is the same. Only for jobs in this process (threads included), not subprocesses."""
    from dreamdesk.engine.recovery import job_lock
    monkeypatch.setattr(job_lock, "JOB_LOCK_TIMEOUT", 0.05)


@pytest.fixture
def memory_keyring():
    """A working keyring that lives in this test's memory: {(service, account): password}."""
    import keyring
    from keyring.backend import KeyringBackend

    class MemoryKeyring(KeyringBackend):
        priority = 1

        def __init__(self):
            super().__init__()
            self.items: dict[tuple[str, str], str] = {}

        def get_password(self, service, username):
            return self.items.get((service, username))

        def set_password(self, service, username, password):
            self.items[(service, username)] = password

        def delete_password(self, service, username):
            from keyring.errors import PasswordDeleteError
            if self.items.pop((service, username), None) is None:
                raise PasswordDeleteError("no such password")

    backend = MemoryKeyring()
    keyring.set_keyring(backend)
    return backend.items


@contextmanager
def logging_into(folder: Path):
    """dreamdesk.engine.core.logs.setup() writing into `folder`; the logging configuration is put back after."""
    import logging

    from dreamdesk.engine.core import logs
    levels = {n: logging.getLogger(n).level for n in ("", *logs.OURS)}
    old = os.environ.get(logs.ENV)
    os.environ[logs.ENV] = str(folder)
    try:
        yield logs.setup()
    finally:
        logs.teardown()
        for name, level in levels.items():
            logging.getLogger(name).setLevel(level)
        if old is None:
            os.environ.pop(logs.ENV, None)
        else:
            os.environ[logs.ENV] = old


@pytest.fixture
def log_file(tmp_path):
    """The log file, set up in this test's folder."""
    with logging_into(tmp_path / "logs") as path:
        yield path


@pytest.fixture(scope="session")
def history_home(tmp_path_factory) -> Path:
    """The demo with its recorded past (snapshots, runs, archive), built once; tests copy it."""
    from dreamdesk.gui.app.app import build_demo_copy
    return build_demo_copy(tmp_path_factory.mktemp("demo-data"))


@pytest.fixture
def demo_home(tmp_path: Path) -> Path:
    """A private copy of the demo home (config.json, sessions/, workspace/)."""
    dest = tmp_path / "demo"
    shutil.copytree(DEMO_HOME, dest, symlinks=True)
    return dest


def pending_files(*contents: str, **files: str) -> dict[str, str]:
    """A workspace whose history holds `contents` (cursors 1, 2, …) none of which Dream has read,
    with the three memory files (a few words each unless given: SOUL="…", USER="…")."""
    history = "".join(json.dumps({"cursor": c, "timestamp": "2026-11-01 10:00", "content": text,
                                  "session_key": "x"}) + "\n" for c, text in enumerate(contents, 1))
    return {"SOUL.md": files.get("SOUL", "# Soul\n"), "USER.md": files.get("USER", "# User\n"),
            "memory/MEMORY.md": "# Memory\n", "memory/history.jsonl": history,
            "memory/.cursor": str(len(contents)), "memory/.dream_cursor": "0"}


@pytest.fixture
def make_workspace(tmp_path: Path):
    """Build a small workspace from a dict {relative path: str | bytes}."""

    def make(files: dict[str, str | bytes], root: Path | None = None) -> Path:
        base = root or (tmp_path / "ws")
        base.mkdir(parents=True, exist_ok=True)
        (base / "memory").mkdir(exist_ok=True)
        for rel, content in files.items():
            p = base / rel
            p.parent.mkdir(parents=True, exist_ok=True)
            if isinstance(content, bytes):
                p.write_bytes(content)
            else:
                p.write_bytes(content.encode("utf-8"))
        return base

    return make


def tree_state(root: Path) -> dict[str, tuple[bytes | None, int]]:
    """Every path under root with its bytes (None for folders) and mtime_ns: detects any write."""
    out = {}
    for p in sorted(Path(root).rglob("*")):
        st = p.lstat()
        data = p.read_bytes() if p.is_file() and not p.is_symlink() else None
        out[str(p.relative_to(root))] = (data, st.st_mtime_ns)
    return out


@pytest.fixture
def llm_server():
    """Start scripted chat-completions servers on 127.0.0.1; all are stopped after the test."""
    from helpers.llm_server import ScriptedLLMServer

    servers = []

    def start(script=None, default=None):
        s = ScriptedLLMServer(script, default).start()
        servers.append(s)
        return s

    yield start
    for s in servers:
        s.stop()


@pytest.fixture
def gui_env(tmp_path, monkeypatch, qapp):
    """Private QSettings and data dirs for GUI tests; errors print instead of opening dialogs."""
    from PySide6.QtCore import QSettings

    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg-data"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg-config"))
    QSettings.setDefaultFormat(QSettings.Format.IniFormat)
    QSettings.setPath(QSettings.Format.IniFormat, QSettings.Scope.UserScope, str(tmp_path / "qsettings"))
    qapp.setOrganizationName("Dreamdesk")
    qapp.setApplicationName("Dreamdesk")
    qapp.dreamdesk_quiet_errors = True
    yield tmp_path
    QSettings("Dreamdesk", "Dreamdesk").clear()


def show_view(qtbot, view, ws, size: tuple[int, int] = (1200, 720)):
    """A view shown at `size` (offscreen), then given the workspace: how the tab views are tested."""
    qtbot.addWidget(view)
    view.resize(*size)
    view.show()
    qtbot.waitExposed(view)
    view.set_workspace(ws)
    return view


def open_window(qtbot, home: Path):
    """The real main window, shown, on `home` (registered as the demo, so it plays offline)."""
    from dreamdesk.gui.app import settings_store
    from dreamdesk.gui.window.main_window import MainWindow
    from dreamdesk.gui.window.window_fit import LAPTOP, first_size

    settings_store.set_demo_home(str(home))
    win = MainWindow()
    # offscreen's screen is 800×800 and the window fits it; tests (and their screenshots) see the
    # window a 1280×720 laptop opens, the smallest screen it is laid out for
    win.resize(first_size(LAPTOP))
    win.unsaved_choice = lambda: "discard"
    win.unapplied_choice = lambda count: "discard"       # (tests that ask about it set their own)
    win.confirm_quit_while_busy = lambda jobs: True      # tests that close mid-job quit, as before
    qtbot.addWidget(win)
    win.show()
    qtbot.waitExposed(win)
    assert win.open_workspace(str(home))
    qtbot.waitUntil(lambda: win.state is not None, timeout=10000)
    from helpers.gui_waits import jobs_done
    jobs_done(qtbot, win.engine)          # what opening queued (the watch's first look) is done too
    return win


@pytest.fixture
def gui_engine(qtbot):
    """The window's worker lanes on their own, for a view tested without the window."""
    from dreamdesk.gui.context.worker import JobLanes
    e = JobLanes()
    yield e
    e.shutdown()


@pytest.fixture
def main_window(gui_env, qtbot, demo_home):
    """The real main window on a private copy of the demo."""
    win = open_window(qtbot, demo_home)
    yield win
    win.close()


@pytest.fixture
def past_window(gui_env, qtbot, history_home, tmp_path):
    """The real main window on a copy of the demo with its recorded past (archive, snapshots, runs)."""
    home = tmp_path / "past"
    shutil.copytree(history_home, home, symlinks=True)
    win = open_window(qtbot, home)
    yield win
    win.close()


def dark_palette():
    """A dark palette for GUI tests and the dark screenshots (the views must stay readable)."""
    from PySide6.QtGui import QColor, QPalette
    pal = QPalette()
    for role, col in [(QPalette.Window, "#2b2b2b"), (QPalette.WindowText, "#e6e6e6"), (QPalette.Base, "#1e1e1e"),
                      (QPalette.AlternateBase, "#262626"), (QPalette.Text, "#e6e6e6"),
                      (QPalette.Button, "#353535"), (QPalette.ButtonText, "#e6e6e6"),
                      (QPalette.Highlight, "#2f6fb3"), (QPalette.HighlightedText, "#ffffff"),
                      (QPalette.PlaceholderText, "#8a8a8a"), (QPalette.ToolTipBase, "#333333"),
                      (QPalette.ToolTipText, "#e6e6e6"), (QPalette.Link, "#7fb4ff")]:
        for group in (QPalette.Active, QPalette.Inactive):
            pal.setColor(group, role, QColor(col))
    return pal


SUMMARY: list[tuple[str, str]] = []      # (section, table) a test shows in pytest's summary


def print_in_summary(section: str, text: str) -> None:
    """Show `text` under `section` in pytest's terminal summary (seen without -s), as the
    benchmark tables are."""
    SUMMARY.append((section, text))


@pytest.hookimpl(tryfirst=True)
def pytest_configure(config):
    # benchmarks run alone: two workers would measure each other (addopts runs the rest on two)
    marks = config.getoption("markexpr", "") or ""
    if "bench" in marks and "not bench" not in marks:
        config.option.dist, config.option.numprocesses = "no", 0


def _summaries() -> list[tuple[str, str]]:
    """(section, text) of every table this process measured: the benchmarks', then the others."""
    harness = sys.modules.get("bench_harness")
    return [("benchmarks", t) for t in (harness.TABLES if harness is not None else [])] + SUMMARY


WORKER_SUMMARIES: list[tuple[str, str]] = []     # the tables the xdist workers measured, on the controller


def pytest_sessionfinish(session):
    # an xdist worker hands its tables to the controller, which prints them in its summary
    if hasattr(session.config, "workeroutput"):
        session.config.workeroutput["dreamdesk_summaries"] = json.dumps(_summaries())


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node, error):
    # (a worker that crashed has no output to hand on: xdist reports the crash itself)
    output = getattr(node, "workeroutput", None) or {}
    WORKER_SUMMARIES.extend(tuple(t) for t in json.loads(output.get("dreamdesk_summaries", "[]")))


def pytest_terminal_summary(terminalreporter):
    """Benchmark tables (tests/bench/bench_harness.py) and other measured tables (print_in_summary)
    print without -s: pytest's own summary carries them (an xdist worker's come through the
    controller). Here, not in a tests/bench/conftest.py: a second module named `conftest` would
    shadow this one for every `from conftest import ...` in the suite."""
    shown = None
    for section, text in _summaries() + WORKER_SUMMARIES:
        if section != shown:
            terminalreporter.section(section)
            shown = section
        terminalreporter.write_line(text + "\n")
