"""The structural facts that make the window fast (issue 14), checked by counting, not timing:
one history read per open, none when only MEMORY.md changed, the dashboard's read first, hidden
tabs read when first shown, and a job's writes arriving as its change record."""


from conftest import open_window
from helpers.gui_waits import jobs_done, settled
from dreamdesk.engine.disk.changes import Changes


def parses(win) -> int:
    """How often the window's workspace parsed history.jsonl: whole, or only what was appended."""
    stats = win.ws.history_reader.stats
    return stats["full"] + stats["tail"]


def open_counting(qtbot, home, monkeypatch):
    from dreamdesk.gui.context.watcher import WorkspaceWatcher
    from dreamdesk.gui.context.worker import JobLanes
    reads, looks = [], []
    real_read, real_start = JobLanes.read, WorkspaceWatcher.start
    monkeypatch.setattr(JobLanes, "read", lambda self, name, *a, **k: reads.append(name) or real_read(self, name, *a, **k))

    def start(self):
        self.started.connect(lambda: looks.append(True))     # its first look is done
        real_start(self)
    monkeypatch.setattr(WorkspaceWatcher, "start", start)
    win = open_window(qtbot, home)
    qtbot.waitUntil(lambda: bool(looks), timeout=10000)     # the watcher's first look after starting...
    jobs_done(qtbot, win.engine)                            # ...and every job the open queued have come and gone
    return win, reads


def test_opening_reads_history_once_and_the_dashboard_first(gui_env, qtbot, demo_home, monkeypatch):
    win, reads = open_counting(qtbot, demo_home, monkeypatch)
    assert parses(win) == 1
    assert reads[0] == "read workspace"
    # tabs not shown read nothing yet
    assert not {"read the archive", "read Dream runs", "list snapshots", "size history"} & set(reads)
    assert win.history.model.rowCount() > 0
    win.close()


def test_a_hidden_tab_reads_when_first_shown(gui_env, qtbot, demo_home, monkeypatch):
    win, reads = open_counting(qtbot, demo_home, monkeypatch)
    win.tabs.setCurrentWidget(win.archive)
    assert "read the archive" in reads
    qtbot.waitUntil(lambda: win.archive.loaded, timeout=10000)
    win.close()


def test_an_outside_memory_write_reads_no_history(gui_env, qtbot, demo_home, monkeypatch):
    win, reads = open_counting(qtbot, demo_home, monkeypatch)
    parsed = parses(win)
    reads.clear()
    resets = []
    win.history.model.modelReset.connect(lambda: resets.append(1))
    gauge = win.dashboard.gauges["memory/MEMORY.md"]
    path = demo_home / "workspace" / "memory" / "MEMORY.md"
    text = path.read_text(encoding="utf-8") + "- written by the assistant\n"
    path.write_text(text, encoding="utf-8")
    qtbot.waitUntil(lambda: gauge.chars == len(text), timeout=5000)
    settled(qtbot, win)                         # every event of the write said, and every read it started done
    assert parses(win) == parsed
    assert resets == []                         # the history table is left as it is
    assert set(reads) <= {"read workspace", "describe the model"}
    before = win.state
    win.refresh()                               # F5 with history.jsonl as it was: its table stays too
    qtbot.waitUntil(lambda: win.state is not before, timeout=5000)
    assert parses(win) == parsed and resets == []
    win.close()


def test_a_job_reports_what_it_wrote_and_the_views_follow(gui_env, qtbot, demo_home, monkeypatch):
    win, _ = open_counting(qtbot, demo_home, monkeypatch)
    seen = []
    real_apply = win.ctx.apply
    monkeypatch.setattr(win.ctx, "apply", lambda ch: seen.append(ch) or real_apply(ch))
    from dreamdesk.engine.disk.files import atomic_write_text
    target = win.ws.root / "USER.md"
    text = target.read_text(encoding="utf-8") + "- added by a job\n"
    win.engine.write("a test job", lambda ctx: atomic_write_text(target, text), lambda _r: None)
    gauge = win.dashboard.gauges["USER.md"]
    qtbot.waitUntil(lambda: gauge.chars == len(text), timeout=5000)
    assert Changes(files=frozenset(["USER.md"])) in seen
    win.close()


def test_a_superseded_read_never_runs(gui_env, qtbot, demo_home, monkeypatch):
    """Requests that pile up while the reader lane is busy merge into one read."""
    win, _ = open_counting(qtbot, demo_home, monkeypatch)
    import threading
    gate, blocking = threading.Event(), threading.Event()
    win.engine.read("block the lane", lambda ctx: blocking.set() or gate.wait(5), lambda _r: None)
    qtbot.waitUntil(blocking.is_set, timeout=5000)     # (a read still queued from the open ran before it)
    ran = []
    real = win.reader.read
    monkeypatch.setattr(win.reader, "read", lambda ch, own=False: ran.append(ch) or real(ch, own))
    win.apply(Changes(files=frozenset(["USER.md"])))
    win.apply(Changes(history=True))
    win.apply(Changes(runs=True))              # (the archive alone is not the state's: it reads nothing)
    gate.set()
    jobs_done(qtbot, win.engine)
    assert len(ran) == 1
    assert ran[0].files == {"USER.md"} and ran[0].history and ran[0].runs
    win.close()


class _View:
    """What read_latest needs of a view: its engine and the workspace it shows."""

    def __init__(self, engine, ws):
        self.engine, self.ws = engine, ws


