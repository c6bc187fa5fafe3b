"""The archive browser and the Dream runs view, on real data: the demo after its recorded Dream
run, plus a scripted second run that replaces a fact the first one created. Models under
qtmodeltester; search, filters, restore and the run detail's links driven through the widgets."""

from __future__ import annotations

import html
import json
import shutil
from datetime import datetime, timedelta
from pathlib import Path

import pytest
from conftest import DEMO_HOME, dark_palette, tree_state
from helpers.gui_waits import jobs_done

from dreamdesk.engine import cli
from dreamdesk.engine.recovery.archive import Archive, ArchiveRecord, append_records, fold, read_archive, search
from dreamdesk.engine.recovery.prunes import all_prunes
from dreamdesk.engine.dream import records
from dreamdesk.engine.dream.runtypes import record_json
from dreamdesk.engine.dream.run import DreamOptions, run_dream
from dreamdesk.engine.text.entries import split_entries
from dreamdesk.engine.llm.replay import ReplayClient
from dreamdesk.engine.home.workspace import Workspace
from dreamdesk.gui.models.archive_model import (COL_FILE, COL_HEADING, COL_ID, COL_REASON, COL_REPLACED, COL_RUN, COL_TEXT,
                                      ArchiveFilterProxy, ArchiveModel)
from dreamdesk.gui.models.history_model import preview
from dreamdesk.gui.models.runs_model import (COL_BATCH, COL_CREATED, COL_PRUNED, COL_REFUSED, COL_REMOVED, COL_STATUS,
                                   RunsModel)
from dreamdesk.gui.qt import QColor, QPalette, Qt
from dreamdesk.engine.recovery.prune_restores import plan_placements
from dreamdesk.gui.views.archive_view import ALL_FILES, ALL_REASONS, SEARCH_DEBOUNCE_MS, ArchiveView, period_for
from dreamdesk.gui.views.history_view import HistoryView
from dreamdesk.gui.views.runs_view import RunsView
from dreamdesk.gui.context.worker import JobLanes
from helpers.screens import grab
from helpers.archive_table import Dialogs, anchor_point, cell, select_ids, shown_ids

PIHOLE = "- Pi-hole moves to an LXC container on the Proxmox host before the Pi 4 is retired."
PIHOLE_NOW = "Pi-hole runs in an LXC container on the Proxmox host; the Pi 4 is retired."
TODOIST = "- Keeps tasks in Todoist; the weekly review reads the project \"This week\"."
DAGSTER = ("- One Dagster code location per domain (telemetry, billing, reporting); deploys through GitHub\n"
           "  Actions. She reviews infra PRs on Thursdays.")
DUTCH_NOW = "- Dutch at B1: evening class on Thursdays at CVO Gent, 19:00–21:30 (teacher Mieke)."

# A second, scripted run (played by ReplayClient): the Pi-hole move happened (entry 121), so the
# fact the first run created is replaced — the first run's fact is then "removed in <this run>".
SECOND_RUN = [
    {"pass": "consolidation", "tool_calls": [{"name": "remove_fact", "arguments": {
        "path": "memory/MEMORY.md", "text": PIHOLE, "replacement": PIHOLE_NOW, "sources": [121, 122]}}],
     "usage": {"prompt_tokens": 3100, "completion_tokens": 120}},
    {"content": "Pi-hole moved to LXC; the Pi 4 is retired.", "usage": {"prompt_tokens": 3300,
                                                                          "completion_tokens": 20}},
]


# ---- data ------------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def dreamed(tmp_path_factory) -> Path:
    """The demo home after the recorded run (`dreamdesk dream --replay --review`) and a second run."""
    home = tmp_path_factory.mktemp("dreamed") / "demo"
    shutil.copytree(DEMO_HOME, home, symlinks=True)
    assert cli.main(["dream", str(home), "--replay", str(home / "dream-replay.jsonl"), "--review"]) == 0
    ws = Workspace.open(home)
    (first,), _ = records.list_runs(ws)
    transcript = home / "second-run.jsonl"
    transcript.write_text("\n".join(json.dumps(t, ensure_ascii=False) for t in SECOND_RUN) + "\n", encoding="utf-8")
    later = datetime.fromisoformat(first.started) + timedelta(hours=2)
    result = run_dream(ws, ReplayClient(transcript), DreamOptions(trigger="interval"), now=lambda: later)
    assert result.run_id and result.record["removed"][0]["text"] == PIHOLE
    return home


@pytest.fixture
def home(dreamed, tmp_path) -> Path:
    """A private copy of the dreamed demo home (snapshots repository included)."""
    dest = tmp_path / "demo"
    shutil.copytree(dreamed, dest, symlinks=True)
    return dest


@pytest.fixture
def ws(home) -> Workspace:
    return Workspace.open(home)


@pytest.fixture
def runs(ws) -> list[dict]:
    """The run records as the Runs view lists them: their JSON."""
    out, problems = records.list_runs(ws)
    assert len(out) == 2 and not problems
    return [record_json(r) for r in out]


@pytest.fixture
def engine(qtbot):
    e = JobLanes()
    yield e
    e.shutdown()


def open_archive_view(qtbot, engine, ws) -> ArchiveView:
    from conftest import show_view
    view = show_view(qtbot, ArchiveView(engine), ws)
    qtbot.waitUntil(lambda: view.model.rowCount() > 0, timeout=5000)
    return view


@pytest.fixture
def archive_view(qtbot, engine, ws):
    return open_archive_view(qtbot, engine, ws)


