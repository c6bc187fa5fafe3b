"""A token ceiling per run (issue 17, cost): past it a run stops cleanly, its writes kept, the
cursor held, the outcome saying why; per workspace in Dreamdesk's state, or per run from the CLI
(a real run against the scripted loopback model, which reports 1,050 tokens a reply)."""

import json
import os

import pytest

from conftest import pending_files, tree_state
from dreamdesk.engine.home import token_ceiling
from dreamdesk.engine.cli import main
from dreamdesk.engine.home.cursors import read_cursor
from dreamdesk.engine.dream import records
from dreamdesk.engine.dream.run import DreamOptions, run_dream
from dreamdesk.engine.llm.openai import OpenAIClient
from dreamdesk.engine.core.problems import WorkspaceError
from dreamdesk.engine.home.workspace import Workspace
from helpers.llm_server import turn


@pytest.fixture
def ws(make_workspace):
    root = make_workspace(pending_files("- fact 1", "- fact 2", USER="# User\n\n- Name: Maya\n"))
    return Workspace.open(root)


def client(srv):
    return OpenAIClient(srv.url, "m", "sk-test", backoff=0.01, max_retries=1)


def three_turns():
    return [turn(("add_fact", {"path": "USER.md", "text": "Likes tea", "sources": [1]})),           # 1,050
            turn(("add_fact", {"path": "USER.md", "text": "Walks at six", "sources": [2]})),        # 2,100
            turn(("add_fact", {"path": "USER.md", "text": "Never runs", "sources": [2]})),          # 3,150
            turn(content="done")]


def test_a_run_stops_at_its_ceiling_keeps_its_writes_and_holds_the_cursor(ws, llm_server):
    token_ceiling.save(ws.root, 2_000)
    srv = llm_server(three_turns())
    res = run_dream(ws, client(srv), DreamOptions(passes={"deduction": False, "induction": False}))
    user = (ws.root / "USER.md").read_text()
    assert "- Likes tea" in user and "Walks at six" not in user       # the 2nd reply crossed it: its call not run
    assert len(srv.requests) == 2
    assert res.status == "stopped" and res.cursor_after == 0
    assert read_cursor(ws.dream_cursor_path, "memory/.dream_cursor")[0] == 0
    assert res.outcome.startswith("Dream stopped: the run reached its token ceiling of 2,000 (2,100 tokens spent); "
                                  "the last reply's 1 tool call(s) were not run. The 1 write(s) it made are kept; "
                                  "the cursor stays at 0 and those entries are retried next run.")
    rec = records.load_run(ws, res.run_id)
    assert rec.status == "stopped" and rec.passes[-1]["ended"] == "ceiling"


@pytest.mark.parametrize("ceiling, requests, landed", [
    (2_100, 2, ["Likes tea"]),                       # reached exactly by the 2nd reply: stops there
    (2_101, 3, ["Likes tea", "Walks at six"]),       # one token short of it: the 2nd reply's call runs
    (4_200, 4, ["Likes tea", "Walks at six", "Never runs"]),     # by a reply that asks for nothing
])
def test_a_run_that_reaches_its_ceiling_exactly_stops(ws, llm_server, ceiling, requests, landed):
    token_ceiling.save(ws.root, ceiling)
    srv = llm_server(three_turns())
    res = run_dream(ws, client(srv), DreamOptions(passes={"deduction": False, "induction": False}))
    user = (ws.root / "USER.md").read_text()
    assert [f for f in ("Likes tea", "Walks at six", "Never runs") if f in user] == landed
    assert len(srv.requests) == requests and res.status == "stopped"
    unrun = "; the last reply's 1 tool call(s) were not run" if requests < 4 else ""
    assert f"reached its token ceiling of {ceiling:,} ({requests * 1_050:,} tokens spent){unrun}. The" in res.outcome


def test_the_ceiling_counts_every_pass_s_tokens(ws, llm_server):
    """No single reply (1,050) and no single pass (2,100) reaches 3,000; the run does, in its
    second pass, and stops there."""
    token_ceiling.save(ws.root, 3_000)
    srv = llm_server([turn(("add_fact", {"path": "USER.md", "text": "Likes tea", "sources": [1]})),   # consolidation
                      turn(content="done"),
                      turn(("add_fact", {"path": "USER.md", "text": "Walks at six", "sources": [2]})),  # deduction
                      turn(content="done")])
    res = run_dream(ws, client(srv), DreamOptions(passes={"review": False, "induction": False}))
    assert "- Likes tea" in (ws.root / "USER.md").read_text() and "Walks" not in (ws.root / "USER.md").read_text()
    assert len(srv.requests) == 3 and res.status == "stopped" and res.tokens.total == 3_150
    assert "reached its token ceiling of 3,000 (3,150 tokens spent)" in res.outcome
    rec = records.load_run(ws, res.run_id)
    assert [(p["name"], p["ended"]) for p in rec.passes] == [("consolidation", "done"), ("deduction", "ceiling")]


