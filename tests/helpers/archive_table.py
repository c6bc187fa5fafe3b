"""Helpers for tests (from test_gui_archive_runs.py): Dialogs, select_ids, anchor_point, cell, shown_ids."""

from __future__ import annotations

from dreamdesk.gui.models.archive_model import ArchiveFilterProxy
from dreamdesk.gui.qt import Qt
from dreamdesk.gui.views.archive_view import ArchiveView


def cell(model, row, col, role=Qt.DisplayRole):
    if isinstance(model, ArchiveFilterProxy):
        return model.sourceModel().data(model.mapToSource(model.index(row, col)), role)
    return model.data(model.index(row, col), role)


def shown_ids(view: ArchiveView) -> list[str]:
    return [view.model.record(view.proxy.mapToSource(view.proxy.index(r, 0)).row()).id
            for r in range(view.proxy.rowCount())]


class Dialogs:
    def __init__(self, answer: bool):
        self.answer = answer
        self.asked: list[tuple[str, str]] = []

    def confirm(self, parent, title, text) -> bool:
        self.asked.append((title, text))
        return self.answer


def select_ids(view: ArchiveView, ids: list[str]) -> None:
    sel = view.table.selectionModel()
    sel.clearSelection()
    for rid in ids:
        index = view.proxy.mapFromSource(view.model.index(view.model.row_for_id(rid), 0))
        sel.select(index, sel.SelectionFlag.Select | sel.SelectionFlag.Rows)
        sel.setCurrentIndex(index, sel.SelectionFlag.NoUpdate)


def anchor_point(browser, href: str, label: str):
    """Scroll the link with that text into view and return its centre (viewport coordinates)."""
    doc = browser.document()
    cur = doc.find(label)
    while not cur.isNull():
        probe = browser.textCursor()
        probe.setPosition(cur.selectionStart() + 1)
        if probe.charFormat().anchorHref() == href:
            probe.setPosition(cur.selectionStart() + len(label) // 2)
            browser.setTextCursor(probe)
            browser.ensureCursorVisible()
            return browser.cursorRect(probe).center()
        cur = doc.find(label, cur)
    raise AssertionError(f"no link {href!r} labelled {label!r}")
