"""The diff view prepares off the GUI thread and draws from the prepared value: "Preparing diff…"
at once, lexing on the reader thread, a superseded preparation dropped, the two layouts toggled
without preparing again, and side by side keeping its halves in columns at any width."""

import tempfile
import threading
from pathlib import Path

from helpers.gui_waits import jobs_done
from helpers.markdown_versions import two_versions

import dreamdesk.engine.text.prepared_diff as prepared_diff
from dreamdesk.engine.text.diffs import diff_texts

SHOTS = Path(tempfile.gettempdir()) / "dreamdesk-screenshots"


def _view(qtbot, size=(1000, 700)):
    from dreamdesk.gui.widgets.diff_view import DiffView
    view = DiffView()
    qtbot.addWidget(view)
    view.resize(*size)
    view.show()
    qtbot.waitExposed(view)
    return view


def _lexing_threads(monkeypatch) -> list:
    """The thread of every line lexed (a spy around the lexing the preparation calls)."""
    seen, real = [], prepared_diff.styles
    monkeypatch.setattr(prepared_diff, "styles", lambda text: (seen.append(threading.current_thread()), real(text))[1])
    return seen


def _right_half_x(view) -> set[int]:
    """Where the newer half of each side-by-side row starts on the viewport."""
    from dreamdesk.gui.qt import QTextCursor
    xs, block = set(), view.document().begin()
    while block.isValid():
        text = block.text()
        if text.count("\t") == 2:               # a row: older half, tab, newer half, tab
            cur = QTextCursor(block)
            cur.setPosition(block.position() + text.index("\t") + 1)
            xs.add(view.cursorRect(cur).x())
        block = block.next()
    return xs


def test_a_diff_is_prepared_on_the_reader_thread_while_the_view_says_so(gui_env, qtbot, gui_engine, monkeypatch):
    from dreamdesk.gui.qt import QTimer
    lexed = _lexing_threads(monkeypatch)
    release = threading.Event()
    old, new = two_versions(size=8000, changes=40)

    def compute():
        release.wait(5)                             # the GUI keeps going meanwhile
        return prepared_diff.prepare([diff_texts(old, new, "memory/MEMORY.md")])

    view = _view(qtbot)
    view.load(gui_engine, compute)
    assert view.text() == "Preparing diff…" and view.preparing()
    ticks = []
    timer = QTimer(view)
    timer.timeout.connect(lambda: ticks.append(1))
    timer.start(10)
    qtbot.waitUntil(lambda: len(ticks) >= 5, timeout=3000)     # the event loop runs while the reader works
    release.set()
    qtbot.waitUntil(lambda: not view.preparing(), timeout=10000)
    assert "## Section 1" in view.text() and view.files()[0].path == "memory/MEMORY.md"
    assert lexed and all(t is not threading.main_thread() for t in lexed)


def test_toggling_the_layout_reuses_the_prepared_diff(gui_env, qtbot, gui_engine, monkeypatch):
    from dreamdesk.gui.widgets.diff_view import SPLIT, UNIFIED
    lexed = _lexing_threads(monkeypatch)
    old, new = two_versions(size=8000, changes=40)
    view = _view(qtbot)
    view.load_diffs(gui_engine, [diff_texts(old, new, "memory/MEMORY.md")])
    qtbot.waitUntil(lambda: not view.preparing(), timeout=10000)
    prepared, count, unified = view.prepared(), len(lexed), view.text()
    for mode in (SPLIT, UNIFIED, SPLIT):
        view.set_mode(mode)
    assert len(lexed) == count and view.prepared() is prepared        # no line lexed again
    split = view.text()
    changed = [x.text for f in prepared.files for h in f.hunks for x in h.lines if x.kind != " " and x.text.strip()]
    for text in changed[:20]:
        assert text.split()[-1] in split and text.split()[-1] in unified
    view.set_mode(UNIFIED)
    assert view.text() == unified


def test_a_preparation_superseded_by_something_newer_is_dropped(gui_env, qtbot, gui_engine):
    release = threading.Event()
    old, new = two_versions(size=8000, changes=40)

    def compute():
        release.wait(5)
        return prepared_diff.prepare([diff_texts(old, new, "memory/MEMORY.md")])

    view = _view(qtbot)
    view.load(gui_engine, compute)
    view.set_message("Nothing selected.")           # the user moved on before the diff was ready
    release.set()
    jobs_done(qtbot, gui_engine)                    # its answer came (and is drawn in its callback, if at all)
    assert view.text() == "Nothing selected." and not view.files()


