"""A second start (`dreamdesk open PATH` while Dreamdesk runs) hands its request to the running app
over a local socket (issue 25 item 14): that window opens PATH, or a new window does, and comes to
the front; the second process exits 0. A socket a crashed app left never blocks a start."""

from __future__ import annotations

import json
import os
import queue
import socket
import subprocess
import sys
import threading
import time

import pytest

from conftest import REPO

from dreamdesk.gui.app import single_instance
from dreamdesk.gui.app.single_instance import address, hand_over

pytestmark = pytest.mark.skipif(os.name != "posix", reason="the stale-socket cases make a Unix socket by hand")


@pytest.fixture
def other(make_workspace, tmp_path):
    """A second workspace to hand over."""
    return make_workspace({"USER.md": "# User\n\n- Likes tea.\n", "memory/MEMORY.md": "# Memory\n"},
                          root=tmp_path / "other")


@pytest.fixture
def server(main_window):
    from dreamdesk.gui.app.instance_server import InstanceServer
    s = InstanceServer(main_window)
    assert s.listen()
    yield s
    s.close()
    for w in s.windows[1:]:
        w.close()


def in_thread(fn, *args):
    """Run a second start's side on a thread: the server answers on this (the GUI) thread."""
    out = []
    t = threading.Thread(target=lambda: out.append(fn(*args)), daemon=True)
    t.start()
    return out


def stale_socket(path: str) -> None:
    """What a crashed app leaves: the socket file, with nobody listening on it."""
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.bind(path)
    s.close()


def test_the_running_window_opens_the_folder_and_comes_to_the_front(qtbot, main_window, server, other):
    win = main_window
    win.showMinimized()
    qtbot.waitUntil(win.isMinimized, timeout=2000)
    said = in_thread(hand_over, str(other))
    qtbot.waitUntil(lambda: said == [True] and win.ws.root == other and win.state is not None, timeout=5000)
    assert not win.isMinimized() and win.isVisible()
    assert win.windowTitle() == str(other) and server.windows == [win]          # the same window, no other
    bar = win.statusBar()            # (a long path is elided in the bar, whole in its tooltip)
    assert f"Opened {other}, as `dreamdesk open` asked" in (bar.currentMessage(), bar.toolTip())


def test_a_new_window_when_asked(qtbot, main_window, server, other):
    first = main_window.ws.root
    said = in_thread(hand_over, str(other), True)
    qtbot.waitUntil(lambda: said == [True] and len(server.windows) == 2 and server.windows[1].state is not None,
                    timeout=5000)
    new = server.windows[1]
    assert new.isVisible() and new.ws.root == other and new.windowTitle() == str(other)
    assert main_window.ws.root == first and main_window.isVisible()              # the first keeps its own


def test_a_plain_second_start_only_brings_the_window_forward(qtbot, main_window, server):
    first = main_window.ws.root
    main_window.showMinimized()
    qtbot.waitUntil(main_window.isMinimized, timeout=2000)
    said = in_thread(hand_over, None)
    qtbot.waitUntil(lambda: said == [True] and not main_window.isMinimized(), timeout=5000)
    assert main_window.ws.root == first and server.windows == [main_window]


def test_a_stale_socket_does_not_block_the_start(qtbot, main_window, other):
    from dreamdesk.gui.app.instance_server import InstanceServer
    stale_socket(address())
    assert hand_over(str(other)) is False                    # nobody answers there: this start opens its own
    s = InstanceServer(main_window)
    try:
        assert s.listen()                                    # the crashed app's socket was removed
        said = in_thread(hand_over, str(other))
        qtbot.waitUntil(lambda: said == [True] and main_window.ws.root == other, timeout=5000)
    finally:
        s.close()


def test_the_console_script_hands_over_and_says_so(qtbot, main_window, server, other, capsys):
    from dreamdesk.gui.app.launcher import main
    code = in_thread(main, ["open", str(other)])
    qtbot.waitUntil(lambda: code == [0] and main_window.ws.root == other, timeout=5000)
    assert capsys.readouterr().out == f"Opened {other} in the window of the Dreamdesk already running.\n"
    code = in_thread(main, ["--new-window"])                   # a new window on the last workspace
    qtbot.waitUntil(lambda: code == [0] and len(server.windows) == 2 and server.windows[1].ws is not None,
                    timeout=5000)
    assert server.windows[1].ws.root == other
    assert capsys.readouterr().out == "Dreamdesk is already running: opened a new window.\n"
    assert main(["open", "--new-window"]) == 2 and "usage: dreamdesk open PATH [--new-window]" in capsys.readouterr().err