@pytest.fixture
def runs_view(qtbot, engine, ws):
    from conftest import show_view
    view = show_view(qtbot, RunsView(engine), ws, (1200, 820))
    qtbot.waitUntil(lambda: view.shown is not None, timeout=5000)
    return view


def record_with(ws, text):
    return next(r for r in read_archive(ws).records if r.text == text)


# ---- models ----------------------------------------------------------------------------------

def test_archive_model_passes_modeltester(qtmodeltester, qtbot, ws):
    recs = read_archive(ws).records
    model = ArchiveModel()
    qtmodeltester.check(model)                               # empty
    model.set_records(recs)
    qtmodeltester.check(model)
    assert model.rowCount() == len(recs) == 15 and model.columnCount() == 10
    model.sort(COL_ID, Qt.SortOrder.DescendingOrder)
    qtmodeltester.check(model)
    ids = [model.record(r).id for r in range(model.rowCount())]
    assert ids[0].endswith("-15") and ids[-1].endswith("-1")   # a-<day>-<n> sorts by n, not as text
    proxy = ArchiveFilterProxy()
    proxy.setSourceModel(model)
    qtmodeltester.check(proxy)
    proxy.set_filter("proxmox", "memory/MEMORY.md", None)
    qtmodeltester.check(proxy)
    assert proxy.rowCount() == len(search(recs, text="proxmox", file="memory/MEMORY.md")) > 0
    model.set_records(recs[:3])                              # a reset under an active filter
    qtmodeltester.check(proxy)


def test_runs_model_passes_modeltester(qtmodeltester, qtbot, runs):
    model = RunsModel()
    qtmodeltester.check(model)
    model.set_runs(runs)
    qtmodeltester.check(model)
    first = runs[1]
    assert model.cell_text(1, COL_BATCH) == "100–120 (20)"
    assert model.cell_text(1, COL_CREATED) == f"+{len(first['created'])}" == "+14"
    assert model.cell_text(1, COL_REMOVED) == "−15" and model.cell_text(1, COL_REFUSED) == "1"
    assert isinstance(cell(model, 1, COL_STATUS, Qt.ForegroundRole), QColor)


# ---- the archive browser ---------------------------------------------------------------------

def test_archive_table_lists_exactly_the_archive(archive_view, ws):
    recs = read_archive(ws).records
    view = archive_view
    assert sorted(shown_ids(view)) == sorted(r.id for r in recs) and len(shown_ids(view)) == len(recs)
    newest = max(recs, key=lambda r: (r.archived_at, int(r.id.rsplit("-", 1)[1])))
    assert shown_ids(view)[0] == newest.id                           # newest first
    row = view.model.row_for_id(record_with(ws, DAGSTER).id)
    index = view.proxy.mapFromSource(view.model.index(row, 0))
    rec = record_with(ws, DAGSTER)
    assert [cell(view.proxy, index.row(), c) for c in (COL_ID, COL_FILE, COL_REASON, COL_RUN, COL_HEADING,
                                                         COL_REPLACED)] == \
        [rec.id, "memory/MEMORY.md", rec.reason, rec.run,
         "Work (Parcelwise)", "—"]
    for rec in recs:                                                   # every row shows its record
        r = view.proxy.mapFromSource(view.model.index(view.model.row_for_id(rec.id), 0)).row()
        assert [cell(view.proxy, r, c) for c in (COL_ID, COL_FILE, COL_REASON, COL_RUN)] == \
            [rec.id, rec.file, rec.reason, rec.run or "—"]
        assert cell(view.proxy, r, COL_TEXT) == preview(rec.text, 140)
        assert cell(view.proxy, r, COL_REPLACED) == (preview(rec.replaced_by, 140) if rec.replaced_by else "—")
        assert rec.text in html.unescape(cell(view.proxy, r, COL_TEXT, Qt.ToolTipRole))
    assert f"{len(recs)} archived entries" in view.count_label.text()
    assert view.empty.isHidden() and not view.splitter.isHidden()


def test_detail_pane_shows_the_whole_entry(archive_view, ws):
    view = archive_view
    rec = next(r for r in read_archive(ws).records if r.replaced_by and r.file == "USER.md")
    assert view.select_id(rec.id)
    text = view.detail.toPlainText()
    assert rec.text in text and rec.replaced_by in text and rec.heading in text and rec.run in text
    assert "Replaced by" in text


def test_search_and_filters_through_the_widgets(qtbot, engine, ws, monkeypatch):
    from dreamdesk.gui.views import archive_view as archive_view_mod
    monkeypatch.setattr(archive_view_mod, "SEARCH_DEBOUNCE_MS", 20)      # (200 ms in the app)
    recs = read_archive(ws).records
    view = open_archive_view(qtbot, engine, ws)
    total = view.proxy.rowCount()
    qtbot.keyClicks(view.search_edit, "proxmox")
    assert view.proxy.rowCount() == total                          # debounced: not yet applied
    want = [r.id for r in search(recs, text="proxmox")]
    qtbot.waitUntil(lambda: sorted(shown_ids(view)) == sorted(want), timeout=SEARCH_DEBOUNCE_MS * 10)
    assert 0 < len(want) < total
    assert view.count_label.text().startswith(f"{len(want)} of {total}")

    view.search_edit.clear()
    qtbot.waitUntil(lambda: view.proxy.rowCount() == total, timeout=2000)
    view.file_combo.setCurrentIndex(view.file_combo.findText("USER.md"))
    want = [r.id for r in search(recs, file="USER.md")]
    assert sorted(shown_ids(view)) == sorted(want) and 0 < len(want) < total
    view.reason_combo.setCurrentIndex(view.reason_combo.findText("review"))
    want = [r.id for r in search(recs, file="USER.md", reason="review")]
    assert sorted(shown_ids(view)) == sorted(want) and len(want) == 2
    qtbot.keyClicks(view.search_edit, "todoist")
    want = [r.id for r in search(recs, text="todoist", file="USER.md", reason="review")]
    qtbot.waitUntil(lambda: sorted(shown_ids(view)) == sorted(want), timeout=2000)
    assert len(want) == 1
    qtbot.keyClicks(view.search_edit, " nothing like this")
    qtbot.waitUntil(lambda: view.proxy.rowCount() == 0, timeout=2000)
    assert view.count_label.text().startswith("0 of")
    view.clear_filters()
    assert view.proxy.rowCount() == total
    assert view.file_combo.currentText() == ALL_FILES and view.reason_combo.currentText() == ALL_REASONS


