"""A write that fails says what could not be written and why, in words: in the CLI (one line,
non-zero exit) and in the GUI's dialogs (no traceback, not even under "Show details"; the
traceback goes to the log). Read-only folders are real chmod 0555 folders; where chmod does
not bite (root with CAP_DAC_OVERRIDE) those tests are skipped."""

from __future__ import annotations

import errno
import json
import logging
import os
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import REPO, open_window
from dreamdesk.engine.disk.files import atomic_write_text
from dreamdesk.engine.disk.oserrors import describe

READ_ONLY = "Could not write memory/MEMORY.md: the folder memory/ is read-only (permission denied)."


def _chmod_bites(tmp_path: Path) -> bool:
    probe = tmp_path / "chmod-probe"
    probe.mkdir()
    probe.chmod(0o555)
    try:
        (probe / "x").touch()
        return False
    except PermissionError:
        return True
    finally:
        probe.chmod(0o755)


@pytest.fixture
def read_only_memory(tmp_path):
    """Makes a workspace's memory/ folder read-only (0555) for the test, then writable again."""
    if not _chmod_bites(tmp_path):
        pytest.skip("chmod does not stop this user from writing (root)")
    made: list[Path] = []

    def make(root: Path) -> Path:
        d = root / "memory"
        d.chmod(0o555)
        made.append(d)
        return d

    yield make
    for d in made:
        d.chmod(0o755)


@pytest.fixture
def home(history_home, tmp_path) -> Path:
    import shutil
    dest = tmp_path / "home"
    shutil.copytree(history_home, dest, symlinks=True)
    return dest


def _cli(*args: str) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=str(REPO))
    return subprocess.run([sys.executable, "-m", "dreamdesk.engine.cli", *args], capture_output=True, text=True,
                          timeout=60, env=env)


def _snapshot_with_other_memory(home: Path) -> str:
    from dreamdesk.engine.versions.snapshots import SnapshotStore
    from dreamdesk.engine.home.workspace import Workspace
    ws = Workspace.open(home)
    store = SnapshotStore(ws)
    now = (ws.root / "memory" / "MEMORY.md").read_bytes()
    return next(s.sha for s in store.list() if store.file_at(s.sha, "memory/MEMORY.md") not in (None, now.decode()))


def _archived_from_memory(home: Path) -> str:
    from dreamdesk.engine.recovery.archive import read_archive
    from dreamdesk.engine.home.workspace import Workspace
    ws = Workspace.open(home)
    now = (ws.root / "memory" / "MEMORY.md").read_text(encoding="utf-8")
    return next(r.id for r in read_archive(ws).records if r.file == "memory/MEMORY.md" and r.text not in now)


# ---- the words ---------------------------------------------------------------------------------

def test_a_read_only_folder_is_named_not_the_temp_file(make_workspace, read_only_memory):
    root = make_workspace({"SOUL.md": "s\n", "memory/MEMORY.md": "m\n"})
    read_only_memory(root)
    with pytest.raises(PermissionError) as info:
        atomic_write_text(root / "memory" / "MEMORY.md", "new\n")
    assert ".tmp" in str(info.value.filename)             # what Python names: our temp file
    assert describe(info.value) == READ_ONLY


def test_a_read_only_file_in_a_writable_folder(make_workspace, tmp_path):
    if not _chmod_bites(tmp_path):
        pytest.skip("chmod does not stop this user from writing (root)")
    root = make_workspace({"SOUL.md": "s\n", "memory/MEMORY.md": "m\n"})
    f = root / "memory" / "MEMORY.md"
    f.chmod(0o444)
    try:
        with pytest.raises(PermissionError) as info:
            with open(f, "a"):
                pass
        assert describe(info.value) == "Could not write memory/MEMORY.md: memory/MEMORY.md is read-only " \
                                       "(permission denied)."
    finally:
        f.chmod(0o644)


