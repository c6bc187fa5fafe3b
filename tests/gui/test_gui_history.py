"""The history view: model rows and roles, cursor markers, unreadable lines, filtering through the
real widgets, selection, a 100,000-entry load, and screenshots in a light and a dark palette."""

from __future__ import annotations

import html
import json
import os
import sys
import time
from pathlib import Path

import pytest
from conftest import DEMO_HOME, REPO, dark_palette

from dreamdesk.engine.home.history import BadLine, HistoryEntry, parse_history
from dreamdesk.engine.assistants.prompt import select_pending
from dreamdesk.engine.home.workspace import Workspace
from dreamdesk.gui.models.history_model import (COL_CONTENT, COL_CURSOR, COL_SESSION, COL_STATUS, COL_TIME, NO_SESSION,
                                      CursorRole, EntryRole, HistoryFilterProxy, HistoryModel, KindRole, preview)
from dreamdesk.gui.qt import QColor, QPalette, Qt
from dreamdesk.gui.views.history_view import ALL_SESSIONS, FILTER_DEBOUNCE_MS, NO_SESSION_LABEL, HistoryView

TS = "2026-01-01 10:00"


def line(cursor, content, session=None, ts=TS) -> bytes:
    obj = {"cursor": cursor, "timestamp": ts, "content": content}
    if session is not None:
        obj["session_key"] = session
    return json.dumps(obj, ensure_ascii=False).encode("utf-8") + b"\n"


MULTILINE = "delta: first line\n\n  second   line\u2028third line"

# 10 physical lines: 6 entries (cursors 1 2 4 6 8 9) and 4 unreadable lines (3 5 7 10).
SAMPLE = b"".join([
    line(1, "alpha one", "telegram:1"),
    line(2, "beta two", "cli:direct"),
    b'{"cursor": 3, "timestamp": "2026-01-01 10:00", "content": "cut off\n',        # bad JSON
    line(4, "gamma", "telegram:1"),
    b'{"cursor": "5", "timestamp": "2026-01-01 10:00", "content": "str cursor"}\n',  # string cursor
    line(6, MULTILINE, "cli:direct"),
    b'{"cursor": 7, "timestamp": "2026-01-01 10:00", "content": "bad \xff byte"}\n',  # bad UTF-8
    line(8, "epsilon", "telegram:1"),
    line(9, "zeta without a session"),
    b'{"cursor": 10, "timestamp": "2026-01-',                                        # truncated tail
])


@pytest.fixture
def sample():
    return parse_history(SAMPLE)


@pytest.fixture
def model(qtbot, sample):
    m = HistoryModel()
    m.set_history(sample, 9, 4, {8, 9})
    return m


def cell(m, row, col, role=Qt.DisplayRole):
    """A cell's data through HistoryModel.data called from Python (no QVariant round trip: in
    PySide6 6.12 on Python 3.11 an invalid QVariant result drops a reference to None)."""
    if isinstance(m, HistoryFilterProxy):
        return m.sourceModel().data(m.mapToSource(m.index(row, col)), role)
    return m.data(m.index(row, col), role)


def rows(m) -> list[str]:
    """Each row as 'e<cursor>', 'x<line>' or the marker's text."""
    out = []
    for r in range(m.rowCount()):
        kind = cell(m, r, 0, KindRole)
        item = cell(m, r, 0, EntryRole)
        if kind == "entry":
            out.append(f"e{item.cursor}")
        elif kind == "error":
            out.append(f"x{item.line}")
        else:
            out.append(cell(m, r, 0))
    return out


def demo():
    ws = Workspace.open(DEMO_HOME)
    cur, dream, _ = ws.cursors()
    return ws.history(), cur, dream


DREAM4 = "── .dream_cursor = 4 ── entries below are pending"
CUR9 = "── .cursor = 9 ──"


# ---- the model --------------------------------------------------------------------------------

