"""Cost over time (issue 17): Dream tokens per ISO week beside per day, each writer's totals in
`dreamdesk runs --json`, and the Charts tab's per-week view (a real run against the scripted
loopback model, which reports 1,050 tokens a reply)."""

import json
from datetime import date

import pytest

from conftest import pending_files
from dreamdesk.engine.cli import main
from dreamdesk.engine.dream.run import DreamOptions, run_dream
from dreamdesk.engine.dream.run_list import DayTokens, token_totals, tokens_by_week
from dreamdesk.engine.llm.openai import OpenAIClient
from dreamdesk.engine.home.workspace import Workspace
from helpers.llm_server import turn


def test_days_sum_by_iso_week_across_a_year_boundary():
    days = [DayTokens(date(2025, 12, 28), 5, 0),      # a Sunday: the week of Monday Dec 22
            DayTokens(date(2025, 12, 29), 10, 1),     # Monday: ISO week 1 of 2026
            DayTokens(date(2026, 1, 4), 20, 2),       # its Sunday
            DayTokens(date(2026, 1, 5), 0, 4)]        # the next Monday
    weeks = tokens_by_week(days)
    assert [(w.label, w.monday.isoformat(), w.assistant, w.dreamdesk) for w in weeks] == [
        ("2025-W52", "2025-12-22", 5, 0), ("2026-W01", "2025-12-29", 30, 3), ("2026-W02", "2026-01-05", 0, 4)]
    assert token_totals(days)["assistant"] == 35 and token_totals(days)["dreamdesk"] == 7
    assert tokens_by_week([]) == []


@pytest.fixture
def ws(make_workspace):
    root = make_workspace(pending_files("- likes tea"))
    return Workspace.open(root)


def test_runs_json_says_each_writer_s_tokens_in_all_and_per_week(ws, llm_server, capsys):
    srv = llm_server([turn(("add_fact", {"path": "USER.md", "text": "Likes tea", "sources": [1]})),
                      turn(content="done")])
    res = run_dream(ws, OpenAIClient(srv.url, "m", "sk-test"), DreamOptions(passes={"deduction": False,
                                                                                      "induction": False}))
    assert res.tokens.total == 2_100
    assert main(["runs", str(ws.root), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    started = date.fromisoformat(out["runs"][0]["started"][:10])
    monday = date.fromordinal(started.toordinal() - started.weekday())
    assert out["tokens"] == {"assistant": 0, "dreamdesk": 2_100, "weeks": [
        {"week": f"{monday.isocalendar().year}-W{monday.isocalendar().week:02d}", "from": monday.isoformat(),
         "assistant": 0, "dreamdesk": 2_100}]}
    assert out["runs"][0]["tokens"]["total"] == 2_100


def test_the_charts_tab_shows_tokens_per_week_with_the_totals(gui_env, qtbot, history_home, tmp_path):
    import shutil

    from conftest import open_window
    from helpers.gui_waits import first_paint
    from helpers.screens import grab
    home = tmp_path / "demo"
    shutil.copytree(history_home, home, symlinks=True)          # the demo with its month of runs
    win = open_window(qtbot, home)
    win.tabs.setCurrentWidget(win.charts)
    view = win.charts
    qtbot.waitUntil(lambda: view.data is not None and bool(view.data.tokens), timeout=15000)
    daily = sum(d.dreamdesk for d in view.data.tokens) + sum(d.assistant for d in view.data.tokens)
    assert daily > 0
    view.token_span.setCurrentText("per week")
    weekly = sum(sum(s.at(i) for i in range(s.count())) for s in view.token_sets.values())
    assert weekly == daily and view.tokens_chart.title().startswith("Dream tokens per week")
    assert view.token_sets["dreamdesk"].count() == len(tokens_by_week(list(view.data.tokens)))
    assert view.token_totals.text() == (f"in all: the assistant's {sum(d.assistant for d in view.data.tokens):,} · "
                                        f"Dreamdesk's {sum(d.dreamdesk for d in view.data.tokens):,}")
    view.splitter.setSizes([250, 350])                  # (the picture is of the tokens)
    first_paint(win)                                    # the weekly axes laid out
    grab(win, "charts-tokens-weekly.png")
    win.close()