def test_a_live_app_keeps_its_address(qtbot, main_window, server, other):
    """Two starts at the same moment: the later one does not take the address from the first."""
    from dreamdesk.gui.app.instance_server import InstanceServer
    late = InstanceServer(main_window)
    assert not late.listen()
    said = in_thread(hand_over, str(other))
    qtbot.waitUntil(lambda: said == [True] and main_window.ws.root == other, timeout=5000)


def test_something_that_is_no_request_is_refused_and_changes_nothing(qtbot, main_window, server):
    first = main_window.ws.root

    def send(data: bytes) -> bytes:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
            s.settimeout(5)
            s.connect(address())
            s.sendall(data)
            return s.recv(16)
    for bad in (b"not json\n", b'{"open": "relative/path"}\n', b'{"open": 5}\n', b"[1]\n", b"x" * 70000):
        answer = in_thread(send, bad)
        qtbot.waitUntil(lambda: bool(answer), timeout=5000)
        assert answer == [single_instance.BAD], bad[:20]
    assert main_window.ws.root == first and server.windows == [main_window]


def test_the_address_is_the_users_and_the_state_folders(monkeypatch, tmp_path):
    here = address()
    assert str(os.getuid()) in os.path.basename(here) and len(here.encode()) < 100   # (a Unix socket path's limit)
    monkeypatch.setenv("DREAMDESK_STATE_DIR", str(tmp_path / "elsewhere"))
    assert address() != here                  # a test run with its own state folder never meets another
    monkeypatch.setenv("DREAMDESK_STATE_DIR", str(tmp_path / "elsewhere" / ".." / "elsewhere"))
    (tmp_path / "elsewhere").mkdir()
    assert address() == address()


# -- two real processes ------------------------------------------------------------------------
# the app as `dreamdesk open PATH` starts it, saying on stdout what its windows show whenever
# that changes (a probe from outside, as tests/gui/test_gui_start.py does)
PROBE = """
import json, sys
from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication
app = QApplication(sys.argv[:1])
seen = None

def look():
    global seen
    wins = [w for w in app.topLevelWidgets() if w.objectName() == "DreamdeskMainWindow" and w.isVisible()]
    now = {"windows": sorted(str(w.ws.root) if w.ws else "" for w in wins),
           "listening": getattr(app, "dreamdesk_instance", None) is not None}
    if now != seen:
        seen = now
        print(json.dumps(now), flush=True)
    QTimer.singleShot(20, look)

QTimer.singleShot(0, look)
from dreamdesk.gui.app.launcher import main
sys.exit(main(sys.argv[1:]))
"""


class App:
    """A running Dreamdesk in its own process, and what it says it shows."""

    def __init__(self, env, *argv):
        self.proc = subprocess.Popen([sys.executable, "-c", PROBE, *argv], stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, text=True, env=env, cwd=str(REPO))
        self.lines: queue.Queue = queue.Queue()
        threading.Thread(target=lambda: [self.lines.put(json.loads(x)) for x in self.proc.stdout], daemon=True).start()

    def wait_for(self, check, timeout=30.0) -> dict:
        end = time.monotonic() + timeout
        while True:
            try:
                now = self.lines.get(timeout=max(0.01, end - time.monotonic()))
            except queue.Empty:
                raise AssertionError(f"the app never showed it: {self.proc.poll()} {self.proc.stderr.read() if self.proc.poll() is not None else ''}") from None
            if check(now):
                return now

    def kill(self) -> None:
        self.proc.kill()                      # as a crash ends it: the socket file stays
        self.proc.wait(timeout=30)
        self.proc.stdout.close()
        self.proc.stderr.close()


def second_start(env, *argv) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "dreamdesk.gui.app.launcher", *argv], capture_output=True, text=True,
                          env=env, cwd=str(REPO), timeout=60)


def test_two_real_processes_and_a_crash_between(gui_env, demo_home, other, tmp_path):
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen", PYTHONPATH=str(REPO))
    first = str(demo_home / "workspace")
    app = App(env, "open", str(demo_home))
    try:
        app.wait_for(lambda s: s["windows"] == [first] and s["listening"])
        done = second_start(env, "open", str(other))
        assert done.returncode == 0, done.stderr
        assert done.stdout.strip() == f"Opened {other} in the window of the Dreamdesk already running."
        app.wait_for(lambda s: s["windows"] == [str(other)])          # the first window shows it
    finally:
        app.kill()
    assert os.path.exists(address())                                    # what the crash left
    app = App(env, "open", str(demo_home))
    try:
        app.wait_for(lambda s: s["windows"] == [first] and s["listening"])
        done = second_start(env, "open", str(other), "--new-window")
        assert done.returncode == 0 and "a new window" in done.stdout, done.stderr
        app.wait_for(lambda s: s["windows"] == sorted([first, str(other)]))
    finally:
        app.kill()
