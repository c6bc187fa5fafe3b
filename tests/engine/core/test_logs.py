"""Dreamdesk's log file (engine/core/logs.py): where it is, what goes in, that it stays small, and
that no known secret ever reaches it, whichever way it was logged."""

from __future__ import annotations

import logging

from conftest import logging_into
from dreamdesk.engine.core import logs, redact

KEY = "sk-live-LOGTEST-0123456789abcdef"


def _text(path) -> str:
    logs.log_tail()     # flushes
    return path.read_text(encoding="utf-8")


def test_the_log_file_is_in_the_folder_the_environment_names(log_file, tmp_path):
    assert log_file == tmp_path / "logs" / "dreamdesk.log"
    logging.getLogger("dreamdesk.engine.something").info("workspace opened: /tmp/x")
    assert "INFO dreamdesk.engine.something" in _text(log_file) and "workspace opened: /tmp/x" in _text(log_file)


def test_a_key_never_reaches_the_file_whichever_way_it_was_logged(log_file):
    redact.register(KEY)
    log = logging.getLogger("dreamdesk.engine.llm.probe")
    log.warning("args: %s", KEY)
    log.warning(f"f-string: {KEY}")
    log.warning("nested: %s", {"headers": {"Authorization": f"Bearer {KEY}"}})
    try:
        try:
            raise ValueError(f"server said: invalid key {KEY}")
        except ValueError as inner:
            raise RuntimeError(f"request failed ({KEY})") from inner
    except RuntimeError:
        log.exception("traceback")
    text = _text(log_file)
    assert KEY not in text
    # the lines are there, masked: nothing was dropped instead
    for line in ("args: •••", "f-string: •••", "Bearer •••", "invalid key •••", "request failed (•••)"):
        assert line in text
    assert "Traceback (most recent call last)" in text


def test_a_bad_format_is_logged_masked_not_raised(log_file):
    redact.register(KEY)
    logging.getLogger("dreamdesk.gui.probe").warning("two %s %s", KEY)
    assert "two %s %s" in _text(log_file) and KEY not in _text(log_file)


def test_ours_at_info_libraries_at_warning_only(log_file):
    logging.getLogger("dreamdesk.engine.dream.probe").info("Dream of /w: completed")
    logging.getLogger("httpx").info("HTTP Request: POST http://127.0.0.1/v1 200")
    logging.getLogger("httpx").warning("a library's warning")
    text = _text(log_file)
    assert "Dream of /w: completed" in text and "a library's warning" in text
    assert "HTTP Request" not in text


def test_the_file_is_size_capped(tmp_path, monkeypatch):
    monkeypatch.setattr(logs, "MAX_BYTES", 4000)
    with logging_into(tmp_path / "logs"):
        for i in range(400):
            logging.getLogger("dreamdesk.engine.probe").info("line %d %s", i, "x" * 60)
        logs.log_tail()
    files = sorted(p.name for p in (tmp_path / "logs").iterdir())
    assert files == ["dreamdesk.log", "dreamdesk.log.1", "dreamdesk.log.2", "dreamdesk.log.3"]
    assert all((tmp_path / "logs" / f).stat().st_size <= 4000 for f in files)
    assert "line 399" in (tmp_path / "logs" / "dreamdesk.log").read_text()


def test_log_tail_is_the_last_lines(log_file):
    for i in range(100):
        logging.getLogger("dreamdesk.engine.probe").info("entry %d", i)
    tail = logs.log_tail(5).splitlines()
    assert len(tail) == 5 and tail[-1].endswith("entry 99") and tail[0].endswith("entry 95")


def test_no_log_file_yet_is_an_empty_tail(tmp_path, monkeypatch):
    monkeypatch.setenv(logs.ENV, str(tmp_path / "nothing-here"))
    assert logs.log_tail() == ""


def test_setup_twice_adds_one_handler(log_file):
    before = len(logging.getLogger().handlers)
    assert logs.setup() == log_file
    assert len(logging.getLogger().handlers) == before


def test_without_a_log_file_the_engine_adds_nothing_to_stderr(make_workspace, tmp_path):
    """The CLI (no log set up) says a failed snapshot in its own one line: the engine's log
    record of it goes nowhere, never to stderr as Python's last-resort handler would."""
    import os
    import subprocess
    import sys
    from pathlib import Path
    ws = make_workspace({"USER.md": "# User\n", "memory/MEMORY.md": "# Memory\n"})
    code = ("import sys; from dreamdesk.engine.versions.snapshots import SnapshotStore, SnapshotError; from dreamdesk.engine.home.workspace import Workspace\n"
            "store = SnapshotStore(Workspace.open(sys.argv[1]))\nstore.snapshot('first')\n"
            "open(store.git_dir / 'index', 'wb').write(b'DIRC garbage')\n"
            "try:\n    store.snapshot('edit: x')\nexcept SnapshotError as e:\n    print('ERR', e)\n")
    env = dict(os.environ, PYTHONPATH=str(Path(__file__).parents[3]))
    proc = subprocess.run([sys.executable, "-c", code, str(ws)], capture_output=True, text=True, timeout=60,
                          cwd=str(tmp_path), env=env)
    assert proc.stdout.startswith("ERR ") and proc.stderr == "", proc.stdout + proc.stderr