def test_a_folder_where_the_file_should_be(make_workspace):
    root = make_workspace({"SOUL.md": "s\n"})
    (root / "memory" / "MEMORY.md").mkdir()
    with pytest.raises(IsADirectoryError) as info:
        atomic_write_text(root / "memory" / "MEMORY.md", "new\n")
    assert describe(info.value) == "Could not write memory/MEMORY.md: memory/MEMORY.md is a folder, not a file."
    assert not [p for p in (root / "memory").iterdir() if p.name.endswith(".tmp")]   # no temp file left


@pytest.mark.parametrize("code, words", [
    (errno.EROFS, "the file system holding memory/ is mounted read-only"),
    (errno.ENOSPC, "no space left on the disk for memory/"),
    (errno.EDQUOT, "the disk quota for memory/ is used up"),
])
def test_a_full_or_read_only_disk(make_workspace, code, words):
    # these cannot be made without mounting a file system: the error is built as the kernel reports it
    root = make_workspace({"SOUL.md": "s\n"})
    tmp = root / "memory" / ".MEMORY.md.dreamdesk-x1y2.tmp"
    assert describe(OSError(code, os.strerror(code), str(tmp))) == f"Could not write memory/MEMORY.md: {words}."


def test_a_path_outside_any_workspace_is_shown_whole(tmp_path):
    err = OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(tmp_path / "state" / "job.lock"))
    assert describe(err) == f"Could not write {tmp_path / 'state' / 'job.lock'}: no space left on the disk " \
                            f"for {tmp_path / 'state'}/."


# ---- the CLI -----------------------------------------------------------------------------------

def _one_line(proc: subprocess.CompletedProcess) -> str:
    assert proc.returncode == 1, (proc.stdout, proc.stderr)
    assert "Traceback" not in proc.stderr + proc.stdout and proc.stderr.count("\n") == 1, proc.stderr
    return proc.stderr.strip()


def test_cli_restore_into_a_read_only_memory_folder(home, read_only_memory):
    sha = _snapshot_with_other_memory(home)
    read_only_memory(home / "workspace")
    proc = _cli("restore", str(home), sha, "--file", "memory/MEMORY.md")
    assert _one_line(proc) == f"dreamdesk: {READ_ONLY}"


def test_cli_archive_restore_into_a_read_only_memory_folder(home, read_only_memory):
    rid = _archived_from_memory(home)
    read_only_memory(home / "workspace")
    proc = _cli("archive", "restore", str(home), rid)
    assert _one_line(proc) == f"dreamdesk: {READ_ONLY}"


def test_cli_restore_onto_a_folder_in_the_way(home):
    sha = _snapshot_with_other_memory(home)
    target = home / "workspace" / "memory" / "MEMORY.md"
    target.unlink()
    target.mkdir()
    proc = _cli("restore", str(home), sha, "--file", "memory/MEMORY.md")
    assert proc.returncode != 0 and "Traceback" not in proc.stderr and proc.stderr.count("\n") == 1, proc.stderr
    assert "memory/MEMORY.md is a folder, not a file" in proc.stderr


# ---- the GUI -----------------------------------------------------------------------------------

@pytest.fixture
def boxes(gui_env, qapp, monkeypatch):
    """Every message box the app shows, as shown: (title, text, details). Nothing blocks."""
    from dreamdesk.gui.qt import QMessageBox
    shown: list[tuple[str, str, str]] = []

    def exec_(box):
        shown.append((box.windowTitle(), box.text(), box.detailedText()))
        return int(QMessageBox.StandardButton.Cancel)

    monkeypatch.setattr(QMessageBox, "exec", exec_)
    monkeypatch.setattr(qapp, "dreamdesk_quiet_errors", False)
    return shown


def _no_traceback(shown, caplog) -> None:
    assert shown and all("Traceback" not in "".join(b) and "Errno" not in "".join(b) for b in shown), shown
    # the traceback is kept for whoever debugs it: in the log
    assert any(r.exc_info and r.exc_info[0] is PermissionError for r in caplog.records)