def test_period_for_each_when_choice():
    from datetime import date
    today = date(2026, 3, 2)
    assert period_for("any", today) == (None, None)
    assert period_for("today", today) == ("2026-03-02", "2026-03-02")
    assert period_for("7d", today) == ("2026-02-24", "2026-03-02")        # seven days, today included
    assert period_for("30d", today) == ("2026-02-01", "2026-03-02")
    assert period_for("2024-02", today) == ("2024-02-01", "2024-02-29")   # a leap February


def test_when_filter_keeps_only_that_period(qtbot, engine, make_workspace):
    ws = Workspace.open(make_workspace({"USER.md": "# User\n"}))
    now = datetime.now().astimezone()
    ages = {"today": 0, "three days": 3, "twenty days": 20, "two months": 62}
    for text, days in ages.items():
        append_records(ws, [{"file": "USER.md", "text": f"- {text}", "reason": "dream"}],
                       now=now - timedelta(days=days))
    view = ArchiveView(engine)
    qtbot.addWidget(view)
    view.set_workspace(ws)
    qtbot.waitUntil(lambda: view.model.rowCount() == 4, timeout=5000)
    texts = lambda: sorted(view.model.record(view.proxy.mapToSource(view.proxy.index(r, 0)).row()).text  # noqa: E731
                           for r in range(view.proxy.rowCount()))
    pick = lambda label: view.when_combo.setCurrentIndex(view.when_combo.findText(label))  # noqa: E731
    pick("Today")
    assert texts() == ["- today"] and view.count_label.text().startswith("1 of 4")
    pick("Last 7 days")
    assert texts() == ["- three days", "- today"]
    pick("Last 30 days")
    assert texts() == ["- three days", "- today", "- twenty days"]
    old = now - timedelta(days=62)
    month = f"{old:%B} {old.year}"                                   # each archived month is offered
    assert view.when_combo.findText(month) >= 0
    pick(month)
    assert "- two months" in texts() and "- today" not in texts()
    view.file_combo.setCurrentIndex(view.file_combo.findText("memory/MEMORY.md"))   # combined with the rest
    assert texts() == []
    view.clear_filters()
    assert view.when_combo.currentText() == "Any time" and view.proxy.rowCount() == 4


def test_restore_puts_the_entries_back_under_their_headings(qtbot, archive_view, ws, home):
    view = archive_view
    view.dialogs = Dialogs(True)
    todoist, dagster = record_with(ws, TODOIST), record_with(ws, DAGSTER)
    restored, messages = [], []
    view.restored.connect(restored.append)
    view.status.connect(messages.append)
    select_ids(view, [todoist.id, dagster.id])
    assert view.selected_ids() and set(view.selected_ids()) == {todoist.id, dagster.id}
    assert view.restore_button.isEnabled() and view.restore_button.text() == "Restore selected (2)"
    qtbot.mouseClick(view.restore_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: len(restored) == 2, timeout=10000)
    (title, text), = view.dialogs.asked
    assert f"{todoist.id} → USER.md, at the end of the section “## Preferences”" in text
    assert f"{dagster.id} → memory/MEMORY.md, at the end of the section “## Work (Parcelwise)”" in text
    assert "snapshot" in text and "undone" in text
    assert set(restored) == {todoist.id, dagster.id}
    for rec in (todoist, dagster):
        on_disk = (ws.root / rec.file).read_text(encoding="utf-8")
        assert any(e.text == rec.text and e.heading == rec.heading for e in split_entries(on_disk)), rec.file
    assert messages[-1].startswith("Restored 2 entries to USER.md, memory/MEMORY.md (Undo restore, or Ctrl+Alt+Z, takes it back)")
    # The archive is append-only: both entries are still there, and the browser re-read it.
    assert {todoist.id, dagster.id} <= {r.id for r in read_archive(ws).records}
    qtbot.waitUntil(lambda: not view.busy and view.model.row_for_id(todoist.id) is not None, timeout=5000)

    # Restoring again: the confirmation is not even asked, the text is already in the file.
    select_ids(view, [todoist.id])
    before = tree_state(home)
    qtbot.mouseClick(view.restore_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: messages[-1].startswith("Nothing to restore"), timeout=5000)
    assert "already in USER.md" in messages[-1] and len(view.dialogs.asked) == 1
    assert tree_state(home) == before


