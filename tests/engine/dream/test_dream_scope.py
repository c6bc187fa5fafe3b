"""Dream's scope (issue 17): which memory files Dreamdesk's own Dream may write, per workspace,
kept in Dreamdesk's state, enforced in the sandbox in every pass and in a dry run (a real run
against the scripted loopback model), told to the model, said in the outcome, and set from the CLI."""

import json
import os

import pytest

from conftest import pending_files, tree_state
from dreamdesk.engine.dream import write_scope
from dreamdesk.engine.cli import main
from dreamdesk.engine.dream import records
from dreamdesk.engine.dream.run import DreamOptions, run_dream
from dreamdesk.engine.llm.openai import OpenAIClient
from dreamdesk.engine.core.problems import WorkspaceError
from dreamdesk.engine.core.state import workspace_state_dir
from dreamdesk.engine.home.workspace import Workspace
from helpers.llm_server import turn

SOUL = "# Soul\n\n- Be brief.\n"
USER = "# User\n\n- Name: Maya\n"


@pytest.fixture
def ws(make_workspace):
    root = make_workspace(pending_files("- Maya wants replies in Swedish", SOUL=SOUL, USER=USER)
                          | {"skills/cooking/SKILL.md": "# Cooking\n\n- Salt the water.\n"})
    return Workspace.open(root)


def client(srv):
    return OpenAIClient(srv.url, "test-model", "sk-test", backoff=0.01, max_retries=1)


def consolidation_only(**kw):
    return DreamOptions(passes={"deduction": False, "induction": False}, **kw)


def test_everything_is_open_until_the_person_closes_something(ws):
    assert write_scope.load(ws.root) == write_scope.Scope()
    assert not workspace_state_dir(ws.root).exists()                               # reading writes nothing
    scope = write_scope.change(ws.root, close=["soul.md", "skills/"])
    assert scope.closed == {"SOUL.md", "skills"} and write_scope.load(ws.root) == scope
    assert not scope.allows("SOUL.md") and not scope.allows("skills/new/SKILL.md") and scope.allows("USER.md")
    assert scope.describe() == ("Dream may write USER.md, memory/MEMORY.md; never SOUL.md, skills "
                                "(closed in Dreamdesk for this workspace).")
    assert write_scope.change(ws.root, open_=["SOUL.md"]).closed == {"skills"}
    assert not any(p.name == write_scope.SCOPE_NAME for p in ws.root.rglob("*"))   # never in the workspace


def test_areas_are_named_as_people_type_them_and_the_file_is_dreamdesk_s(ws):
    assert [write_scope.parse_area(t) for t in (" USER.MD ", "memory.md", "Memory/MEMORY.md/", "skills/", "soul.md")] \
        == ["USER.md", "memory/MEMORY.md", "memory/MEMORY.md", "skills", "SOUL.md"]
    for typo in ("user.mdX", "memory", "skill", "skills/cooking"):
        with pytest.raises(WorkspaceError) as info:
            write_scope.parse_area(typo)
        assert str(info.value) == (f"{typo!r} is not one of the areas Dream writes: SOUL.md, USER.md, "
                                   "memory/MEMORY.md, skills")
    with pytest.raises(WorkspaceError, match="^SOUL.md, USER.md cannot be both opened and closed$"):
        write_scope.change(ws.root, close=["USER.md", "SOUL.md", "skills"], open_=["soul.md", "user.md", "MEMORY.md"])
    closed = write_scope.change(ws.root, close=list(write_scope.AREAS))
    assert closed.describe() == ("Dream may write nothing; never SOUL.md, USER.md, memory/MEMORY.md, skills "
                                 "(closed in Dreamdesk for this workspace).")
    path = write_scope.scope_path(ws.root)
    assert path.read_text() == ('{\n  "version": 1,\n  "closed": [\n    "SOUL.md",\n    "USER.md",\n'
                                '    "memory/MEMORY.md",\n    "skills"\n  ]\n}\n')
    assert (path.parent / "workspace.txt").read_text().strip() == os.path.realpath(ws.root)