def test_no_ceiling_by_default_and_zero_lifts_the_workspace_s_for_one_run(ws, llm_server):
    assert token_ceiling.load(ws.root) is None
    assert not token_ceiling.ceiling_path(ws.root).parent.exists()          # reading writes nothing
    token_ceiling.save(ws.root, 2_000)
    srv = llm_server(three_turns())
    res = run_dream(ws, client(srv), DreamOptions(passes={"deduction": False, "induction": False}, max_tokens=0))
    assert res.status == "completed" and res.cursor_after == 2 and len(srv.requests) == 4


@pytest.mark.parametrize("bad", [0, 999, 10_000_001, True, "5000"])
def test_what_cannot_be_a_ceiling_is_said(ws, bad):
    with pytest.raises(WorkspaceError, match="a token ceiling is a whole number from 1,000 to 10,000,000"):
        token_ceiling.save(ws.root, bad)


def test_the_ceiling_s_bounds_are_ceilings_and_its_file_is_dreamdesk_s(ws):
    """1,000 and 10,000,000 themselves are accepted (one past either is not, above); the file is
    plain JSON a person can read, in Dreamdesk's state beside the label naming the workspace;
    removing a ceiling that is not there is no error."""
    assert token_ceiling.save(ws.root, None) is None and token_ceiling.load(ws.root) is None
    assert token_ceiling.save(ws.root, token_ceiling.LOWEST) == 1_000
    assert token_ceiling.save(ws.root, token_ceiling.HIGHEST) == 10_000_000
    path = token_ceiling.ceiling_path(ws.root)
    assert path.read_text() == '{\n  "version": 1,\n  "tokens_per_run": 10000000\n}\n'
    assert (path.parent / "workspace.txt").read_text().strip() == os.path.realpath(ws.root)
    assert token_ceiling.load(ws.root) == 10_000_000
    assert token_ceiling.save(ws.root, None) is None and not path.exists()


def test_an_unreadable_ceiling_stops_a_run_before_anything_is_written(ws, llm_server):
    token_ceiling.ceiling_path(ws.root, create=True).write_text('{"tokens_per_run": "lots"}')
    before = tree_state(ws.root)
    srv = llm_server([turn(content="never asked")])
    with pytest.raises(WorkspaceError, match=r"token ceiling file .* cannot be read \(.*\); fix or remove it "
                                             r"\(removed, runs have no ceiling\)$"):
        run_dream(ws, client(srv), DreamOptions())
    assert tree_state(ws.root) == before and srv.requests == []


def test_cli_ceiling_and_dream_max_tokens(ws, llm_server, capsys, monkeypatch):
    assert main(["ceiling", str(ws.root)]) == 0
    assert capsys.readouterr().out.startswith("No token ceiling")
    assert main(["ceiling", str(ws.root), "--tokens", "50000", "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == {"tokens_per_run": 50000}
    assert main(["ceiling", str(ws.root), "--off"]) == 0 and token_ceiling.load(ws.root) is None
    capsys.readouterr()
    assert main(["dream", str(ws.root), "--max-tokens", "-5"]) == 2
    assert "a token ceiling is a whole number" in capsys.readouterr().err
    srv = llm_server(three_turns())
    monkeypatch.setenv("TEST_DREAM_KEY", "sk-test")
    code = main(["dream", str(ws.root), "--max-tokens", "1000", "--base-url", srv.url, "--model", "m",
                 "--api-key-env", "TEST_DREAM_KEY"])
    assert code != 0 and "Dream stopped: the run reached its token ceiling of 1,000" in capsys.readouterr().out


# -- the window: Settings → Memory sets it, the Engine panel says it ------------------------------
def test_settings_set_the_ceiling_explicitly_and_the_engine_panel_says_it(main_window, qtbot):
    from helpers.screens import grab
    win = main_window
    win.tabs.setCurrentWidget(win.settings)
    spin, button = win.settings.ceiling, win.settings.ceiling_button
    assert spin.text() == "none" and not button.isEnabled()
    spin.setValue(500)                                        # below the lowest: nothing to set
    assert not button.isEnabled()
    spin.setValue(50_000)
    assert token_ceiling.load(win.ws.root) is None            # typing writes nothing
    assert button.isEnabled()
    button.click()
    qtbot.waitUntil(lambda: "Each run stops after 50,000 tokens." in win.panel.scope_label.text(), timeout=15000)
    assert token_ceiling.load(win.ws.root) == 50_000 and not button.isEnabled()
    grab(win, "settings-token-ceiling.png")
    spin.setValue(0)
    button.click()
    qtbot.waitUntil(lambda: "tokens" not in win.panel.scope_label.text(), timeout=15000)
    assert token_ceiling.load(win.ws.root) is None
