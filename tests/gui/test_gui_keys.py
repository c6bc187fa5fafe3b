"""The keyboard (issue 25.12): a table reached with Tab shows where the keys act (its current row
selected, a frame in the highlight colour) and what is typed there goes into its search field;
every tab has a key (the tenth, Charts, had none); Enter in a Settings → Memory field applies."""

from __future__ import annotations

import json

import pytest

from dreamdesk.gui.qt import QApplication, QKeySequence, QPalette, Qt
from dreamdesk.gui.window.tab_views import TABS, TAB_KEYS


@pytest.fixture
def window(past_window):
    return past_window


def left_edge(widget):
    """The colour of the widget's frame, on its left edge halfway down (as grabbed)."""
    img = widget.grab().toImage()
    return img.pixelColor(0, img.height() // 2)


def test_tab_into_the_archive_table_shows_the_row_and_typing_searches(window, qtbot):
    from PySide6.QtTest import QTest
    view = window.archive
    window.tabs.setCurrentWidget(view)
    qtbot.waitUntil(lambda: view.loaded and view.model.rowCount() > 0, timeout=10000)
    highlight = view.table.palette().color(QPalette.ColorGroup.Active, QPalette.ColorRole.Highlight)
    assert left_edge(view.table) != highlight                 # no frame while elsewhere
    assert view.selected_ids() == []
    view.origin_combo.setFocus()
    QTest.keyClick(QApplication.focusWidget(), Qt.Key.Key_Tab)
    assert QApplication.focusWidget() is view.table
    first = view.model.record(view.proxy.mapToSource(view.proxy.index(0, 0)).row())
    assert view.selected_ids() == [first.id]                 # the current row, selected: where the keys act
    assert first.id in view.detail.toPlainText()
    qtbot.waitUntil(lambda: left_edge(view.table) == highlight, timeout=2000)    # the focus frame
    QTest.keyClick(view.table, Qt.Key.Key_Down)               # the arrows still move the row
    second = view.model.record(view.proxy.mapToSource(view.proxy.index(1, 0)).row())
    assert view.selected_ids() == [second.id]
    QTest.keyClicks(view.table, "dagster")                    # typed text goes where it can be seen
    assert view.search_edit.text() == "dagster" and QApplication.focusWidget() is view.search_edit
    qtbot.waitUntil(lambda: "of 47 archived entries match" in view.count_label.text(), timeout=5000)
    assert 0 < view.proxy.rowCount() < 47


def test_typing_in_the_history_table_filters_it(window, qtbot):
    from PySide6.QtTest import QTest
    view = window.history
    window.tabs.setCurrentWidget(view)
    qtbot.waitUntil(lambda: view.model.entry_count > 0, timeout=10000)
    view.table.setFocus()
    QTest.keyClicks(view.table, "parcelwise")
    assert view.filter_edit.text() == "parcelwise"
    qtbot.waitUntil(lambda: "match" in view.count_label.text(), timeout=5000)


def test_every_tab_has_a_key_the_tenth_ctrl_0(window, qtbot):
    from PySide6.QtTest import QTest
    titles = ["Dashboard", *(title for _n, title, *_ in TABS)]
    assert len(titles) == 10 and len(TAB_KEYS) >= len(titles)
    menu_keys = {a.text(): a.shortcut().toString() for a in window.actions() if a.text() in titles}
    assert menu_keys == dict(zip(titles, TAB_KEYS)) and menu_keys["Charts"] == "Ctrl+0"
    window.history.table.setFocus()              # (keys typed into a table go to its search field)
    for i in reversed(range(len(titles))):
        QTest.keySequence(window, QKeySequence(TAB_KEYS[i]))
        assert window.tabs.currentIndex() == i, titles[i]
    assert window.tabs.tabText(9) == "Charts"
    QTest.keySequence(window, QKeySequence("Ctrl+0"))
    assert window.tabs.currentWidget() is window.charts
    rows = window.shortcuts_dialog().shown_rows()
    assert ("View menu", "Charts", "Ctrl+0") in [tuple(r) for r in rows]


def test_enter_in_a_budget_field_applies_it(window, qtbot):
    from PySide6.QtTest import QTest
    view = window.settings
    window.tabs.setCurrentWidget(view)
    cfg = window.ws.config_create_path
    qtbot.waitUntil(lambda: view.cfg is not None, timeout=10000)
    spin = view.budget_spins["memoryBudgetChars"]
    before = cfg.read_bytes()
    spin.setFocus()
    QTest.keyClick(spin, Qt.Key.Key_Return)                   # nothing changed: nothing written
    assert not window.engine.busy and cfg.read_bytes() == before
    spin.selectAll()
    QTest.keyClicks(spin, "2500")
    QTest.keyClick(spin, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: json.loads(cfg.read_text())["agents"]["defaults"]["dream"]["memoryBudgetChars"] == 2500,
                    timeout=5000)
    qtbot.waitUntil(lambda: view.pending_line.text() == "" and not view.apply_button.isEnabled(), timeout=5000)
    assert spin.value() == 2500