def test_rows_in_file_order_with_markers_and_errors(model):
    assert rows(model) == ["e1", "e2", "x3", "e4", DREAM4, "x5", "e6", "x7", "e8", "e9", "x10", CUR9]
    assert model.marker_rows == (4, 11)
    assert [model.headerData(c, Qt.Horizontal) for c in range(5)] == ["Cursor", "Time", "Session", "Content",
                                                                     "Status"]


def test_status_dreamed_pending_in_next_prompt(model):
    status = {cell(model, r, 0, CursorRole): cell(model, r, COL_STATUS)
              for r in range(model.rowCount()) if cell(model, r, 0, KindRole) == "entry"}
    assert status == {1: "dreamed", 2: "dreamed", 4: "dreamed", 6: "pending", 8: "in next prompt",
                      9: "in next prompt"}
    dim = cell(model, 0, COL_CONTENT, Qt.ForegroundRole)
    assert isinstance(dim, QColor)
    assert cell(model, model.row_for_cursor(6), COL_CONTENT, Qt.ForegroundRole) is None
    assert cell(model, model.row_for_cursor(8), COL_STATUS, Qt.FontRole).bold()


def test_cells_and_roles_of_an_entry(model):
    r = model.row_for_cursor(6)
    assert r == 6
    assert cell(model, r, COL_CURSOR) == "6"
    assert cell(model, r, COL_TIME) == TS
    assert cell(model, r, COL_SESSION) == "cli:direct"
    assert cell(model, r, COL_CONTENT) == "delta: first line second line third line"
    assert "second   line" in cell(model, r, COL_CONTENT, Qt.ToolTipRole)
    align = cell(model, r, COL_CURSOR, Qt.TextAlignmentRole)
    assert align & Qt.AlignRight
    entry = cell(model, r, 2, EntryRole)
    assert isinstance(entry, HistoryEntry) and entry.content == MULTILINE
    assert cell(model, model.row_for_cursor(9), COL_SESSION) == "—"
    assert model.row_for_cursor(5) is None and model.row_for_cursor(100) is None


def test_preview_collapses_whitespace_and_cuts():
    assert preview("a\n\n b\t\u2028c") == "a b c"
    long = "word " * 100
    p = preview(long)
    assert len(p) <= 160 and p.endswith("…")


def test_error_rows_show_reason_and_line(model):
    reasons = {}
    for r in range(model.rowCount()):
        if cell(model, r, 0, KindRole) != "error":
            continue
        bad = cell(model, r, 0, EntryRole)
        assert isinstance(bad, BadLine)
        assert cell(model, r, COL_TIME) == f"line {bad.line}"
        assert cell(model, r, COL_STATUS) == f"error: {bad.reason}"
        assert html.escape(bad.reason) in cell(model, r, COL_STATUS, Qt.ToolTipRole)
        assert isinstance(cell(model, r, COL_SESSION, Qt.BackgroundRole), QColor)
        assert model.flags(model.index(r, 0)) & Qt.ItemIsSelectable
        reasons[bad.line] = bad.reason
    assert reasons[3].startswith("not valid JSON")
    assert reasons[5].startswith("cursor must be a whole number, got a str")
    assert reasons[7].startswith("not valid UTF-8")
    assert reasons[10].startswith("truncated last line")
    assert model.row_for_line(7) == 7 and model.row_for_line(2) is None


def test_marker_rows(model):
    for r in model.marker_rows:
        assert cell(model, r, 0, KindRole) == "marker"
        assert cell(model, r, 0, EntryRole) is None and model.item(r) is None
        assert cell(model, r, 0, Qt.FontRole).italic()
        assert isinstance(cell(model, r, 0, Qt.BackgroundRole), QColor)
        assert not model.flags(model.index(r, 0)) & Qt.ItemIsSelectable
        assert cell(model, r, COL_STATUS) == ""
    assert cell(model, model.marker_rows[0], 0, Qt.BackgroundRole) != \
        cell(model, 2, 0, Qt.BackgroundRole)          # marker and error backgrounds differ


