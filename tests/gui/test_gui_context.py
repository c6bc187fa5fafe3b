"""The application context on its own, with no window (issue 27): opening reads once; a result
for the workspace left is dropped; a change record reaches the views that declared interest in
it, each once, a hidden one when next shown; closing stops the watch and the lanes. Real files,
real lanes, waits on conditions."""

from __future__ import annotations

import shutil
import threading

import pytest

from dreamdesk.engine.disk.changes import Changes
from dreamdesk.engine.disk.files import atomic_write_text
from dreamdesk.gui.qt import QTimer
from helpers.gui_waits import jobs_done, settled


class FakeView:
    """What the context calls on a tab view that reads for itself, counted."""

    def __init__(self):
        self.ws = None
        self.workspaces: list = []
        self.refreshes = 0
        self.filters_cleared = 0

    def set_workspace(self, ws) -> None:
        self.ws = ws
        self.workspaces.append(ws.root)

    def refresh(self) -> None:
        self.refreshes += 1

    def clear_filters(self) -> None:
        self.filters_cleared += 1

    def set_data(self, *history) -> None:       # (the History tab is handed the state read)
        pass


@pytest.fixture
def ctx(gui_env, qtbot):
    from dreamdesk.gui.context.app_context import AppContext
    shown: set = set()
    context = AppContext(shown=lambda view: view in shown)
    context.shown_views = shown            # the test says which views are on screen
    yield context
    context.close()


def settle(qtbot, ctx) -> None:
    """Every write so far seen through the watcher, every job answered, and a read put on the
    reader lane after that has run (a read asked from a job's answer is queued by then)."""
    qtbot.waitUntil(lambda: ctx.watcher.looked, timeout=10000)
    settled(qtbot, ctx)
    done: list = []
    QTimer.singleShot(0, lambda: ctx.engine.read("the last read", lambda c: None, done.append))
    qtbot.waitUntil(lambda: bool(done), timeout=10000)


def opened(qtbot, ctx, home) -> list:
    """Open `home`; the states the context says it read, in a list."""
    reads: list = []
    ctx.stateRead.connect(reads.append)
    assert ctx.open_workspace(str(home)) is ctx.ws is not None
    qtbot.waitUntil(lambda: bool(reads), timeout=10000)
    settle(qtbot, ctx)
    return reads


def test_opening_reads_the_workspace_once(ctx, qtbot, demo_home):
    reads = opened(qtbot, ctx, demo_home)
    assert len(reads) == 1 and ctx.state is reads[0]
    assert reads[0].status.workspace == str(demo_home / "workspace")
    assert ctx.watcher.running and ctx.reader.ws is ctx.ws and ctx.scheduler.ws is ctx.ws


def test_a_folder_that_is_no_workspace_leaves_the_open_one(ctx, qtbot, demo_home, tmp_path):
    opened(qtbot, ctx, demo_home)
    ws, said = ctx.ws, []
    ctx.openFailed.connect(said.append)
    (tmp_path / "empty").mkdir()
    assert ctx.open_workspace(str(tmp_path / "empty")) is None
    assert ctx.ws is ws and ctx.watcher.running and len(said) == 1 and "does not look like" in said[0]


def test_a_read_for_the_workspace_left_is_dropped(ctx, qtbot, demo_home, tmp_path):
    reads = opened(qtbot, ctx, demo_home)
    other = tmp_path / "other"
    shutil.copytree(demo_home, other)
    gate = threading.Event()
    ctx.engine.read("block the lane", lambda c: gate.wait(5), lambda _r: None)
    ctx.refresh()                                # a read of the demo, queued behind the gate
    old_watcher = ctx.watcher
    assert ctx.open_workspace(str(other))
    gate.set()
    qtbot.waitUntil(lambda: ctx.state is not None, timeout=10000)
    settle(qtbot, ctx)
    assert [st.status.workspace for st in reads[1:]] == [str(other / "workspace")]
    assert not old_watcher.running
    # a late word of the old watcher asks nothing of the new workspace
    asked: list = []
    ctx.readAsked.connect(lambda: asked.append(True))
    old_watcher.changed.emit({"USER.md"})
    assert asked == []


def test_a_jobs_change_record_reaches_the_views_that_declared_interest_each_once(ctx, qtbot, demo_home):
    opened(qtbot, ctx, demo_home)
    ctx.reads_on["skills only"] = ("skills",)    # a view that declares another interest
    views = {name: FakeView() for name in ("archive", "runs", "snapshots", "lint", "skills only")}
    for name, view in views.items():
        ctx.add_view(name, view)
        ctx.shown_views.add(view)
    user = ctx.ws.root / "USER.md"
    text = user.read_text(encoding="utf-8") + "- added by a job\n"
    reads: list = []
    ctx.stateRead.connect(reads.append)
    ctx.engine.write("a job", lambda c: atomic_write_text(user, text), lambda _r: None)
    qtbot.waitUntil(lambda: bool(reads), timeout=10000)
    settle(qtbot, ctx)
    # the record names USER.md: those that re-read on the files do, once; the others not at all
    assert {n: v.refreshes for n, v in views.items()} == {"archive": 0, "runs": 1, "snapshots": 1, "lint": 1,
                                                          "skills only": 0}
    assert len(reads) == 1 and reads[0].changed.files == {"USER.md"}


def test_a_hidden_view_reads_again_when_next_shown_not_before(ctx, qtbot, demo_home):
    opened(qtbot, ctx, demo_home)
    view = FakeView()
    ctx.add_view("archive", view)
    assert view.workspaces == [ctx.ws.root]      # handed the open workspace when built
    ctx.apply(Changes(archive=True))
    ctx.apply(Changes(archive=True))
    assert view.refreshes == 0 and "archive" in ctx.stale
    ctx.shown_views.add(view)
    ctx.view_shown("archive")
    ctx.view_shown("archive")
    assert view.refreshes == 1 and "archive" not in ctx.stale


def test_every_self_reading_view_follows_a_switch_the_hidden_ones_when_shown(ctx, qtbot, demo_home, tmp_path):
    """The Lint tab too (before the context, a built Lint tab kept the last workspace's findings)."""
    opened(qtbot, ctx, demo_home)
    views = {name: FakeView() for name in ("archive", "runs", "snapshots", "lint", "history")}
    for name, view in views.items():
        ctx.add_view(name, view)
    ctx.shown_views.add(views["runs"])
    other = tmp_path / "other"
    shutil.copytree(demo_home, other)
    assert ctx.open_workspace(str(other))
    assert views["runs"].workspaces[-1] == other / "workspace"            # shown: at once
    assert ctx.stale == {"archive", "snapshots", "lint"}                  # hidden: when next shown
    for name in ("archive", "snapshots", "lint"):
        ctx.view_shown(name)
        assert views[name].workspaces[-1] == other / "workspace", name
    assert views["archive"].filters_cleared == views["history"].filters_cleared == 1
    settle(qtbot, ctx)


def test_closing_stops_the_watch_the_upkeep_and_the_lanes(ctx, qtbot, demo_home):
    opened(qtbot, ctx, demo_home)
    ctx.set_watching(True, by_user=False)
    assert ctx.upkeep_timer.isActive()
    jobs_done(qtbot, ctx.engine)
    ctx.close()
    assert not ctx.watcher.running and not ctx.upkeep_timer.isActive()
    assert ctx.engine.writer.thread.isFinished() and ctx.engine.reader.thread.isFinished()
