"""Dream runs without nanobot's own code: a snapshot repository laid out as nanobot makes it
(tests/helpers/nanobot_repo.py), with no Dream transcript and no usage store in the home. The
assistant's runs sit in one time order beside a run of Dreamdesk's own, and their detail says
plainly what the home no longer holds."""

from __future__ import annotations

import json

import pytest

from dreamdesk.engine.dream.run_list import GONE_TRANSCRIPT, every_run
from dreamdesk.engine.assistants.nanobot_usage import NONE_MESSAGE
from dreamdesk.engine.home.workspace import Workspace
from dreamdesk.gui.models.runs_model import COL_BY, COL_ID, COL_STATUS, COL_TOKENS, COL_TRIGGER
from dreamdesk.gui.views.runs_view import RunsView
from helpers.nanobot_repo import build_nanobot_repo


def _record(ws_root, run_id: str, started: str) -> None:
    """A run record of Dreamdesk's own, as memory/dreams/ keeps it."""
    d = ws_root / "memory" / "dreams"
    d.mkdir(parents=True, exist_ok=True)
    (d / f"{run_id}.json").write_text(json.dumps(
        {"id": run_id, "started": started, "finished": started, "status": "wrote-nothing", "trigger": "manual",
         "created": [], "removed": [], "tokens": {"prompt": 900, "completion": 100, "total": 1000}}))


@pytest.fixture
def repo(tmp_path):
    ws = tmp_path / "home" / "workspace"
    repo = build_nanobot_repo(ws)
    _record(ws, "r-20200101-000000", "2020-01-01T12:00:00+00:00")      # long before nanobot's commits
    _record(ws, "r-20990101-000000", "2099-01-01T12:00:00+00:00")      # after them
    return repo


def _open(qtbot, gui_engine, path) -> RunsView:
    from conftest import show_view
    v = show_view(qtbot, RunsView(gui_engine), Workspace.open(path), (1100, 800))
    qtbot.waitUntil(lambda: v.loaded and v.shown is not None, timeout=10000)
    return v


@pytest.fixture
def view(qtbot, gui_engine, gui_env, repo):
    return _open(qtbot, gui_engine, repo.root)


def test_both_writers_in_one_time_order(qtmodeltester, view, repo):
    m = view.model
    qtmodeltester.check(m)
    rows = [(m.cell_text(r, COL_BY), m.cell_text(r, COL_ID)) for r in range(m.rowCount())]
    assert rows == [("Dreamdesk", "r-20990101-000000"), ("assistant", repo.revert[:8]),
                    ("assistant", repo.dream[:8]), ("assistant", repo.init[:8]), ("Dreamdesk", "r-20200101-000000")]
    assert [m.cell_text(r, COL_TRIGGER) for r in range(1, 4)] == ["revert", "dream", "init"]
    assert m.cell_text(2, COL_STATUS) == f"commit {repo.dream[:8]}"
    assert m.cell_text(2, COL_TOKENS) == "—" and m.cell_text(0, COL_TOKENS) == "1,000"
    assert "5 Dream runs (3 by the assistant)" in view.summary.text()
    assert not view.empty.isVisible()


def _show(qtbot, view, sha: str):
    view.table.selectRow(view.model.row_for_id(sha))
    qtbot.waitUntil(lambda: view.shown_assistant is not None and view.shown_assistant.rec.sha == sha, timeout=10000)
    return view.detail.toPlainText()


def test_no_transcript_and_no_usage_are_said_plainly(qtbot, view, repo):
    shown = _show(qtbot, view, repo.dream)
    assert GONE_TRANSCRIPT == "nanobot keeps only its last 10 Dream transcripts; this run's is gone."
    assert f"Transcript\n{GONE_TRANSCRIPT}" in shown
    assert f"Tokens\n{NONE_MESSAGE}." in shown
    assert "The model's tool calls" not in shown
    assert "+- Runs three times a week." in shown      # the peer card, before → after
    shown = _show(qtbot, view, repo.revert)
    assert "not made by a Dream run (a revert)" in shown
    d = view.shown_assistant
    assert [(r.path, r.entry.text, r.prune_id) for r in d.removed] == [
        ("SOUL.md", "I am Jenny, a calm assistant.\nI answer first.\nI keep it short.", None),
        ("USER.md", "- Runs three times a week.", f"c-{repo.revert[:12]}-1")]
    assert "Restore" in shown and "restore it from Snapshots" in shown    # SOUL.md's entries: no archive id


def test_an_unreadable_usage_store_is_one_sentence(qtbot, gui_engine, gui_env, repo):
    home = repo.root.parent
    (home / "config.json").write_text("{}")                    # a home: nanobot's data folder is known
    (home / "llm_usage.sqlite3").write_bytes(b"not a database at all" * 10)
    view = _open(qtbot, gui_engine, home)
    assert view.side.usage.state == "error"
    shown = _show(qtbot, view, repo.dream)
    line = next(ln for ln in shown.splitlines() if "llm_usage.sqlite3" in ln)
    assert line == "nanobot's token usage (llm_usage.sqlite3) cannot be read: it is not an SQLite database " \
                   "(damaged, or another program's file)"


def test_only_runs_of_dreamdesk_or_none(qtbot, gui_engine, gui_env, tmp_path):
    ws = tmp_path / "ws"
    (ws / "memory").mkdir(parents=True)
    (ws / "USER.md").write_text("# User\n")
    runs, problems, side = every_run(Workspace.open(ws))
    assert (runs, problems, side.runs) == ([], [], [])
    v = RunsView(gui_engine)
    qtbot.addWidget(v)
    v.show()
    v.set_workspace(Workspace.open(ws))
    qtbot.waitUntil(lambda: v.loaded, timeout=10000)
    assert v.empty.isVisible() and "No Dream runs yet" in v.empty.text()
    assert "The assistant's own Dream runs show up here too" in v.empty.text()


def test_the_tokens_chart_says_when_there_are_none(qtbot, gui_engine, gui_env, repo):
    from dreamdesk.gui.views.charts_view import ChartsView
    view = ChartsView(gui_engine)
    qtbot.addWidget(view)
    view.show()
    view.set_workspace(Workspace.open(repo.root), {})
    qtbot.waitUntil(lambda: view.data is not None, timeout=10000)
    # the two records of Dreamdesk's own: 1,000 tokens each, on their own days
    assert [(d.day.isoformat(), d.assistant, d.dreamdesk) for d in view.data.tokens] == [
        ("2020-01-01", 0, 1000), ("2099-01-01", 0, 1000)]
    assert view.tokens_view.isVisible()
    for name in ("r-20200101-000000", "r-20990101-000000"):
        (repo.root / "memory" / "dreams" / f"{name}.json").unlink()
    view.refresh()
    qtbot.waitUntil(lambda: view.tokens_empty.isVisible(), timeout=10000)
    assert view.tokens_empty.text() == (f"No Dream tokens to chart: {NONE_MESSAGE}. "
                                        "Dreamdesk's own runs recorded none either.")
    assert not view.tokens_view.isVisible()