@pytest.mark.parametrize("cursor, dream, expected", [
    (9, 0, [DREAM4.replace("4", "0"), "e1", "e2", "x3", "e4", "x5", "e6", "x7", "e8", "e9", "x10", CUR9]),
    (4, 2, ["e1", "e2", "── .dream_cursor = 2 ── entries below are pending", "x3", "e4", "── .cursor = 4 ──",
            "x5", "e6", "x7", "e8", "e9", "x10"]),
    (12, 9, ["e1", "e2", "x3", "e4", "x5", "e6", "x7", "e8", "e9",
             "── .dream_cursor = 9 ── entries below are pending", "x10", "── .cursor = 12 ──"]),
    (5, 5, ["e1", "e2", "x3", "e4", "── .dream_cursor = 5 ── entries below are pending", "── .cursor = 5 ──",
            "x5", "e6", "x7", "e8", "e9", "x10"]),
])
def test_marker_placement(qtbot, sample, cursor, dream, expected):
    m = HistoryModel()
    m.set_history(sample, cursor, dream, set())
    assert rows(m) == expected


def test_empty_history(qtbot, qtmodeltester):
    m = HistoryModel()
    m.set_history(parse_history(b""), 0, 0, set())
    assert rows(m) == ["── .dream_cursor = 0 ── entries below are pending", "── .cursor = 0 ──"]
    assert m.sessions() == []
    qtmodeltester.check(m)


def test_sessions_present(model):
    assert model.sessions() == [NO_SESSION, "cli:direct", "telegram:1"]


def test_modeltester_model_and_proxy(qtmodeltester, model):
    qtmodeltester.check(model)
    proxy = HistoryFilterProxy()
    proxy.setSourceModel(model)
    qtmodeltester.check(proxy)
    proxy.set_filter("a", "telegram:1")
    qtmodeltester.check(proxy)
    proxy.clear()
    assert proxy.rowCount() == model.rowCount()


def test_modeltester_demo(qtmodeltester, qtbot):
    h, cur, dream = demo()
    m = HistoryModel()
    m.set_history(h, cur, dream, {e.cursor for e in select_pending(h.pending(dream))})
    qtmodeltester.check(m)
    proxy = HistoryFilterProxy()
    proxy.setSourceModel(m)
    proxy.set_text("pim")
    qtmodeltester.check(proxy)


def test_proxy_filters(model):
    proxy = HistoryFilterProxy()
    proxy.setSourceModel(model)
    assert rows(proxy) == rows(model)
    proxy.set_text("GAMMA")
    assert rows(proxy) == ["e4"]
    proxy.set_text("8")                                   # the cursor (and x7's "UTF-8")
    assert rows(proxy) == ["x7", "e8"]
    proxy.set_text("telegram")                            # the session key
    assert rows(proxy) == ["e1", "e4", "e8"]
    proxy.set_text("utf-8")                               # an error row's reason
    assert rows(proxy) == ["x7"]
    proxy.set_text("str cursor")                          # an error row's raw text
    assert rows(proxy) == ["x5"]
    proxy.set_filter("", "cli:direct")
    assert rows(proxy) == ["e2", "e6"]
    proxy.set_session(NO_SESSION)
    assert rows(proxy) == ["e9"]
    proxy.set_filter("ps", "telegram:1")
    assert rows(proxy) == ["e8"]
    proxy.set_session("cli:direct")
    assert rows(proxy) == []
    proxy.clear()
    assert rows(proxy) == rows(model)                     # markers are back


def test_proxy_follows_a_reset(model):
    proxy = HistoryFilterProxy()
    proxy.setSourceModel(model)
    proxy.set_text("gamma")
    assert rows(proxy) == ["e4"]
    model.set_history(parse_history(line(1, "gamma ray") + line(2, "beta")), 2, 0, set())
    assert rows(proxy) == ["e1"]


def test_dark_palette_colours_stay_readable(model):
    pal = dark_palette()
    model.set_palette(pal)
    base = pal.color(QPalette.Base)
    err = cell(model, 2, 0, Qt.BackgroundRole)
    mark = cell(model, 4, 0, Qt.BackgroundRole)
    dim = cell(model, 0, COL_CONTENT, Qt.ForegroundRole)
    assert err.lightness() < 100 and mark.lightness() < 100     # still dark backgrounds
    assert err != base and mark != base and err != mark
    assert dim.lightness() - base.lightness() > 70               # dimmed text still readable