@pytest.mark.parametrize("body, needle", [
    ("{not json", r"cannot be read \(.*\); fix or remove it \(removed, Dream may write every memory file again\)$"),
    ('{"closed": ["wikis"]}', "does not list closed areas among SOUL.md, USER.md, memory/MEMORY.md, skills; fix "
                              "or remove it$"),
    ("[]", "does not list closed areas")])
def test_an_unreadable_scope_stops_a_run_before_anything_is_written(ws, llm_server, body, needle):
    path = write_scope.scope_path(ws.root, create=True)
    path.write_text(body)
    before = tree_state(ws.root)
    srv = llm_server([turn(content="never asked")])
    with pytest.raises(WorkspaceError, match=needle):
        run_dream(ws, client(srv), consolidation_only())
    assert tree_state(ws.root) == before and srv.requests == []


def test_a_closed_file_is_never_written_in_any_pass_and_the_run_goes_on(ws, llm_server):
    write_scope.change(ws.root, close=["SOUL.md", "skills"])
    srv = llm_server([
        turn(("edit_file", {"path": "SOUL.md", "old_text": "- Be brief.", "new_text": "- Reply in Swedish."})),
        turn(("write_file", {"path": "skills/swedish/SKILL.md", "content": "# Swedish\n"})),
        turn(("add_fact", {"path": "USER.md", "text": "Wants replies in Swedish", "sources": [1]})),   # open: lands
        turn(content="done"),
    ])
    res = run_dream(ws, client(srv), consolidation_only())
    assert (ws.root / "SOUL.md").read_text() == SOUL and not (ws.root / "skills/swedish").exists()
    assert "- Wants replies in Swedish" in (ws.root / "USER.md").read_text()
    # the model was told before it tried, and each refusal says why
    prompt = srv.requests[0]["messages"][1]["content"]
    assert "Closed to you in this workspace by the person (read them, never write them): SOUL.md, skills" in prompt
    tool_msgs = [m["content"] for m in srv.requests[3]["messages"] if m["role"] == "tool"]
    assert tool_msgs[0].startswith("Error: refused: SOUL.md is closed to Dream in this workspace")
    assert tool_msgs[1].startswith("Error: refused: skills/swedish/SKILL.md is closed to Dream")
    rec = records.load_run(ws, res.run_id)
    assert [r["kind"] for r in rec.refused] == ["scope", "scope"] and records.size_refusals(rec.refused) == []
    assert res.status == "completed" and res.cursor_after == 1            # not a size matter: the batch is done
    assert len(records.counted_refusals(rec.refused)) == 2               # (runs --json's refused_count)
    assert "2 write(s) refused because the file is closed to Dream in this workspace " \
           "(SOUL.md, skills/swedish/SKILL.md); it was left as it is." in res.outcome


def test_the_review_pass_keeps_the_scope_too(ws, llm_server):
    write_scope.change(ws.root, close=["USER.md"])
    before = (ws.root / "USER.md").read_bytes()
    srv = llm_server([turn(("write_file", {"path": "USER.md", "content": "# User\n"})), turn(content="ok")],
                     default=turn(content="nothing"))
    res = run_dream(ws, client(srv), consolidation_only(force_review=True))
    assert (ws.root / "USER.md").read_bytes() == before
    rec = records.load_run(ws, res.run_id)
    assert [(r["kind"], r["pass"]) for r in rec.refused] == [("scope", "review")]


