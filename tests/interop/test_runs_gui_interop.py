"""Dream runs on a home written by nanobot 0.3.5's REAL Dream (issue 13 §1, GUI): the assistant's
runs listed beside Dreamdesk's and marked as its own, each one's detail with the entries its commit
removed (as the commit's diff says), the model's tool calls from its transcript, the tokens its
usage store recorded, and a Restore that brings a removed entry back byte for byte."""

from __future__ import annotations

import subprocess

import pytest
from conftest import open_window   # tests/conftest.py (this folder's conftest is interop.conftest)
from helpers.gui_waits import first_paint
from helpers.archive_table import anchor_point
from helpers.screens import grab

from dreamdesk.engine.home.workspace import Workspace
from dreamdesk.gui.models.runs_model import (COL_BATCH, COL_BY, COL_CREATED, COL_ID, COL_REMOVED, COL_STATUS, COL_TOKENS,
                                   COL_TRIGGER)
from dreamdesk.gui.qt import Qt
from dreamdesk.gui.views.runs_view import RunsView

from .nanobot_dream_runs import RUNS

# what the scripted model reported for run n's calls: input 1000n+i, output 10n+i
TOKENS = [sum(1000 * n + i + 10 * n + i for i in range(r.calls_count)) for n, r in enumerate(RUNS, 1)]


def _git(ws, *args) -> str:
    return subprocess.run(["git", *args], cwd=ws, capture_output=True, text=True, check=True).stdout


def _diff_lines(ws, sha: str, sign: str) -> list[tuple[str, str]]:
    """(file, line) for every line the commit's diff removed ("-") or added ("+")."""
    out = []
    for path in ("USER.md", "memory/MEMORY.md"):
        for ln in _git(ws, "show", "--format=", "--no-color", sha, "--", path).splitlines():
            if ln.startswith(sign) and not ln.startswith(sign * 3) and ln[1:].strip():
                out.append((path, ln[1:]))
    return sorted(out)


class Yes:
    def __init__(self):
        self.asked: list[str] = []

    def confirm(self, parent, title, text) -> bool:
        self.asked.append(text)
        return True


def _opened(qtbot, widget, home, *args):
    """The view shown, on the home's workspace."""
    qtbot.addWidget(widget)
    widget.resize(1200, 900)
    widget.show()
    qtbot.waitExposed(widget)
    widget.set_workspace(Workspace.open(home.path), *args)
    return widget


@pytest.fixture
def view(qtbot, gui_engine, gui_env, nanobot_dreamed_home):
    v = _opened(qtbot, RunsView(gui_engine), nanobot_dreamed_home)
    qtbot.waitUntil(lambda: v.loaded and v.shown is not None, timeout=10000)
    return v


def _row_of(view, short_sha: str) -> int:
    rows = [r for r in range(view.model.rowCount()) if view.model.run(r)["id"].startswith(short_sha)]
    assert len(rows) == 1, (short_sha, [view.model.run(r)["id"] for r in range(view.model.rowCount())])
    return rows[0]


def _select(qtbot, view, short_sha: str):
    row = _row_of(view, short_sha)
    view.table.selectRow(row)
    qtbot.waitUntil(lambda: view.shown_assistant is not None and view.shown_assistant.rec.sha.startswith(short_sha),
                    timeout=10000)
    return view.shown_assistant


def test_the_assistants_runs_are_listed_and_marked(qtmodeltester, view, nanobot_dreamed_home):
    home, m = nanobot_dreamed_home, view.model
    qtmodeltester.check(m)
    ours = [m.run(r)["id"] for r in range(m.rowCount()) if m.cell_text(r, COL_BY) == "assistant"]
    assert m.rowCount() == len(ours) and m.assistant_count() == len(ours)     # no run of Dreamdesk's here
    # every commit nanobot made that changed a memory file, newest first (the three Dream runs on top)
    log = _git(home.ws, "log", "--format=%H", "--", "SOUL.md", "USER.md", "memory/MEMORY.md").split()
    assert ours == log
    assert [s[:7] for s in ours[:3]] == [s[:7] for s in reversed(home.commits)]
    assert f"{len(ours)} Dream runs ({len(ours)} by the assistant)" in view.summary.text()
    for n, (run, made) in enumerate(zip(RUNS, home.runs)):
        if not made["sha"]:
            continue                   # the run that changed nothing made no commit: no row
        row = _row_of(view, made["sha"])
        sha = m.run(row)["id"]
        assert (m.cell_text(row, COL_TRIGGER), m.cell_text(row, COL_STATUS), m.cell_text(row, COL_ID)) == \
            ("dream", f"commit {sha[:8]}", sha[:8])
        assert m.cell_text(row, COL_TOKENS) == f"{TOKENS[n]:,}"
        assert m.cell_text(row, COL_REMOVED) == f"−{len(_diff_lines(home.ws, sha, '-'))}"
        assert m.cell_text(row, COL_CREATED) == f"+{len(_diff_lines(home.ws, sha, '+'))}"
        assert m.cell_text(row, COL_BATCH).startswith("cursor ")
        assert m.data(m.index(row, COL_BY), Qt.ToolTipRole).startswith("Made by the assistant (nanobot)")