def test_read_latest_runs_only_the_newest_and_drops_another_workspaces(qtbot, gui_engine):
    import threading

    from dreamdesk.gui.views.common import read_latest
    from dreamdesk.gui.context.worker import Latest
    view, latest = _View(gui_engine, "ws-a"), Latest()
    gate, ran, applied = threading.Event(), [], []
    gui_engine.read("block the lane", lambda ctx: gate.wait(5), lambda _r: None)
    for n in (1, 2, 3):
        read_latest(view, latest, "read", lambda ws, n=n: ran.append((ws, n)) or n, applied.append, applied.append)
    gate.set()
    qtbot.waitUntil(lambda: applied == [3], timeout=5000)
    assert ran == [("ws-a", 3)]                  # the two superseded requests never ran
    gate.clear()
    gui_engine.read("block the lane", lambda ctx: gate.wait(5), lambda _r: None)
    read_latest(view, latest, "read", lambda ws: ws, applied.append, applied.append)
    view.ws = "ws-b"                             # the view switched workspace meanwhile
    gate.set()
    done = threading.Event()
    gui_engine.read("after", lambda ctx: None, lambda _r: done.set())
    qtbot.waitUntil(done.is_set, timeout=5000)
    assert applied == [3]                        # ws-a's answer is not shown in ws-b


def test_a_read_put_first_runs_before_those_waiting(qtbot, gui_engine):
    import threading
    gate, order = threading.Event(), []
    gui_engine.read("block the lane", lambda ctx: gate.wait(5), lambda _r: None)
    for name in ("hidden tab a", "hidden tab b"):
        gui_engine.read(name, lambda ctx, n=name: order.append(n), lambda _r: None)
    gui_engine.read("what is shown", lambda ctx: order.append("shown"), lambda _r: None, first=True)
    gate.set()
    qtbot.waitUntil(lambda: len(order) == 3, timeout=5000)
    assert order == ["shown", "hidden tab a", "hidden tab b"]


def test_selecting_a_row_from_code_ignores_a_held_ctrl(qtbot):
    """A Ctrl left down (a Ctrl-click a moment before) must not toggle off the row a link selects."""
    from PySide6.QtCore import QSortFilterProxyModel, Qt
    from PySide6.QtGui import QStandardItem, QStandardItemModel
    from PySide6.QtTest import QTest
    from PySide6.QtWidgets import QTableView

    from dreamdesk.gui.views.common import select_source_row
    model = QStandardItemModel()
    for text in ("a", "b", "c"):
        model.appendRow(QStandardItem(text))
    proxy = QSortFilterProxyModel()
    proxy.setSourceModel(model)
    table = QTableView()
    table.setModel(proxy)
    table.setSelectionBehavior(QTableView.SelectionBehavior.SelectRows)
    table.setSelectionMode(QTableView.SelectionMode.ExtendedSelection)
    qtbot.addWidget(table)
    table.show()
    qtbot.waitExposed(table)
    rect = table.visualRect(proxy.index(2, 0))
    QTest.mouseClick(table.viewport(), Qt.MouseButton.LeftButton, Qt.KeyboardModifier.ControlModifier,
                     rect.center())                  # a Ctrl-click: Qt still takes Ctrl as held after it
    assert select_source_row(table, proxy, 1)
    assert [i.row() for i in table.selectionModel().selectedRows()] == [1]
    assert table.currentIndex().row() == 1
    QTest.mouseClick(table.viewport(), Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier,
                     rect.center())                  # (Ctrl let go: later tests start clean)


def test_a_read_for_the_workspace_left_is_never_shown(gui_env, qtbot, demo_home, tmp_path, monkeypatch):
    """A state read still queued for workspace A when B is opened never reaches the views."""
    import shutil
    import threading
    win, _ = open_counting(qtbot, demo_home, monkeypatch)
    other = tmp_path / "other"
    shutil.copytree(demo_home, other)
    (other / "workspace" / "USER.md").write_text("# User\n- only in the other one\n", encoding="utf-8")
    gate = threading.Event()
    win.engine.read("block the lane", lambda ctx: gate.wait(5), lambda _r: None)
    win.refresh()                                  # queued for A
    a_root = win.ws.root
    applied = []
    real = win.dashboard.set_state
    monkeypatch.setattr(win.dashboard, "set_state", lambda st: applied.append(st.status.workspace) or real(st))
    assert win.open_workspace(str(other))
    gate.set()
    qtbot.waitUntil(lambda: win.state is not None and win.state.status.workspace == str(win.ws.root), timeout=10000)
    jobs_done(qtbot, win.engine)                   # A's queued read has run (or been dropped) by now
    assert str(a_root) not in applied and applied
    assert win.dashboard.gauges["USER.md"].chars == len("# User\n- only in the other one\n")
    win.close()


def test_each_view_reads_again_on_exactly_the_changes_it_declares(main_window):
    """The window routes a change record by the views' declared interests (view_feed.READS_ON),
    not by a matrix of its own (issue 27)."""
    from dataclasses import fields

    from dreamdesk.gui.context.view_feed import READS_ON
    win = main_window
    for name in READS_ON:
        win.views.get(name)                     # built, and hidden: a change marks it for its next showing
    win.tabs.setCurrentIndex(0)
    for f in fields(Changes):
        value = frozenset({"USER.md"}) if f.name == "files" else True
        win.ctx.stale.clear()
        win.apply(Changes(**{f.name: value}))
        assert {n for n in READS_ON if n in win.ctx.stale} == {n for n, parts in READS_ON.items() if f.name in parts}, \
            f.name
    assert READS_ON["lint"] == ("files", "skills", "config", "runs") and "cursors" in READS_ON["snapshots"]