# ---- the demo workspace ---------------------------------------------------------------------------

def test_demo_rows(qtbot):
    h, cur, dream = demo()
    view = HistoryView()
    qtbot.addWidget(view)
    view.set_data(h, cur, dream)
    m = view.model
    assert (cur, dream) == (125, 99)
    assert m.rowCount() == 120 + 5 + 2
    d_row, c_row = m.marker_rows
    assert cell(m, d_row - 1, 0, CursorRole) == 99           # right after the last dreamed entry
    assert cell(m, d_row + 1, 0, CursorRole) == 100
    assert cell(m, d_row, 0) == "── .dream_cursor = 99 ── entries below are pending"
    assert c_row == m.rowCount() - 1 and cell(m, c_row, 0) == "── .cursor = 125 ──"
    statuses = [cell(m, r, COL_STATUS) for r in range(m.rowCount())]
    assert statuses.count("dreamed") == 95
    assert statuses.count("in next prompt") == 25                  # all 25 fit the 50 / 8k cap
    assert [cell(m, r, 0, EntryRole).line for r in range(m.rowCount())
            if cell(m, r, 0, KindRole) == "error"] == [27, 75, 91, 97, 109]
    assert view.count_label.text() == "120 entries · 25 pending · 5 unreadable lines"
    assert [view.session_combo.itemText(i) for i in range(view.session_combo.count())] == \
        [ALL_SESSIONS, NO_SESSION_LABEL, "cli:direct", "slack:D04AR7", "telegram:5512"]


# ---- the widget -------------------------------------------------------------------------------

@pytest.fixture
def view(qtbot, sample):
    v = HistoryView()
    qtbot.addWidget(v)
    v.set_data(sample, 9, 4, {8, 9})
    v.resize(1000, 600)
    v.show()
    qtbot.waitExposed(v)
    return v


def shown(v) -> list[str]:
    return rows(v.table.model())


def test_text_filter_through_the_line_edit(qtbot, view):
    assert view.table.columnSpan(view.model.marker_rows[0], 0) == 5     # markers span the row
    qtbot.keyClicks(view.filter_edit, "gamma")
    assert len(shown(view)) == 12                                       # debounced: not yet
    qtbot.waitUntil(lambda: shown(view) == ["e4"], timeout=FILTER_DEBOUNCE_MS * 10)
    assert view.count_label.text().endswith("· 1 row match")
    assert view.table.columnSpan(0, 0) == 1
    view.filter_edit.clear()
    qtbot.waitUntil(lambda: len(shown(view)) == 12, timeout=FILTER_DEBOUNCE_MS * 10)
    assert view.table.columnSpan(4, 0) == 5


def test_error_rows_found_by_reason(qtbot, view):
    qtbot.keyClicks(view.filter_edit, "Truncated")
    qtbot.waitUntil(lambda: shown(view) == ["x10"], timeout=FILTER_DEBOUNCE_MS * 10)


def test_session_filter_through_the_combo(qtbot, view):
    combo = view.session_combo
    assert [combo.itemText(i) for i in range(combo.count())] == [ALL_SESSIONS, NO_SESSION_LABEL, "cli:direct",
                                                                 "telegram:1"]
    combo.setCurrentIndex(combo.findText("telegram:1"))
    assert shown(view) == ["e1", "e4", "e8"]
    qtbot.keyClicks(view.filter_edit, "eps")
    qtbot.waitUntil(lambda: shown(view) == ["e8"], timeout=FILTER_DEBOUNCE_MS * 10)
    combo.setCurrentIndex(combo.findText(NO_SESSION_LABEL))
    assert shown(view) == []
    combo.setCurrentIndex(0)
    assert shown(view) == ["e8"]