def test_each_runs_detail_shows_its_removals_tool_calls_and_tokens(qtbot, view, nanobot_dreamed_home):
    home = nanobot_dreamed_home
    for n, (run, made) in enumerate(zip(RUNS, home.runs)):
        if not made["sha"]:
            continue
        d = _select(qtbot, view, made["sha"])
        shown = view.detail.toPlainText()
        # the removed entries are exactly the lines the commit's diff took out
        assert sorted((r.path, r.entry.text) for r in d.removed) == _diff_lines(home.ws, d.rec.sha, "-")
        for r in d.removed:
            assert r.entry.text in shown and (r.prune_id or "") in shown
        assert f"Removed entries ({len(d.removed)})" in shown
        # the model's tool calls, in order, with their paths; the tokens its usage store recorded
        assert d.transcript is not None and d.transcript.key == made["key"]
        assert [c.name for c in d.transcript.calls] == [c[0] for c in run.calls]
        assert f"The model's tool calls ({len(run.calls)})" in shown
        listed = [ln for ln in shown.splitlines() if ln[:1].isdigit() and ". " in ln and
                  ln.split(". ", 1)[1].split(" ")[0] in {"read_file", "edit_file", "write_file"}]
        assert [ln.split(". ", 1)[1] for ln in listed] == [f"{name} {args['path']}" for name, args in run.calls]
        for _, args in run.calls:
            if "old_text" in args:
                assert args["old_text"].rstrip("\n") in shown
        assert d.tokens is not None and d.tokens.tokens.total == TOKENS[n]
        assert f"Tokens\n{TOKENS[n]:,} (prompt" in shown
        cur = d.rec.cursor
        assert f".dream_cursor {cur[0]} → {cur[1]}" in shown and cur[0] != cur[1]
    # the last run's peer card: USER.md before → after as a diff
    assert "-- Prefers tea over coffee" in shown and "+- Lives in Braga" in shown


def test_restore_from_the_detail_brings_the_entry_back_byte_for_byte(qtbot, gui_engine, gui_env, dreamed_copy):
    home = dreamed_copy()                       # its own copy of the dreamed home: this test writes
    view = _opened(qtbot, RunsView(gui_engine), home)
    qtbot.waitUntil(lambda: view.loaded and view.shown is not None, timeout=10000)
    user = home.ws / "USER.md"
    before = user.read_bytes()
    d = _select(qtbot, view, home.commits[2])
    tea = next(r for r in d.removed if r.entry.text == "- Prefers tea over coffee")
    assert not tea.entry.replaced_by and "removed outright" in view.detail.toPlainText()
    restored = []
    view.restored.connect(restored.append)
    view.dialogs = Yes()
    pos = anchor_point(view.detail, f"restore:{tea.prune_id}", "Restore")
    qtbot.mouseClick(view.detail.viewport(), Qt.MouseButton.LeftButton, pos=pos)
    qtbot.waitUntil(lambda: restored == [tea.prune_id], timeout=10000)
    assert "- Prefers tea over coffee" in view.dialogs.asked[0]
    after = user.read_bytes()
    line = b"- Prefers tea over coffee\n"
    assert after.count(line) == 1 and after.replace(line, b"", 1) == before
    old = _git(home.ws, "show", f"{home.commits[2]}~1:USER.md")
    assert line.decode() in old                              # the very bytes the assistant's Dream removed
    qtbot.waitUntil(lambda: next(r for r in view.shown_assistant.removed if r.prune_id == tea.prune_id).back,
                    timeout=10000)
    assert "back in the file" in view.detail.toPlainText()


def test_the_commit_link_opens_snapshots_on_it_and_screenshots(qtbot, gui_env, nanobot_dreamed_home):
    from conftest import dark_palette
    home = nanobot_dreamed_home
    win = open_window(qtbot, home.path)
    win.resize(1400, 900)
    win.tabs.setCurrentWidget(win.runs)
    view = win.runs
    qtbot.waitUntil(lambda: view.model.assistant_count() > 0, timeout=10000)
    d = _select(qtbot, view, home.commits[2])
    view.detail.verticalScrollBar().setValue(0)
    grab(win, "runs-assistant.png")
    pos = anchor_point(view.detail, f"commit:{d.rec.sha}", "show in Snapshots")
    qtbot.mouseClick(view.detail.viewport(), Qt.MouseButton.LeftButton, pos=pos)
    assert win.tabs.currentWidget() is win.snapshots
    qtbot.waitUntil(lambda: win.snapshots.selected_shas() == [d.rec.sha], timeout=10000)
    win.tabs.setCurrentWidget(win.runs)
    light = view.detail.toHtml()
    win.setPalette(dark_palette())
    qtbot.waitUntil(lambda: view.detail.toHtml() != light, timeout=5000)   # the detail drawn again, dark
    grab(win, "runs-assistant-dark.png")
    win.close()


def test_tokens_per_day_chart(qtbot, gui_engine, gui_env, nanobot_dreamed_home):
    from dreamdesk.gui.views.charts_view import ChartsView
    view = _opened(qtbot, ChartsView(gui_engine), nanobot_dreamed_home, {})
    qtbot.waitUntil(lambda: "assistant" in view.token_sets, timeout=10000)
    theirs, ours = view.token_sets["assistant"], view.token_sets["dreamdesk"]
    # every call nanobot's Dream recorded, the run that changed nothing too; Dreamdesk ran none here
    assert sum(theirs.at(i) for i in range(theirs.count())) == sum(TOKENS)
    assert sum(ours.at(i) for i in range(ours.count())) == 0
    assert view.tokens_view.isVisible() and not view.tokens_empty.isVisible()
    assert view.tokens_chart.title() == "Dream tokens per day"
    first_paint(view)                   # the charts lay out their axes after the first paint
    grab(view, "charts-tokens.png")
    from conftest import dark_palette
    view.setPalette(dark_palette())
    view.refresh()                      # redrawn in the dark chart theme
    qtbot.waitUntil(lambda: view.tokens_chart.theme() == view.tokens_chart.ChartTheme.ChartThemeDark, timeout=10000)
    first_paint(view)
    grab(view, "charts-tokens-dark.png")