def test_declined_restore_writes_nothing(qtbot, archive_view, ws, home):
    view = archive_view
    view.dialogs = Dialogs(False)
    messages = []
    view.status.connect(messages.append)
    # One entry already back in its file (a person pasted it), one still only in the archive.
    user = ws.root / "USER.md"
    dutch_old = next(r for r in read_archive(ws).records if r.file == "USER.md" and "Tuesdays" in r.text)
    user.write_text(user.read_text(encoding="utf-8").rstrip("\n") + "\n" + dutch_old.text + "\n", encoding="utf-8")
    todoist = record_with(ws, TODOIST)
    before = tree_state(home)
    select_ids(view, [todoist.id, dutch_old.id])
    qtbot.mouseClick(view.restore_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: bool(view.dialogs.asked) and not view.busy, timeout=5000)
    text = view.dialogs.asked[0][1]
    assert "Restore 1 archived entry?" in text
    assert f"{dutch_old.id}: already in USER.md — nothing to restore" in text
    assert messages[-1] == "Restore cancelled; nothing was written"
    jobs_done(qtbot, view.engine)                       # a restore would have been queued, and run
    assert tree_state(home) == before


def test_where_a_restore_would_put_each_entry(make_workspace):
    root = make_workspace({"USER.md": "# User\n\n## Preferences\n- Likes tea\n", "memory/MEMORY.md": "# Memory\n"})
    ws = Workspace.open(root)
    recs = append_records(ws, [
        {"file": "USER.md", "text": "- Likes coffee", "reason": "edit", "heading": "## Preferences"},
        {"file": "USER.md", "text": "- Has a cat", "reason": "dream", "heading": "## Pets"},
        {"file": "memory/MEMORY.md", "text": "A loose paragraph.", "reason": "review", "heading": None},
        {"file": "USER.md", "text": "- Likes tea", "reason": "edit", "heading": "## Preferences"},
        {"file": "SOUL.md", "text": "- not a memory file", "reason": "edit"}])
    got = [p.describe() for p in plan_placements(ws, [r.id for r in recs] + ["a-19990101-1"])]
    a, b, c, d, e = (r.id for r in recs)
    assert got[:4] == [f"{a} → USER.md, at the end of the section “## Preferences”",
                       f"{b} → USER.md, under “## Pets” (the heading is gone; recreated at the end)",
                       f"{c} → the end of memory/MEMORY.md",
                       f"{d}: already in USER.md — nothing to restore"]
    assert got[4].startswith(f"{e}: cannot be restored (") and "not a memory file" in got[4]
    assert got[5].startswith("a-19990101-1: cannot be restored (no archive entry")


def test_setext_headings_in_the_table_and_the_restore_plan(qtbot, engine, make_workspace):
    """A setext heading is recorded as both lines; the table and the plan show its text on one
    line, and the plan finds it as a restore will (by level and text, however it is written)."""
    root = make_workspace({"USER.md": "User\n====\n\nPreferences\n-----------\n- Likes tea\n"})
    ws = Workspace.open(root)
    recs = append_records(ws, [
        {"file": "USER.md", "text": "- Likes coffee", "reason": "edit", "heading": "Preferences\n-----------"},
        {"file": "USER.md", "text": "- Runs", "reason": "edit", "heading": "## Preferences"},
        {"file": "USER.md", "text": "- Has a cat", "reason": "dream", "heading": "Pets\n----"}])
    a, b, c = (r.id for r in recs)
    assert [p.describe() for p in plan_placements(ws, [a, b, c])] == [
        f"{a} → USER.md, at the end of the section “Preferences”",
        f"{b} → USER.md, at the end of the section “## Preferences”",
        f"{c} → USER.md, under “Pets” (the heading is gone; recreated at the end)"]
    view = ArchiveView(engine)
    qtbot.addWidget(view)
    view.resize(1000, 420)
    view.show()
    view.set_workspace(ws)
    qtbot.waitUntil(lambda: view.model.rowCount() == 3, timeout=5000)
    row = view.proxy.mapFromSource(view.model.index(view.model.row_for_id(a), 0)).row()
    assert cell(view.proxy, row, COL_HEADING) == "Preferences"
    assert cell(view.proxy, row, COL_HEADING, Qt.ToolTipRole) == "Preferences\n-----------"
    assert view.select_id(a)
    assert "USER.md, under Preferences\n-----------\n" in view.detail.toPlainText()     # the detail: as written
    grab(view, "archive-setext.png")


def test_a_large_archive_stays_responsive(qtbot, engine, make_workspace):
    """20,000 entries: load, sort, filter and select-all give the right rows. (Their speed is a
    benchmark's business: a wall-time bound here failed under load, which says nothing.)"""
    n = 20_000
    recs = [ArchiveRecord(f"a-20260101-{i}", f"2026-01-01T10:{i % 60:02d}:00+00:00",
                          "USER.md" if i % 2 else "memory/MEMORY.md", f"- fact {i} about topic {i % 97}",
                          "dream" if i % 3 else "review", None, None, "## Notes", "memory/archive/2026-01.jsonl", i)
            for i in range(n)]
    view = ArchiveView(engine)
    qtbot.addWidget(view)
    view.resize(1100, 600)
    view.show()
    view._set_archive(Archive(recs), fold(recs, {}), True)
    assert view.proxy.rowCount() == n
    view.table.sortByColumn(COL_ID, Qt.SortOrder.AscendingOrder)
    assert view.model.record(0).id == "a-20260101-0" and view.model.record(n - 1).id == f"a-20260101-{n - 1}"
    view.proxy.set_filter("topic 42", ..., ...)
    assert view.proxy.rowCount() == len(search(recs, text="topic 42"))
    view.clear_filters()
    view.table.selectAll()
    assert len(view.selected_ids()) == n
    messages = []
    view.status.connect(messages.append)
    view.ws = Workspace.open(make_workspace({"USER.md": "# User\n"}))
    view.restore_selected()                                   # too many at once: refused, with the reason
    assert "restore at most" in messages[-1] and not view.busy