def test_the_deduction_and_induction_passes_keep_the_scope_too(make_workspace, llm_server):
    """Not only the explicit passes: a deductive replacement and an inductive pattern aimed at a
    closed file are refused, while the same passes' writes to an open file land."""
    ws = Workspace.open(make_workspace(pending_files("- Maya answers in Swedish", "- Maya reads Swedish news",
                                                     SOUL=SOUL, USER=USER)))
    write_scope.change(ws.root, close=["USER.md"])
    before = (ws.root / "USER.md").read_bytes()
    srv = llm_server([
        turn(content="nothing to fold"),                                                  # consolidation
        turn(("remove_fact", {"path": "USER.md", "text": "- Name: Maya", "replacement": "Name: Maya (Swedish)",
                              "sources": [1]})),                                           # deduction
        turn(("add_fact", {"path": "memory/MEMORY.md", "text": "Replies go out in Swedish", "sources": [1]})),
        turn(content="done"),
        turn(("add_fact", {"path": "USER.md", "text": "Prefers Swedish", "sources": [1, 2]})),   # induction
        turn(("add_fact", {"path": "memory/MEMORY.md", "text": "Lives in Swedish", "sources": [1, 2]})),
        turn(content="done"),
    ])
    res = run_dream(ws, client(srv), DreamOptions(passes={"review": False}))
    assert (ws.root / "USER.md").read_bytes() == before
    memory = (ws.root / "memory/MEMORY.md").read_text()
    assert "- Replies go out in Swedish" in memory and "- Lives in Swedish" in memory
    rec = records.load_run(ws, res.run_id)
    assert [(r["kind"], r["pass"]) for r in rec.refused] == [("scope", "deduction"), ("scope", "induction")]
    assert [(c["pass"], c["kind"]) for c in rec.created] == [("deduction", "deductive"), ("induction", "inductive")]


def test_a_dry_run_keeps_the_scope_too(ws, llm_server):
    write_scope.change(ws.root, close=["SOUL.md"])
    srv = llm_server([turn(("write_file", {"path": "SOUL.md", "content": "# Soul\n"})), turn(content="ok")])
    before = tree_state(ws.root)
    run_dream(ws, client(srv), consolidation_only(dry_run=True))
    assert tree_state(ws.root) == before
    tool_msgs = [m["content"] for m in srv.requests[1]["messages"] if m["role"] == "tool"]
    assert tool_msgs[0].startswith("Error: refused: SOUL.md is closed to Dream in this workspace")


def test_cli_scope_shows_closes_and_opens(ws, capsys):
    assert main(["scope", str(ws.root)]) == 0
    assert capsys.readouterr().out.startswith("Dream may write every memory file")
    assert main(["scope", str(ws.root), "--close", "MEMORY.md", "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == {"open": ["SOUL.md", "USER.md", "skills"],
                                                   "closed": ["memory/MEMORY.md"]}
    assert main(["scope", str(ws.root), "--close", "wikis"]) == 2
    assert "'wikis' is not one of the areas Dream writes" in capsys.readouterr().err
    assert main(["scope", str(ws.root), "--open", "memory/MEMORY.md"]) == 0
    assert write_scope.load(ws.root).closed == frozenset()


# -- the window: Settings → Memory changes it, the Engine panel says it ---------------------------
def test_settings_close_and_open_a_file_and_the_engine_panel_says_so(main_window, demo_home, qtbot):
    from helpers.screens import grab
    win = main_window
    root = win.ws.root
    assert win.panel.scope_label.text().startswith("Scope: Dream may write every memory file")
    win.tabs.setCurrentWidget(win.settings)
    boxes = win.settings.scope_boxes
    assert [b.text() for b in boxes.values()] == ["SOUL.md", "USER.md", "memory/MEMORY.md", "skills"]
    assert all(b.isChecked() and b.isEnabled() for b in boxes.values())
    boxes["SOUL.md"].click()                                  # as a person unticks it
    qtbot.waitUntil(lambda: "never SOUL.md" in win.panel.scope_label.text(), timeout=15000)
    assert write_scope.load(root).closed == {"SOUL.md"}
    assert not boxes["SOUL.md"].isChecked() and all(b.isEnabled() for b in boxes.values())
    grab(win, "settings-dream-scope.png")
    boxes["SOUL.md"].click()
    qtbot.waitUntil(lambda: "every memory file" in win.panel.scope_label.text(), timeout=15000)
    assert write_scope.load(root).closed == frozenset()


def test_an_unreadable_scope_is_said_and_its_boxes_wait(main_window, qtbot):
    win = main_window
    write_scope.scope_path(win.ws.root, create=True).write_text("{broken")
    win.refresh()
    qtbot.waitUntil(lambda: "cannot be read" in win.panel.scope_label.text(), timeout=15000)
    win.tabs.setCurrentWidget(win.settings)
    assert not any(b.isEnabled() for b in win.settings.scope_boxes.values())
