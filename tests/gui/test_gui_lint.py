"""The Lint tab, driven as a person would: the demo's findings listed, one selected and fixed with
the Fix button, gone from the list, its entry in the archive, and the fix undoable."""

from __future__ import annotations

import pytest

from dreamdesk.engine.core import clock
from dreamdesk.engine.recovery.archive import read_archive
from dreamdesk.engine.recovery.restore import recent_restores, undo_restore
from dreamdesk.engine.home.workspace import Workspace
from dreamdesk.gui.qt import Qt
from dreamdesk.gui.views.lint_view import REVIEW_BUTTON

LAUNCH = "- Target launch: 1 Dec 2026. DNS stays at Cloudflare, proxy off."


@pytest.fixture
def pinned_today(monkeypatch):
    monkeypatch.setenv(clock.TODAY_ENV, "2026-12-02")


def _lint_tab(qtbot, win):
    view = win.lint                                  # built on first access, like a click on its tab
    win.tabs.setCurrentWidget(view)
    qtbot.waitUntil(lambda: view.loaded, timeout=10000)
    return view


def _kinds(view):
    return [(f.kind, f.target.file) for f in view.model.findings]


def test_lint_tab_lists_the_demos_findings(pinned_today, main_window, qtbot, qtmodeltester):
    view = _lint_tab(qtbot, main_window)
    assert main_window.tabs.tabText(main_window.tabs.indexOf(view)) == "Lint"
    assert _kinds(view) == [("similar", "USER.md"), ("too-long", "memory/MEMORY.md"),
                            ("past-date", "memory/MEMORY.md")]
    qtmodeltester.check(view.model)
    assert view.summary.text() == ("3 findings: 1 similar, 1 past-date, 1 too-long "
                                   "(2 for review, with no one-click fix)")
    m = view.model
    assert [m.data(m.index(r, 1)) for r in range(3)] == ["review", "review", "rewrite"]
    assert [m.data(m.index(2, c)) for c in (0, 2, 3)] == ["past-date", "memory/MEMORY.md", "15"]
    assert m.data(m.index(2, 4)) == LAUNCH
    view.select_id("too-long:memory/MEMORY.md:10")
    assert not view.fix_button.isEnabled() and "Files tab" in view.detail.toPlainText()
    # the overlap of SOUL.md's and USER.md's "no emojis" lines: shown, never removed in one click
    view.select_id("similar:USER.md:22")
    assert not view.fix_button.isEnabled() and view.fix_button.text() == REVIEW_BUTTON
    assert "compare them and merge them by hand" in view.detail.toPlainText()


def test_a_kind_under_the_precision_bar_is_shown_for_review(pinned_today, main_window, demo_home, qtbot,
                                                            monkeypatch):
    """rules.LINT_PRECISION is what decides: past-date measured at 90 % would be for review, its
    Fix gone, and a click on the button writes nothing."""
    from dreamdesk.engine.core import rules
    monkeypatch.setitem(rules.LINT_PRECISION, "past-date", 0.9)
    view = _lint_tab(qtbot, main_window)
    assert view.summary.text().endswith("(3 for review, with no one-click fix)")
    m = view.model
    assert m.data(m.index(2, 1)) == "review"
    view.select_id("past-date:memory/MEMORY.md:15")
    assert not view.fix_button.isEnabled() and view.fix_button.text() == REVIEW_BUTTON
    text = view.detail.toPlainText()
    assert ("Review: past-date findings are right 90% of the time on the labelled set, under the 95% a one-click "
            "fix needs. If it is right, take the past plan out of memory/MEMORY.md, keep “- DNS stays at Cloudflare, "
            "proxy off.” by hand in the Files tab.") in text
    memory = demo_home / "workspace" / "memory" / "MEMORY.md"
    before = memory.read_bytes()
    view.fix_selected()                              # what a click would run, were the button enabled
    assert not view.fixing and memory.read_bytes() == before


def test_fix_removes_the_finding_and_archives_the_entry(pinned_today, main_window, demo_home, qtbot):
    from helpers.screens import grab
    view = _lint_tab(qtbot, main_window)
    view.select_id("past-date:memory/MEMORY.md:15")
    assert view.fix_button.isEnabled() and view.fix_button.text() == "Take the past plan out of memory/MEMORY.md, keep “- DNS stays at Cloudflare, proxy off.”"
    assert "1 Dec 2026" in view.detail.toPlainText() and LAUNCH in view.detail.toPlainText()
    grab(main_window, "lint.png")
    memory = demo_home / "workspace" / "memory" / "MEMORY.md"
    before = memory.read_bytes()
    said: list[str] = []
    view.status.connect(said.append)

    qtbot.mouseClick(view.fix_button, Qt.LeftButton)
    # (the fix's change record re-reads the tab; its status line comes with the job's result)
    qtbot.waitUntil(lambda: ("past-date", "memory/MEMORY.md") not in _kinds(view) and bool(said), timeout=15000)
    assert _kinds(view) == [("similar", "USER.md"), ("too-long", "memory/MEMORY.md")]
    ws = Workspace.open(demo_home)
    assert [(r.file, r.text, r.reason) for r in read_archive(ws).records if r.text == LAUNCH] == [
        ("memory/MEMORY.md", LAUNCH, "edit")]
    assert LAUNCH not in memory.read_text()
    assert said[0].startswith("Fixed: Take the past plan out of memory/MEMORY.md, keep “- DNS stays at Cloudflare, proxy off.”; 1 archived.")

    undo_restore(ws, recent_restores(ws)[0].id)       # Snapshots → Undo last restore does the same
    assert memory.read_bytes() == before