def test_empty_state_without_an_archive(qtbot, engine, make_workspace):
    root = make_workspace({"USER.md": "# User\n", "memory/MEMORY.md": "# Memory\n"})
    view = ArchiveView(engine)
    qtbot.addWidget(view)
    view.resize(900, 500)
    view.show()
    view.set_workspace(Workspace.open(root))
    qtbot.waitUntil(lambda: view.loaded, timeout=5000)
    assert view.empty.isVisible() and not view.splitter.isVisible()
    assert "Nothing removed yet" in view.empty.text()
    assert not view.restore_button.isVisible() and not view.search_edit.isVisible()
    grab(view, "archive-empty.png")


# ---- the runs view ---------------------------------------------------------------------------

def test_runs_table_matches_list_runs(runs_view, runs):
    view = runs_view
    assert [view.model.run(r)["id"] for r in range(view.model.rowCount())] == [r["id"] for r in runs]
    second, first = runs
    assert second["started"] > first["started"]                       # newest first
    assert view.model.cell_text(0, COL_CREATED) == "+1" and view.model.cell_text(0, COL_REMOVED) == "−1"
    assert view.model.cell_text(1, COL_STATUS) == first["status"] == "completed"
    assert view.shown["id"] == second["id"]                            # the newest is selected
    assert "2 Dream runs" in view.summary.text()


def test_a_second_load_of_the_runs_tab_parses_no_record(qtbot, qtmodeltester, runs_view, ws):
    """Design item 2: the records are kept by their stat; a refresh with nothing changed shows the
    same rows from them (a changed record is read again: tests/engine/disk/test_stat_memo.py)."""
    from helpers.file_settle import settle
    settle(ws.root)
    with qtbot.waitSignal(runs_view.model.modelReset, timeout=5000):
        runs_view.refresh()                                   # parses what the settle dated anew
    parsed, rows = records.records_parsed(ws), [runs_view.model.run(r)["id"] for r in range(2)]
    with qtbot.waitSignal(runs_view.model.modelReset, timeout=5000):
        runs_view.refresh()
    assert records.records_parsed(ws) == parsed
    assert [runs_view.model.run(r)["id"] for r in range(runs_view.model.rowCount())] == rows
    assert runs_view.model.cell_text(0, COL_CREATED) == "+1"
    qtmodeltester.check(runs_view.model)


def test_a_thousand_runs_are_formatted_only_where_shown(qtbot, qtmodeltester, engine, runs):
    """The table makes a run's cells when its row is painted, not all 1,000 when they are set."""
    many = [dict(runs[i % 2], id=f"r-20260101-{i:06d}") for i in range(1000)]
    view = RunsView(engine)
    qtbot.addWidget(view)
    view.resize(1200, 820)
    view.show()
    qtbot.waitExposed(view)
    view._set_runs(many, [])
    qtbot.waitUntil(lambda: any(c is not None for c in view.model._cells), timeout=5000)   # the shown rows painted
    made = sum(c is not None for c in view.model._cells)
    assert 0 < made <= 40, made
    assert view.model.cell_text(999, COL_STATUS) == runs[1]["status"]
    assert view.model.run(999)["id"] == "r-20260101-000999"
    assert "1,000 Dream runs" in view.summary.text()
    qtmodeltester.check(view.model)


def _select(qtbot, view, run_id):
    assert view.select_run(run_id)
    qtbot.waitUntil(lambda: view.shown is not None and view.shown["id"] == run_id, timeout=5000)


def test_a_refresh_that_changes_nothing_leaves_the_detail_as_it_is(qtbot, runs_view, runs, ws):
    """The run is resolved again, and only a changed detail is laid out again (a long record's
    detail costs more than the table); a fact gone from its file since is shown at once."""
    view, first = runs_view, runs[1]
    _select(qtbot, view, first["id"])
    doc = view.detail.document()
    revision, answered, show = doc.revision(), [], view._show_changed
    view._show_changed = lambda *result: (answered.append(result[0]["id"]), show(*result))
    with qtbot.waitSignal(view.model.modelReset, timeout=5000):
        view.refresh()
    qtbot.waitUntil(lambda: answered == [first["id"]], timeout=5000)
    assert doc.revision() == revision and view.shown["id"] == first["id"]
    user = ws.root / "USER.md"
    user.write_text(user.read_text(encoding="utf-8").replace(DUTCH_NOW + "\n", ""), encoding="utf-8")
    with qtbot.waitSignal(view.model.modelReset, timeout=5000):
        view.refresh()
    qtbot.waitUntil(lambda: len(answered) == 2, timeout=5000)
    assert doc.revision() != revision
    assert {f["text"]: f["status"] for f in view.shown["created"]}[DUTCH_NOW] == "unavailable"


