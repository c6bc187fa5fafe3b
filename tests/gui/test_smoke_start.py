"""The smoke start CI gives the bundle and the wheel (gui/app/smoke.py, packaging/smoke_start.py): a
first start that copies the demo, shows it with every tab and the charts, and quits with 0; and
one that cannot get there quits with 1 and says why, instead of hanging or passing."""

import logging
import os
import subprocess
import sys
from types import SimpleNamespace

from conftest import REPO


def test_a_smoke_start_copies_the_demo_shows_it_and_quits_with_0(tmp_path):
    png = tmp_path / "window.png"
    env = dict(os.environ, PYTHONPATH=str(REPO))      # this checkout's Dreamdesk
    proc = subprocess.run([sys.executable, str(REPO / "packaging" / "smoke_start.py"), "--png", str(png), "--",
                           sys.executable, "-m", "dreamdesk"], capture_output=True, text=True, timeout=300, env=env)
    assert proc.returncode == 0, proc.stderr
    assert ": ok (demo copied and shown" in proc.stdout and "status lists 5 files" in proc.stdout
    assert f"resources from {REPO / 'resources'}" in proc.stdout
    assert png.stat().st_size > 10_000                   # the window, charts shown


def test_the_smoke_start_of_a_missing_program_fails_in_words(tmp_path):
    proc = subprocess.run([sys.executable, str(REPO / "packaging" / "smoke_start.py"), "--",
                           str(tmp_path / "dist" / "dreamdesk")], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 1 and "FAILED: the first start: cannot run" in proc.stderr
    assert "Traceback" not in proc.stderr


def _watched(qapp, qtbot, **kw):
    from dreamdesk.gui.app import smoke
    ended = []
    never_reads = SimpleNamespace(state=None)          # a window whose workspace read never comes back
    smoke.watch(qapp, never_reads, "1", done=lambda code, text: ended.append((code, text)), **kw)
    return ended


def test_a_start_that_never_reads_its_workspace_fails_after_the_timeout(qapp, qtbot):
    ended = _watched(qapp, qtbot, timeout_s=0.2)
    qtbot.waitUntil(lambda: bool(ended), timeout=5000)
    assert ended == [(1, "dreamdesk: smoke start failed: the window did not read a workspace within 0.2 s")]


def test_an_error_logged_during_the_smoke_start_fails_it_at_once(qapp, qtbot):
    ended = _watched(qapp, qtbot, timeout_s=60)
    logging.getLogger("dreamdesk.gui.context.worker").error("read workspace: failed")
    qtbot.waitUntil(lambda: bool(ended), timeout=5000)
    assert ended == [(1, "dreamdesk: smoke start failed: an error was logged: read workspace: failed")]
    assert not any(type(h).__name__ == "_ErrorsSeen" for h in logging.getLogger("dreamdesk").handlers)