def test_side_by_side_keeps_the_newer_half_in_one_column_and_rewraps_on_resize(gui_env, qtbot, gui_engine):
    from dreamdesk.gui.widgets.diff_view import SPLIT
    old, new = two_versions(size=12000, changes=60)
    view = _view(qtbot, (1000, 700))
    view.set_mode(SPLIT)
    view.load_diffs(gui_engine, [diff_texts(old, new, "memory/MEMORY.md")])
    qtbot.waitUntil(lambda: not view.preparing(), timeout=10000)

    def right_half_x() -> set[int]:
        return _right_half_x(view)

    wide = right_half_x()
    assert len(wide) == 1 and 450 < wide.pop() < 550      # every newer half starts mid-width
    assert view.horizontalScrollBar().maximum() == 0      # no half runs past the edge
    SHOTS.mkdir(parents=True, exist_ok=True)
    assert view.grab().save(str(SHOTS / "diff-side-by-side.png"))
    view.resize(640, 700)
    qtbot.waitUntil(lambda: len(right_half_x()) == 1 and next(iter(right_half_x())) < 350, timeout=5000)
    assert view.horizontalScrollBar().maximum() == 0
    assert view.grab().save(str(SHOTS / "diff-side-by-side-narrow.png"))


def test_the_hidden_layout_is_built_while_idle_so_a_toggle_swaps_documents(gui_env, qtbot, gui_engine):
    from dreamdesk.gui.widgets.diff_view import SPLIT, UNIFIED
    old, new = two_versions(size=12000, changes=60)
    diffs = [diff_texts(old, new, "memory/MEMORY.md")]
    fresh = _view(qtbot)
    fresh.set_mode(SPLIT)
    fresh.set_prepared(prepared_diff.prepare(diffs))
    view = _view(qtbot)
    view.load_diffs(gui_engine, diffs)
    qtbot.waitUntil(lambda: not view.preparing(), timeout=10000)
    unified = view.text()
    qtbot.waitUntil(lambda: not view.building(), timeout=5000)      # side by side, in idle time
    built = view.documents_built
    for mode in (SPLIT, UNIFIED, SPLIT):
        view.set_mode(mode)
        assert view.text() == (unified if mode == UNIFIED else fresh.text())
    assert view.documents_built == built            # each toggle swapped in a document built before
    assert len(_right_half_x(view)) == 1

    view.set_mode(UNIFIED)
    view.resize(640, 700)                           # the side by side built for the old width no longer fits
    qtbot.waitUntil(lambda: view.documents_built == built + 1 and not view.building(), timeout=5000)
    view.set_mode(SPLIT)
    assert view.documents_built == built + 1        # built anew in idle time once the resize settled
    halves = _right_half_x(view)
    assert len(halves) == 1 and halves.pop() < 350


def test_a_layout_can_be_built_in_steps_and_sends_one_change_notice(gui_env, qtbot):
    from dreamdesk.gui.widgets.diff_document import SPLIT, UNIFIED, DiffDocument
    from dreamdesk.gui.widgets.diff_look import DiffLook
    old, new = two_versions(size=12000, changes=60)
    prepared = prepared_diff.prepare([diff_texts(old, new, "memory/MEMORY.md")])
    view = _view(qtbot)
    look = DiffLook(view.palette(), view.font(), view.fontMetrics())
    for mode in (UNIFIED, SPLIT):
        whole = DiffDocument(view, look, prepared, True, "", mode, 480.0).finish()
        stepped = DiffDocument(view, look, prepared, True, "", mode, 480.0)
        notices = []
        stepped.doc.contentsChanged.connect(lambda: notices.append(1))
        steps = 1
        while not stepped.step(0):
            steps += 1
        assert steps > 50                                   # it paused between lines or rows
        assert stepped.doc.toPlainText() == whole.doc.toPlainText()
        assert stepped.hunk_ranges == whole.hunk_ranges and stepped.truncated == whole.truncated
        assert notices == [1]                               # one for the whole build, not one per insertion