def test_select_cursor_clears_filters_and_shows_detail(qtbot, view):
    qtbot.keyClicks(view.filter_edit, "gamma")
    qtbot.waitUntil(lambda: shown(view) == ["e4"], timeout=FILTER_DEBOUNCE_MS * 10)
    assert view.select_cursor(6)
    assert view.filter_edit.text() == "" and len(shown(view)) == 12
    rows_sel = view.table.selectionModel().selectedRows()
    assert [i.row() for i in rows_sel] == [6]
    assert view.selected_item().cursor == 6
    text = view.detail.toPlainText()
    assert MULTILINE.replace("\u2028", "\n") in text.replace("\u2028", "\n")
    assert "Cursor 6" in text and TS in text and "cli:direct" in text and "pending" in text and "line 6" in text
    assert not view.select_cursor(5)                       # an unreadable line has no cursor


def test_detail_of_an_error_row(qtbot, view):
    view.table.selectRow(view.model.row_for_line(5))
    text = view.detail.toPlainText()
    assert "Unreadable line 5" in text
    assert 'cursor must be a whole number, got a str ("5")' in text
    assert '"content": "str cursor"' in text


def test_markers_cannot_be_selected(qtbot, view):
    r = view.model.marker_rows[0]
    rect = view.table.visualRect(view.table.model().index(r, 2))
    qtbot.mouseClick(view.table.viewport(), Qt.LeftButton, pos=rect.center())
    assert view.table.selectionModel().selectedRows() == []
    assert view.selected_item() is None


def test_double_click_emits_the_cursor(qtbot, view):
    rect = view.table.visualRect(view.table.model().index(view.model.row_for_cursor(8), 3))
    with qtbot.waitSignal(view.entryActivated, timeout=1000) as blocker:
        qtbot.mouseClick(view.table.viewport(), Qt.LeftButton, pos=rect.center())
        qtbot.mouseDClick(view.table.viewport(), Qt.LeftButton, pos=rect.center())
    assert blocker.args == [8]


def test_reload_keeps_the_selection_and_session(qtbot, view, sample):
    view.session_combo.setCurrentIndex(view.session_combo.findText("telegram:1"))
    view.select_cursor(8)
    view.set_data(sample, 9, 8, {9})
    assert view.session_combo.currentText() == "telegram:1"
    assert view.selected_item().cursor == 8
    assert cell(view.model, view.model.row_for_cursor(8), COL_STATUS) == "dreamed"


def test_qt_binding_does_not_leak_singletons(qtbot, view):
    """PySide6 6.12.0 on CPython 3.11 dropped a reference to None on every void call and to True
    on every bool/int signal emission, aborting the interpreter after a few thousand calls;
    pyproject pins below it. This fails loudly if a leaking binding comes back."""
    before = (sys.getrefcount(None), sys.getrefcount(True))
    for _ in range(2_000):
        view.count_label.setText("x")                     # void
        view.session_combo.itemData(0)                    # invalid QVariant
        view.filter_edit.textChanged.emit("")             # a signal with an argument
    after = (sys.getrefcount(None), sys.getrefcount(True))
    assert abs(before[0] - after[0]) < 50 and abs(before[1] - after[1]) < 50, (before, after)


# ---- scale ------------------------------------------------------------------------------------

N = 100_000


@pytest.fixture(scope="module")
def big_history():
    rows_ = [b'{"cursor": %d, "timestamp": "2026-01-01 10:00", "content": "entry %d about topic %d\\nmore", '
             b'"session_key": "s:%d"}' % (i, i, i % 97, i % 3) for i in range(1, N + 1)]
    rows_[500] = b'{"cursor": "x"}'                                        # one unreadable line
    return parse_history(b"\n".join(rows_) + b"\n")


