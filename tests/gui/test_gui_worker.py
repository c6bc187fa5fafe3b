"""The job runner's one stale-result rule (issue 27): a job's `wanted` is asked once, on the GUI
thread, before any of its callbacks runs; a result nobody wants any more is dropped, its failure
too, without a word."""

import threading


def _run(qtbot, gui_engine, fn, wanted):
    said, finished = [], threading.Event()

    def job(ctx):
        ctx.progress({"step": 1})
        finished.set()
        return fn()

    gui_engine.read("a read", job, lambda r: said.append(("done", r)), lambda m, tb: said.append(("failed", m)),
                    lambda ev: said.append(("progress", ev)), wanted=wanted)
    qtbot.waitUntil(finished.is_set, timeout=5000)
    done = []
    gui_engine.read("after it", lambda ctx: None, done.append)          # the lane runs in order
    qtbot.waitUntil(lambda: bool(done), timeout=5000)
    return said


def test_a_wanted_result_reaches_its_callbacks(qtbot, gui_engine):
    assert _run(qtbot, gui_engine, lambda: 7, lambda: True) == [("progress", {"step": 1}), ("done", 7)]


def test_a_result_nobody_wants_is_dropped_with_its_progress(qtbot, gui_engine):
    assert _run(qtbot, gui_engine, lambda: 7, lambda: False) == []


def test_a_failure_nobody_wants_is_dropped_without_a_word(qtbot, gui_engine):
    notices = []
    gui_engine.notice.connect(notices.append)

    def boom():
        from dreamdesk.engine.core.problems import WorkspaceError
        raise WorkspaceError("refused")
    assert _run(qtbot, gui_engine, boom, lambda: False) == [] and notices == []
    assert _run(qtbot, gui_engine, boom, lambda: True) == [("progress", {"step": 1}), ("failed", "refused")]