def test_run_detail_created_facts_and_source_links(qtbot, runs_view, runs, ws):
    view = runs_view
    second, first = runs
    _select(qtbot, view, first["id"])
    text = view.detail.toPlainText()
    assert "Created facts (14)" in text and "Removed facts (15)" in text
    resolved = view.shown
    kinds = [f["kind"] for f in resolved["created"]]
    assert kinds.count("explicit") == 12 and kinds.count("deductive") == 1 and kinds.count("inductive") == 1
    assert "deductive" in text and "inductive · confidence medium · induction pass" in text
    statuses = {f["text"]: f["status"] for f in resolved["created"]}
    assert statuses[DUTCH_NOW] == "current" and statuses[PIHOLE] == "removed"
    assert text.count("current") >= 12

    # A source link names the right history entry and, clicked, asks for that cursor.
    hist = {e.cursor: e for e in ws.history().entries}
    pos = anchor_point(view.detail, "cursor:111", "cursor 111")
    assert view.detail.anchorAt(pos) == "cursor:111"
    block = view.detail.cursorForPosition(pos).block().text()
    # the stamp is shown on the user's clock (the demo's history was stamped in Europe/Brussels)
    from dreamdesk.engine.core import clock
    shown = clock.show_history(hist[111].timestamp, clock.home_zone(ws.config()))
    assert clock.home_zone(ws.config()) is not None and block.startswith(f"from cursor 111 ({shown}): ")
    assert hist[111].content.split("\n")[0].removeprefix("- ")[:60] in block
    history = HistoryView()
    qtbot.addWidget(history)
    history.set_data(ws.history(), *ws.cursors()[:2])
    view.historyCursorRequested.connect(history.select_cursor)
    with qtbot.waitSignal(view.historyCursorRequested, timeout=2000) as blocker:
        qtbot.mouseClick(view.detail.viewport(), Qt.MouseButton.LeftButton, pos=pos)
    assert blocker.args == [111]
    assert history.selected_item().cursor == 111 and history.selected_item().content == hist[111].content

    # Every created fact's sources are linked to exactly its cursors.
    for f in resolved["created"]:
        for c in f["sources"]:
            assert c in hist and f"cursor {c}" in text


def test_fact_removed_by_a_later_run(qtbot, runs_view, runs):
    view = runs_view
    second, first = runs
    _select(qtbot, view, first["id"])
    fact = next(f for f in view.shown["created"] if f["text"] == PIHOLE)
    assert fact["status"] == "removed" and fact["removed_in_run"] == second["id"]
    assert f"removed in {second['id']}" in view.detail.toPlainText()
    pos = anchor_point(view.detail, f"run:{second['id']}", second["id"])
    qtbot.mouseClick(view.detail.viewport(), Qt.MouseButton.LeftButton, pos=pos)   # follows to that run
    qtbot.waitUntil(lambda: view.shown["id"] == second["id"], timeout=5000)
    assert "Removed facts (1)" in view.detail.toPlainText()
    assert PIHOLE_NOW in view.detail.toPlainText()


def test_removed_facts_peer_card_refusals_sizes_and_passes(qtbot, runs_view, runs, ws):
    view = runs_view
    second, first = runs
    _select(qtbot, view, first["id"])
    text = view.detail.toPlainText()
    arch = {r.text: r for r in read_archive(ws).records}
    for f in first["removed"]:
        if f["archive_id"]:
            assert f["archive_id"] == arch[f["text"]].id and f"archived as {f['archive_id']}" in text
    assert "replaced by:" in text and "removed outright" in text
    # Peer card: the unified diff of USER.md before -> after.
    assert "--- before/USER.md" in text and "+++ after/USER.md" in text
    assert "-- Senior data engineer on the platform team at Parcelwise" in text
    assert "+- Senior data engineer on the platform team at Parcelwise" in text
    # Refused write: the size it would have had and the budget.
    refused = first["refused"][0]
    assert "Refused writes (1)" in text and f"{refused['size']:,}" in text and "3,000" in text
    # Sizes and passes.
    assert "2,866" in text and "2,895" in text
    for p in first["passes"]:
        assert p["name"] in text
    assert "Passes (4)" in text
    archive_ids = []
    view.archiveEntryRequested.connect(archive_ids.append)
    aid = first["removed"][1]["archive_id"]
    pos = anchor_point(view.detail, f"archive:{aid}", aid)
    qtbot.mouseClick(view.detail.viewport(), Qt.MouseButton.LeftButton, pos=pos)
    assert archive_ids == [aid]


def test_a_pruned_run_is_marked(qtbot, engine, ws, runs):
    later = datetime.fromisoformat(runs[0]["started"]) + timedelta(days=31)
    bare = dict(runs[-1], id="r-20200101-000000", started="2020-01-01T00:00:00+00:00", created=[], removed=[])
    records.save_record(ws, bare)                   # a run none of whose facts is left
    assert records.prune(ws, later)
    assert not (ws.dreams_dir / "r-20200101-000000.json").exists()      # deleted, as Honcho does
    view = RunsView(engine)
    qtbot.addWidget(view)
    view.set_workspace(ws)
    qtbot.waitUntil(lambda: view.shown is not None, timeout=5000)
    pruned, _ = records.list_runs(ws)
    assert pruned and all(r.pruned_at and r.created for r in pruned)
    assert all(view.model.cell_text(r, COL_PRUNED) == "pruned" for r in range(view.model.rowCount()))
    assert "Pruned" in view.detail.toPlainText() and "30-day" in view.detail.toPlainText()
    assert "Nothing it created is left" not in view.detail.toPlainText()