def test_100k_entries_load_and_filter(qtbot, big_history):
    """Correctness at 100k entries; how fast is measured in tests/bench (a wall-clock bound here
    failed on a loaded 2-core machine)."""
    assert len(big_history.entries) == N - 1 and len(big_history.bad_lines) == 1
    view = HistoryView()
    qtbot.addWidget(view)
    in_prompt = set(range(N - 49, N + 1))
    view.model.set_history(big_history, N, N - 1000, in_prompt)
    assert view.model.rowCount() == N - 1 + 1 + 2
    assert view.proxy.rowCount() == view.model.rowCount()
    d_row, c_row = view.model.marker_rows
    assert cell(view.model, d_row - 1, 0, CursorRole) == N - 1000
    assert c_row == view.model.rowCount() - 1
    view.proxy.set_text("topic 42")
    assert view.proxy.rowCount() == len([i for i in range(1, N + 1) if i != 501 and "topic 42" in
                                         f"entry {i} about topic {i % 97}"])
    assert view.select_cursor(N - 10)
    assert view.selected_item().cursor == N - 10


# ---- screenshots ------------------------------------------------------------------------------


def screenshot_dir(tmp_path: Path) -> Path:
    """docs/screenshots when DREAMDESK_SCREENSHOTS=1 (to refresh the committed images), else tmp."""
    if os.environ.get("DREAMDESK_SCREENSHOTS") == "1":
        d = REPO / "docs" / "screenshots"
        d.mkdir(parents=True, exist_ok=True)
        return d
    return tmp_path


@pytest.mark.parametrize("name, dark", [("history.png", False), ("history-dark.png", True)])
def test_screenshot(qtbot, tmp_path, name, dark):
    h, cur, dream = demo()
    view = HistoryView()
    qtbot.addWidget(view)
    if dark:
        view.setPalette(dark_palette())
    view.set_data(h, cur, dream)
    view.resize(1100, 700)
    view.show()
    qtbot.waitExposed(view)
    assert view.select_cursor(100)
    img = view.grab().toImage()
    path = screenshot_dir(tmp_path) / name
    assert img.save(str(path))
    assert img.width() == 1100 and img.height() == 700

    def pixel(src_row, col, dx=0.9):
        """The colour inside a cell, away from its text, in the grabbed image."""
        index = view.proxy.mapFromSource(view.model.index(src_row, col))
        rect = view.table.visualRect(index)
        assert rect.isValid() and view.table.viewport().rect().contains(rect.center())
        pt = view.table.viewport().mapTo(view, rect.topLeft())
        return img.pixelColor(pt.x() + int(rect.width() * dx), pt.y() + rect.height() // 2)

    d_row = view.model.marker_rows[0]
    err_row = view.model.row_for_line(97)
    assert pixel(d_row, 4) == cell(view.model, d_row, 0, Qt.BackgroundRole)
    assert pixel(err_row, COL_SESSION) == cell(view.model, err_row, 0, Qt.BackgroundRole)
    base = view.palette().color(QPalette.Base)
    assert (base.lightness() < 80) == dark


def test_the_window_reads_an_appended_line_not_the_whole_history(gui_env, qtbot, make_workspace, tmp_path):
    """Design item 2, structural: the window keeps one Workspace, so after the assistant appends
    a line its refresh reads only that line (no wall time measured)."""
    from conftest import open_window
    lines = "".join(json.dumps({"cursor": c, "timestamp": "2026-11-01 10:00", "content": f"fact {c}"}) + "\n"
                    for c in range(1, 2001))
    home = make_workspace({"SOUL.md": "s", "USER.md": "u", "memory/history.jsonl": lines}, root=tmp_path / "home")
    old = time.time_ns() - 60 * 10**9
    os.utime(home / "memory" / "history.jsonl", ns=(old, old))
    win = open_window(qtbot, home)
    try:
        qtbot.waitUntil(lambda: win.state is not None and len(win.state.status.history.entries) == 2000, timeout=10000)
        before = win.ws.history_reader.stats
        with open(home / "memory" / "history.jsonl", "a") as f:
            f.write(json.dumps({"cursor": 2001, "timestamp": "2026-11-01 10:05", "content": "appended"}) + "\n")
        qtbot.waitUntil(lambda: len(win.state.status.history.entries) == 2001, timeout=10000)
        after = win.ws.history_reader.stats
        assert after["tail"] == before["tail"] + 1 and after["full"] == before["full"], (before, after)
        assert win.state.status.history.entries[-1].content == "appended"
    finally:
        win.close()