def test_gui_save_into_a_read_only_memory_folder(home, qtbot, boxes, read_only_memory, caplog):
    caplog.set_level(logging.ERROR)
    win = open_window(qtbot, home)
    files = win.files
    win.tabs.setCurrentWidget(files)
    files.open_path("memory/MEMORY.md")
    qtbot.waitUntil(lambda: files.loaded is not None and files.loaded.path == "memory/MEMORY.md", timeout=5000)
    read_only_memory(home / "workspace")
    before = (home / "workspace" / "memory" / "MEMORY.md").read_bytes()
    files.editor.appendPlainText("- a new line\n")
    files.save()
    qtbot.waitUntil(lambda: bool(boxes), timeout=10000)
    (title, text, details), = boxes
    assert text == READ_ONLY and "memory/MEMORY.md" in title
    _no_traceback(boxes, caplog)
    assert (home / "workspace" / "memory" / "MEMORY.md").read_bytes() == before
    assert files.dirty                                        # the edit is still in the editor
    win.close()


def test_gui_snapshot_restore_into_a_read_only_memory_folder(home, qtbot, boxes, read_only_memory, caplog):
    caplog.set_level(logging.ERROR)
    sha = _snapshot_with_other_memory(home)
    win = open_window(qtbot, home)
    view = win.snapshots
    win.tabs.setCurrentWidget(view)
    view.dialogs.confirm = lambda parent, title, text: True
    qtbot.waitUntil(lambda: view.model.rowCount() > 0, timeout=10000)
    view.select_shas([sha])
    qtbot.waitUntil(lambda: view.shown is not None and view.shown.shas == (sha,), timeout=10000)
    read_only_memory(home / "workspace")
    view.restore_file("memory/MEMORY.md")
    qtbot.waitUntil(lambda: bool(boxes), timeout=10000)
    (title, text, details), = boxes
    assert title == "Restore failed" and READ_ONLY in text
    _no_traceback(boxes, caplog)
    win.close()


def test_gui_archive_restore_into_a_read_only_memory_folder(home, qtbot, boxes, read_only_memory, caplog):
    caplog.set_level(logging.ERROR)
    rid = _archived_from_memory(home)
    win = open_window(qtbot, home)
    view = win.archive
    win.tabs.setCurrentWidget(view)
    view.dialogs.confirm = lambda parent, title, text: True
    qtbot.waitUntil(lambda: view.model.row_for_id(rid) is not None, timeout=10000)
    assert view.select_id(rid)
    read_only_memory(home / "workspace")
    messages: list[str] = []
    view.status.connect(messages.append)
    view.restore_selected()
    qtbot.waitUntil(lambda: bool(boxes), timeout=10000)
    (title, text, details), = boxes
    assert title == "Restore failed" and READ_ONLY in text
    assert any(READ_ONLY in m for m in messages)
    _no_traceback(boxes, caplog)
    win.close()


def test_an_unexpected_error_says_it_in_words_with_the_traceback_in_the_details(boxes, caplog):
    from dreamdesk.gui.app.errors import install_excepthook
    caplog.set_level(logging.ERROR)
    old = sys.excepthook
    install_excepthook()
    try:
        try:
            json.loads("{")
        except ValueError:
            sys.excepthook(*sys.exc_info())
    finally:
        sys.excepthook = old
    (title, text, details), = boxes
    # a bug: the words in the dialog, the traceback (for the bug report) under its details
    assert title == "Dreamdesk hit an unexpected error" and "Traceback" not in text
    assert "Expecting property name" in text
    assert details.startswith("Traceback") and "json.decoder.JSONDecodeError" in details
    assert any(r.exc_info and r.exc_info[0] is json.JSONDecodeError for r in caplog.records)