def test_a_record_pruned_before_with_nothing_left_says_the_next_run_deletes_it(qtbot, engine, ws, runs):
    """A record an earlier Dreamdesk slimmed to its counts (it kept such runs) is shown until the
    next run's retention deletes it, and says so."""
    stale = dict(runs[-1], id="r-20200101-000000", started="2020-01-01T00:00:00+00:00", created=[], removed=[],
                 user_md=None, created_count=3, removed_count=1, pruned_at="2020-02-01T00:00:00+00:00")
    records.save_record(ws, stale)
    view = RunsView(engine)
    qtbot.addWidget(view)
    view.resize(1200, 700)
    view.show()
    view.set_workspace(ws)
    qtbot.waitUntil(lambda: view.model.row_for_id(stale["id"]) is not None, timeout=5000)
    assert view.select_run(stale["id"])
    qtbot.waitUntil(lambda: view.shown is not None and view.shown.get("id") == stale["id"], timeout=5000)
    text = view.detail.toPlainText()
    assert "Nothing it created is left in the files" in text and "the next Dream run deletes this record" in text
    assert "Dreamdesk keeps it" not in text
    grab(view, "runs-pruned-bare.png")


def test_a_link_to_a_deleted_run_says_where_it_went(qtbot, engine, ws, runs):
    """The Archive names the run that removed an entry; once that run's record is deleted by the
    retention, following the link says so instead of showing another run."""
    view = RunsView(engine)
    qtbot.addWidget(view)
    view.set_workspace(ws)
    qtbot.waitUntil(lambda: view.shown is not None, timeout=5000)
    shown = view.shown.get("id")
    with qtbot.waitSignal(view.status, timeout=5000) as said:
        assert not view.select_run("r-20200101-000000")
    assert said.args[0] == "No record of run r-20200101-000000 here: a run past 30 days with nothing left is deleted"
    assert view.selected_run()["id"] == shown                   # the run shown before stays shown


def test_empty_state_without_runs(qtbot, engine, make_workspace):
    root = make_workspace({"USER.md": "# User\n"})
    view = RunsView(engine)
    qtbot.addWidget(view)
    view.resize(900, 500)
    view.show()
    view.set_workspace(Workspace.open(root))
    qtbot.waitUntil(lambda: view.loaded, timeout=5000)
    assert view.empty.isVisible() and not view.splitter.isVisible()
    assert "No Dream runs yet" in view.empty.text()
    grab(view, "runs-empty.png")


def test_a_damaged_run_record_is_shown_not_crashed_on(qtbot, engine, ws, runs):
    """Records are files anyone can edit: odd types in them never take the view down."""
    odd = {"id": "r-20200101-000000", "started": "2020-01-01T00:00:00+00:00", "finished": "soon", "status": "completed",
           "batch": {"first": "a", "count": "many"}, "tokens": {"total": "lots"}, "sizes": {"USER.md": 5},
           "passes": [{"name": 3, "tokens": [1], "iterations": "x"}], "removed": [{"text": 7, "file": None}],
           "created": [{"file": "USER.md", "text": 12, "sources": ["x", 111, None], "confidence": {"a": 1}}],
           "user_md": {"before": 1, "after": None}, "refused": [{"size": "big"}]}
    (ws.memory_dir / "dreams" / "r-20200101-000000.json").write_text(json.dumps(odd), encoding="utf-8")
    (ws.memory_dir / "dreams" / "r-20200101-000001.json").write_text('{"id": "r-20200101-000001", "finished": 5}',
                                                                     encoding="utf-8")
    view = RunsView(engine)
    qtbot.addWidget(view)
    view.set_workspace(ws)
    # the engine refuses both (a removed fact without a file; an id-only record): reported, skipped
    qtbot.waitUntil(lambda: view.loaded and view.model.rowCount() == 2, timeout=5000)
    assert view.model.row_for_id(odd["id"]) is None
    assert "2 unreadable records skipped" in view.summary.text()
    for row in range(view.model.rowCount()):
        for col in range(view.model.columnCount()):
            for role in (Qt.DisplayRole, Qt.ToolTipRole, Qt.ForegroundRole):
                cell(view.model, row, col, role)


# ---- screenshots -----------------------------------------------------------------------------



@pytest.mark.parametrize("dark", [False, True])
def test_screenshots(qtbot, archive_view, runs_view, runs, ws, dark):
    suffix = "-dark" if dark else ""
    for view in (archive_view, runs_view):
        if dark:
            view.setPalette(dark_palette())
    archive_view.select_id(record_with(ws, DAGSTER).id)
    grab(archive_view, f"archive{suffix}.png")
    _select(qtbot, runs_view, runs[1]["id"])
    runs_view.detail.verticalScrollBar().setValue(0)
    grab(runs_view, f"runs{suffix}.png")
    if dark:
        base = runs_view.detail.palette().color(QPalette.Base)
        assert base.lightness() < 80


def test_delete_permanently_asks_and_scrubs(qtbot, engine, ws, runs):
    from dreamdesk.engine.recovery.archive import read_archive
    view = ArchiveView(engine)
    qtbot.addWidget(view)
    view.set_workspace(ws)
    qtbot.waitUntil(lambda: view.loaded and view.model.rowCount() > 0, timeout=5000)
    target = read_archive(ws).records[0]
    assert view.select_id(target.id)
    answers = []
    view.dialogs = type("D", (), {"confirm": lambda self, parent, title, text: answers.append(text) or False})()
    view.delete_selected()
    assert answers and "cannot be undone" in answers[0]
    assert read_archive(ws).get(target.id) is not None          # declined: nothing deleted
    view.dialogs = type("D", (), {"confirm": lambda self, parent, title, text: True})()
    view.delete_selected()
    qtbot.waitUntil(lambda: read_archive(ws).get(target.id) is None, timeout=5000)
    # the snapshot commit that removed it still names it: listed as known from that commit alone
    qtbot.waitUntil(lambda: any(e.latest.text == target.text and e.known_from == "commit"
                                for e in view.model.entries), timeout=5000)
    assert view.model.rowCount() == len(all_prunes(ws)[2])


def test_refused_counts_only_size_refusals(qtbot):
    from dreamdesk.gui.views.runs_view import run_detail_html
    run = {"id": "r-1", "started": "2026-11-01T10:00:00+01:00", "status": "completed", "trigger": "manual",
           "refused": [{"file": "USER.md", "size": 3100, "budget": 3000, "before": 2990, "pass": "consolidation",
                        "reason": "over its budget", "kind": "budget"},
                       {"file": "USER.md", "size": 2000, "budget": 3000, "before": 1990, "pass": "review",
                        "reason": "the review pass only makes files smaller", "kind": "shrink-only"}],
           "created": [], "removed": [], "passes": [], "writes": []}
    model = RunsModel()
    model.set_runs([run])
    assert model.cell_text(0, COL_REFUSED) == "1"
    from dreamdesk.gui.qt import QApplication
    from dreamdesk.gui.views.runs_view import detail_colors
    html_text = run_detail_html(run, None, "monospace", detail_colors(QApplication.palette()))
    assert "Refused writes (1)" in html_text and "1 write(s) refused because they would have grown a file" in html_text


def test_restore_and_undo_round_trips_show_one_row_that_says_whether_it_is_back(qtbot, engine, make_workspace):
    """A restore and its undo archive the entry again each time: one row, with how often and
    whether its text is back in the file; deleting that row erases every record of it."""
    from dreamdesk.engine.recovery.archive import write_memory
    from dreamdesk.engine.recovery.restore import restore_snapshot, undo_restore
    from dreamdesk.engine.versions.snapshots import SnapshotStore
    from dreamdesk.gui.models.archive_model import COL_NOW, COL_TEXT
    root = make_workspace({"SOUL.md": "s\n", "memory/MEMORY.md": "# Memory\n",
                           "USER.md": "# User\n\n## Facts\n- Lives in Lyon.\n- Has a cat.\n"})
    ws = Workspace.open(root)
    v1 = SnapshotStore(ws).snapshot("init: test")
    state, _ = ws.read_file("USER.md")
    write_memory(ws, "USER.md", "# User\n\n## Facts\n- Lives in Lyon.\n", state.hash, "edit")
    SnapshotStore(ws).snapshot("edit: USER.md")
    restore_snapshot(ws, v1, path="USER.md")
    undo_restore(ws)
    assert len([r for r in read_archive(ws).records if r.text == "- Has a cat."]) == 2

    view = ArchiveView(engine)
    qtbot.addWidget(view)
    view.resize(1200, 500)
    view.show()
    view.set_workspace(ws)
    qtbot.waitUntil(lambda: view.model.rowCount() == 1, timeout=5000)
    assert cell(view.proxy, 0, COL_TEXT) == "- Has a cat."
    assert cell(view.proxy, 0, COL_NOW) == "removed ×2"
    undo_restore(ws)                                   # the undo undone: the cat is back
    view.refresh()
    qtbot.waitUntil(lambda: cell(view.proxy, 0, COL_NOW).startswith("back since "), timeout=5000)
    assert cell(view.proxy, 0, COL_NOW).endswith(" ×2")
    assert "Back in USER.md since " in cell(view.proxy, 0, COL_NOW, Qt.ToolTipRole)
    select_ids(view, [read_archive(ws).records[0].id])    # the older id finds the folded row
    assert "back in USER.md since" in view.detail.toPlainText() and "2 times" in view.detail.toPlainText()
    grab(view, "archive-folded.png")

    view.dialogs = Dialogs(True)
    view.delete_selected()
    assert "Still listed afterwards: 2 removals known from a snapshot commit" in view.dialogs.asked[0][1]
    # gone from the archive; the snapshot commits that removed it still name it (history is not rewritten)
    qtbot.waitUntil(lambda: view.model.rowCount() == 1 and view.model.entry(0).known_from == "commit", timeout=5000)
    assert not [r for r in read_archive(ws).records if r.text == "- Has a cat."]


def test_the_archive_fits_its_width_and_columns_can_be_shown_again(qtbot, engine, ws, gui_env):
    """Issue 17.6: the table ran past its width (a horizontal scroll cut the Text off). Run and
    Replaced by (both in the detail pane) start hidden, so every shown column fits; the header's
    menu shows them again, and the choice is remembered by the next view."""
    from dreamdesk.gui.models.archive_model import COL_ID, COL_REPLACED, COL_RUN, COL_TEXT

    def opened():
        return open_archive_view(qtbot, engine, ws)

    view = opened()
    assert all(view.table.isColumnHidden(c) for c in (COL_ID, COL_RUN, COL_REPLACED))

    def fitted():                                 # once the rows are laid out, the columns are fitted to them
        assert not view.table.horizontalScrollBar().isVisible(), "the shown columns run past the table's width"
        assert view.table.columnWidth(COL_TEXT) >= 300
    qtbot.waitUntil(fitted, timeout=5000)
    menu = view.column_menu()
    labels = {a.text(): a for a in menu.actions()}
    assert not labels["Text"].isEnabled() and not labels["Replaced by"].isChecked()
    labels["Replaced by"].trigger()
    assert not view.table.isColumnHidden(COL_REPLACED)
    again = opened()
    assert not again.table.isColumnHidden(COL_REPLACED) and again.table.isColumnHidden(COL_RUN)
